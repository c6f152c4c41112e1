"""Structural diagnostics of a project, with stable codes (``colosseum/<name>``).

Each family of findings lives in a module of its own (colosseum.checks.registry lists them);
this module computes them all from nothing, and keeps the names other modules import.
Labels and references are judged per root, as LaTeX would judge each build; a finding that
holds in only some of the roots that read a file says which.
"""

from __future__ import annotations

from colosseum.checks.claims import claim_findings
from colosseum.checks.cycles import cycle_findings
from colosseum.checks.family import PREFIX, code
from colosseum.checks.obligations import conditional_finding
from colosseum.checks.references import (
    MAX_PLACES,
    NearMisses,
    comma_finding,
    duplicate_findings,
    similar_labels,
    undefined_finding,
    within_one_edit,
)
from colosseum.checks.state import DiagnosticState
from colosseum.checks.view import BuildSource
from colosseum.core.structure import Diagnostic

__all__ = [
    "MAX_PLACES", "PREFIX", "NearMisses", "claim_findings", "code", "comma_finding", "compute_diagnostics",
    "conditional_finding", "cycle_findings", "duplicate_findings", "similar_labels", "undefined_finding",
    "within_one_edit",
]


def compute_diagnostics(source: BuildSource) -> list[Diagnostic]:
    """Every finding of a build (the index's current one), computed from nothing (the index keeps
    them up to date by difference: colosseum.checks.state)."""
    return DiagnosticState().update(source.build_view(), None)
