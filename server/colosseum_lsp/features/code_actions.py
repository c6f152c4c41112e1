"""Quick fixes where the fix is certain, and marking a claim as an obligation (or not)."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types

from colosseum.checks.findings import similar_labels
from colosseum.core.structure import Position
from colosseum_lsp.convert import engine_position

_MARKER_COMMENT = re.compile(r"^\s*%+\s*colosseum\s*:\s*obligation\b.*$", re.I)


def code_actions(ctx, path: Path, uri: str, params: types.CodeActionParams) -> list[types.CodeAction]:
    project = ctx.project_for(path)
    snap = project.snapshot()
    if snap is None:
        return []
    doc = ctx.server.workspace.text_documents.get(uri)
    version = doc.version if doc else None
    actions: list[types.CodeAction] = []
    for diag in params.context.diagnostics:
        if diag.source == "colosseum-solve":
            claim_here = claim_at(snap, path, engine_position(diag.range.start))
            if claim_here is not None:
                actions.append(types.CodeAction(
                    title="Record as a failed route in the catalog", kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag], command=types.Command(
                        title="Record as a failed route", command="colosseum.recordFailedRoute",
                        arguments=[uri, claim_here.id, diag.message])))
            report = ctx.extra_diagnostics.get(("colosseum-solve", uri), ([], None))[1]
            if report and not any(a.command and a.command.command == "colosseum.openReport" for a in actions):
                actions.append(types.CodeAction(
                    title="Open the run's report", kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                    command=types.Command(title="Open the run's report", command="colosseum.openReport",
                                          arguments=[report])))
            continue
        if diag.code != "colosseum/undefined-reference":
            continue
        hit = ctx.item_at(path, engine_position(diag.range.start))
        if hit is None or hit[1] != "ref":
            continue
        wrong = hit[2].label
        for candidate in similar_labels(wrong, snap.labels):
            actions.append(types.CodeAction(
                title=f"Change to `{candidate}`", kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                is_preferred=len(similar_labels(wrong, snap.labels)) == 1,
                edit=_edit(uri, version, [types.TextEdit(range=diag.range, new_text=candidate)])))
    cursor = engine_position(params.range.start)
    claim = claim_at(snap, path, cursor)
    ft = project.index.text_of(path)
    if claim is not None and ft is not None:
        begin_line = claim.location.range.start.line
        status = snap.graph.status.get(claim.id)
        actions.append(types.CodeAction(
            title=f"Add `{claim.id}` to the catalog", kind=types.CodeActionKind.Empty,
            command=types.Command(title=f"Add `{claim.id}` to the catalog", command="colosseum.addToCatalog",
                                  arguments=[uri, claim.id])))
        if claim.obligation and status == "obligation":
            actions.append(types.CodeAction(
                title=f"Solve obligation `{claim.id}`", kind=types.CodeActionKind.Empty,
                command=types.Command(title=f"Solve obligation `{claim.id}`", command="colosseum.solveObligation",
                                      arguments=[uri, claim.id])))
        if claim.obligation:
            edits = []
            if begin_line > 0 and _MARKER_COMMENT.match(ft.lines.line_text(begin_line - 1)):
                edits.append(types.TextEdit(range=types.Range(start=types.Position(line=begin_line - 1, character=0),
                                                              end=types.Position(line=begin_line, character=0)),
                                            new_text=""))
            for line in range(begin_line, claim.end.range.end.line + 1):
                text = ft.lines.line_text(line)
                for m in re.finditer(r"\\obligation(?![A-Za-z@])\s*|^\s*%+\s*colosseum\s*:\s*obligation.*$", text):
                    edits.append(types.TextEdit(range=types.Range(start=types.Position(line=line, character=m.start()),
                                                                  end=types.Position(line=line, character=m.end())),
                                                new_text=""))
            if edits:
                actions.append(types.CodeAction(title=f"Unmark `{claim.id}` as an obligation",
                                                kind=types.CodeActionKind.RefactorRewrite,
                                                edit=_edit(uri, version, edits)))
        else:
            indent = re.match(r"\s*", ft.lines.line_text(begin_line)).group()
            at = types.Position(line=begin_line, character=0)
            actions.append(types.CodeAction(
                title=f"Mark `{claim.id}` as an obligation", kind=types.CodeActionKind.RefactorRewrite,
                edit=_edit(uri, version, [types.TextEdit(range=types.Range(start=at, end=at),
                                                         new_text=f"{indent}% colosseum: obligation\n")])))
    actions.extend(ctx.features.code_actions(ctx, path, uri, params, snap, version))
    return actions


def claim_at(snap, path: Path, pos: Position):
    """The innermost claim of ``path`` whose statement holds ``pos`` (an engine position)."""
    best = None
    for claim in snap.claims.values():
        if claim.file == path and claim.location.range.start <= pos <= claim.end.range.end:
            if best is None or claim.location.range.start > best.location.range.start:
                best = claim
    return best


def _edit(uri: str, version: int | None, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits)])
