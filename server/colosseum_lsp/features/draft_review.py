"""The author's decision about a model's draft in the editor: on a proof whose first line carries
``% colosseum: draft <run-id>`` (its ``colosseum/draft-proof`` finding), the quick fixes "Accept
draft" (removes the marker) and "Reject draft" (removes the proof).

Each is a code action the author picks; nothing is applied unasked. Its edit changes only the
buffer; its command (``colosseum.acceptDraft`` / ``colosseum.rejectDraft``), which the client runs
after applying the edit, records the decision in the catalog (colosseum.app.drafts): a person's
review, or a failed route with the run's surviving critiques. Offering a solved proof in the
first place is colosseum_lsp.features.drafts (the other side of the same marker)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from colosseum.app.drafts import DraftNotFound, accept_change, draft_at, record_acceptance, record_rejection, \
    reject_change
from colosseum.checks.drafts import DRAFT_CODE
from colosseum_lsp import convert
from colosseum_lsp.convert import uri_to_path
from colosseum_lsp.features import registry
from colosseum_lsp.features.registry import CommandFailed

ACCEPT, REJECT = "colosseum.acceptDraft", "colosseum.rejectDraft"


@registry.code_action_provider
def draft_actions(ctx, path: Path, uri: str, params, snap, version) -> list:
    """"Accept draft" and "Reject draft" on a draft's marker (or its ``\\begin{proof}`` line), or
    for its finding among the client's diagnostics."""
    project = ctx.project_for(path)
    index = project.index
    if index is None:
        return []
    found = {diag.range.start.line: diag for diag in params.context.diagnostics if diag.code == DRAFT_CODE}
    lines = set(range(params.range.start.line, params.range.end.line + 1)) | found.keys()
    claims = {claim.id: claim for line in sorted(lines) if (claim := draft_at(snap, path, line)) is not None}
    actions = []
    for claim in claims.values():
        marker = claim.proof.draft_location or claim.proof.location
        diag = found.get(marker.range.start.line)
        actions += _decisions(index, claim, uri, version, diag)
    return actions


def _decisions(index, claim, uri: str, version, diag) -> list:
    run = claim.proof.draft_run or ""
    artifact = f"{index.relative(claim.file)}:{claim.location.range.start.line + 1}"
    accept, reject = accept_change(index, claim), reject_change(index, claim)
    return [
        convert.code_action(
            "Accept draft", "quickfix", diagnostic=diag, preferred=False,
            edit=convert.document_edit(uri, version, [convert.text_edit(accept.range, accept.new_text)]),
            command=convert.command_call("Record the acceptance in the catalog", ACCEPT,
                                         [uri, claim.id, run, artifact])),
        convert.code_action(
            "Reject draft", "quickfix", diagnostic=diag, preferred=False,
            edit=convert.document_edit(uri, version, [convert.text_edit(reject.range, reject.new_text)]),
            command=convert.command_call("Record the rejection in the catalog", REJECT,
                                         [uri, claim.id, run, reject.removed])),
    ]


async def _claim_of(ctx, args: list, usage: str):
    if len(args) < 4 or not all(isinstance(a, str) for a in args[:4]):
        raise CommandFailed(f"usage: {usage}")
    path = uri_to_path(args[0])
    project = ctx.project_for(path) if path else None
    if project is None or await ctx.ensure_index(project) is None:
        raise CommandFailed("no project for this document")
    claim = project.snapshot().claims.get(args[1])
    if claim is None:
        raise CommandFailed(f"no claim `{args[1]}` in the project")
    return project, claim


@registry.command(ACCEPT)
async def accept_draft(ctx, args) -> dict:
    """[document uri, claim id, run id, where]: after "Accept draft" took the marker out of the
    buffer, record in the catalog that a person reviewed the proof."""
    return await _record_decision(ctx, args, f"{ACCEPT} [document uri, claim id, run id, file:line]",
                                  record_acceptance, "accepted")


@registry.command(REJECT)
async def reject_draft(ctx, args) -> dict:
    """[document uri, claim id, run id, the proof removed]: after "Reject draft" took the proof out
    of the buffer, record a failed route with the run's surviving critiques."""
    return await _record_decision(ctx, args, f"{REJECT} [document uri, claim id, run id, proof]",
                                  record_rejection, "rejected")


async def _record_decision(ctx, args, usage: str, record, status: str) -> dict:
    """The catalog's record of the author's decision (off the event loop), then the project's
    findings published again."""
    project, claim = await _claim_of(ctx, args, usage)
    try:
        entry = await asyncio.to_thread(record, project.root_dir, claim, args[2], args[3])
    except (DraftNotFound, OSError) as exc:
        raise CommandFailed(str(exc)) from exc
    ctx.publish(project)
    return {"status": status, "label": claim.id, "entry": entry}
