"""Findings about drafts: a proof that a model wrote (its first line carries
``% colosseum: draft <run-id>``, colosseum.latex.draft_marker) waits for a person to accept or
reject it. The finding stands on the marker, where the quick fixes "Accept draft" and "Reject
draft" act.

Judged again, like the other per-claim families, for the claims read afresh (or moved, when they
had a finding)."""

from __future__ import annotations

from colosseum.checks.claims import _PerClaim
from colosseum.checks.family import Edit, Findings, code
from colosseum.checks.view import BuildView
from colosseum.core.structure import Claim, Diagnostic

DRAFT_CODE = code("draft-proof")


def draft_findings(claim: Claim) -> list[Diagnostic]:
    proof = claim.proof
    if proof is None or proof.draft_run is None:
        return []
    where = proof.draft_location or proof.location
    run = f" from run {proof.draft_run}" if proof.draft_run else ""
    # information, not a warning: nothing is wrong yet, but a person has a decision to make
    return [Diagnostic(where.file, where.range, "information", DRAFT_CODE,
                       f"proof of `{claim.id}` is a model's draft{run}; accept or reject it")]


class DraftProofs(_PerClaim):
    name = "draft-proofs"
    codes = ("draft-proof",)
    depends_on = ("claims",)

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        self._set(findings, view, self._touched(view, edit, findings))

    def find(self, view: BuildView, claim: Claim) -> list[Diagnostic]:
        return draft_findings(claim)
