"""Draft offers: how a model's proof reaches the paper from the editor.

A solve, a research skeleton or the retry of a section that failed its local review never edits
the author's files and never sends ``workspace/applyEdit``. What it found is kept as an *offer*
(the last ``MAX_OFFERS`` per claim) and shown as a code action on the claim, "Insert draft proof
of X (run R: <verdict>, N critiques survive)", which the author picks or not. The edit is built
when the action is asked for, from the index as it is then, and carries the draft marker
(``% colosseum: draft <run-id>``) on the proof's first line; a client that advertises
``changeAnnotationSupport`` also gets it annotated with ``needsConfirmation`` (a preview to
confirm). Picking the action also runs ``colosseum.draftInserted``, which drops the offer and
does what the insertion means (the solve records the result in the catalog)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from colosseum.core.structure import Range
from colosseum.latex.draft_marker import draft_run, marker, proof_environment
from colosseum_lsp import convert
from colosseum_lsp.features import code_actions, registry  # code_actions read at call time: it imports solve
from colosseum_lsp.features.commands import document_project
from colosseum_lsp.features.registry import CommandFailed

MAX_OFFERS = 3  # per claim: an older offer than the last three is only in its run's folder
INSERTED = "colosseum.draftInserted"


class DraftError(CommandFailed):
    pass


@dataclass(frozen=True)
class Offer:
    """What a run offers for one claim. ``kind``: "proof" (after the claim, or in place of its empty
    proof), "retry" (in place of the claim's proof) or "skeleton" (a new file, ``text``, at
    ``new_file``, with ``input_line`` after the claim). ``text`` is what is inserted, the marker
    included; ``on_insert`` runs (in a thread) once the author inserted it."""

    label: str
    run_id: str
    verdict: str
    survivors: int
    kind: str
    text: str
    new_file: Path | None = None
    input_line: str = ""
    on_insert: Callable[[], list] | None = None
    offered_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))

    @property
    def title(self) -> str:
        what = {"proof": "proof", "retry": "proof", "skeleton": "skeleton"}[self.kind]
        where = " in place of its proof" if self.kind == "retry" else ""
        return (f"Insert draft {what} of {self.label}{where} (run {self.run_id}: {self.verdict}, "
                f"{self.survivors} critique{'s' if self.survivors != 1 else ''} survive)")


@dataclass
class DraftOffers:
    """A project's offers, newest first, per claim label."""

    by_label: dict[str, list[Offer]] = field(default_factory=dict)

    def add(self, offer: Offer) -> None:
        kept = [o for o in self.by_label.get(offer.label, []) if o.run_id != offer.run_id]
        self.by_label[offer.label] = [offer] + kept[:MAX_OFFERS - 1]

    def take(self, label: str, run_id: str) -> Offer | None:
        offers = self.by_label.get(label, [])
        found = next((o for o in offers if o.run_id == run_id), None)
        if found is not None:
            offers.remove(found)
        return found


def offer(project, item: Offer) -> dict:
    """Keep ``item`` as an offer of ``project``; what a command's answer says about it: ``offered``
    and ``offer_at`` (the claim's uri and position, where the code action is)."""
    project.state(DraftOffers).add(item)
    snap = project.snapshot()
    claim = snap.claims.get(item.label) if snap is not None else None
    at = None
    if claim is not None:
        start = claim.location.range.start
        at = {"uri": convert.path_to_uri(claim.file), "line": start.line, "character": start.character}
    return {"offered": True, "offer_at": at, "offer_title": item.title}


def solve_proof(proof: str, run_id: str) -> str:
    """The proof environment a solve offers, exactly as it is inserted (the marker included)."""
    return proof_environment(proof, run_id)


# ---- code actions ----------------------------------------------------------------------------------
@registry.code_action_provider
def draft_actions(ctx, path: Path, uri: str, params, snap, version) -> list:
    """On a claim with offers: one "Insert draft …" action per offer, newest first."""
    claim = code_actions.claim_at(snap, path, convert.engine_position(params.range.start))
    if claim is None:
        return []
    project = ctx.project_for(path)
    actions = []
    for item in project.state(DraftOffers).by_label.get(claim.id, []):
        edit = _offer_edit(ctx, project, claim, item)
        if edit is None:
            continue
        actions.append(convert.code_action(
            item.title, "rewrite", edit=edit,
            command=convert.command_call(item.title, INSERTED, [uri, item.label, item.run_id])))
    return actions


def _offer_edit(ctx, project, claim, item: Offer):
    """The offer's edit, at the positions and version of the text the index read."""
    uri = convert.path_to_uri(claim.file)
    doc = ctx.server.workspace.text_documents.get(uri)
    version = project.indexed_versions.get(uri, doc.version) if doc is not None else None
    empty_proof = claim.proof is not None and not claim.proof.has_content and claim.proof.file == claim.file
    text = item.input_line if item.kind == "skeleton" else item.text
    if item.kind == "retry" and claim.proof is not None:
        uri = convert.path_to_uri(claim.proof.file)
        doc = ctx.server.workspace.text_documents.get(uri)
        version = project.indexed_versions.get(uri, doc.version) if doc is not None else None
        where = Range(claim.proof.location.range.start, claim.proof.end.range.end)
    elif empty_proof:  # in place of the empty proof
        where = Range(claim.proof.location.range.start, claim.proof.end.range.end)
    else:
        after = claim.end.range.end
        where, text = Range(after, after), "\n" + text + ("" if item.kind == "skeleton" else "\n")
    edits = [convert.text_edit(where, text)]
    caps = ctx.server.client_capabilities
    description = (f"A model's draft (run {item.run_id}, {item.verdict}, {item.survivors} surviving critique(s)); "
                   f"it stays a draft until you accept it.")
    if item.kind == "skeleton":
        if item.new_file is None or item.new_file.exists():
            return None  # never over an existing file
        edit = convert.new_file_edit(convert.path_to_uri(item.new_file), item.text, [(uri, version, edits)])
        return convert.confirmed_edit(edit, f"Draft skeleton of {item.label}", description, caps)
    return convert.confirmed_document_edit(uri, version, edits, f"Draft proof of {item.label}", description, caps)


@registry.command(INSERTED)
async def draft_inserted(ctx, args) -> dict:
    """The author inserted an offer (the code action's command, run after its edit): the offer is
    dropped, and what inserting it means is done (a solve's result is recorded in the catalog)."""
    if len(args) < 3 or not all(isinstance(a, str) for a in args[:3]):
        raise DraftError(f"usage: {INSERTED} [document uri, claim label, run id]")
    project, _index = await document_project(ctx, args[0])
    item = project.state(DraftOffers).take(args[1], args[2])
    if item is None:
        return {"label": args[1], "run": args[2], "catalog": [], "message": f"{args[1]}: draft of run {args[2]} inserted"}
    curated = list(await asyncio.to_thread(item.on_insert) or []) if item.on_insert is not None else []
    return {"label": item.label, "run": item.run_id, "catalog": curated,
            "message": f"{item.label}: draft of run {item.run_id} inserted; it stays a draft until you accept it"
                       + (f"; catalog: {', '.join(curated)}" if curated else "")}
