"""Quick fixes where the fix is certain, and marking a claim as an obligation (or not)."""

from __future__ import annotations

import re
from pathlib import Path

from colosseum.checks.findings import similar_labels
from colosseum.core.structure import Position, Range
from colosseum_lsp import convert
from colosseum_lsp.features.solve import SOURCE as SOLVE_SOURCE

_MARKER_COMMENT = re.compile(r"^\s*%+\s*colosseum\s*:\s*obligation\b.*$", re.I)
_MARKS = re.compile(r"\\obligation(?![A-Za-z@])\s*|^\s*%+\s*colosseum\s*:\s*obligation.*$")


def code_actions(ctx, path: Path, uri: str, params) -> list:
    """The actions at ``params``' range and for the client's diagnostics there: ours, then every
    feature's (``ctx.features.code_actions``)."""
    project = ctx.project_for(path)
    snap = project.snapshot()
    if snap is None:
        return []
    doc = ctx.server.workspace.text_documents.get(uri)
    version = doc.version if doc else None
    actions = []
    report = ctx.extra_diagnostics.get((SOLVE_SOURCE, uri), ([], None))[1]
    for diag in params.context.diagnostics:
        if diag.source == SOLVE_SOURCE:
            actions += _solve_fixes(snap, path, uri, diag, report)
            report = None  # offered once, on the first critique
        elif diag.code == "colosseum/undefined-reference":
            actions += _reference_fixes(ctx, snap, path, uri, version, diag)
        elif diag.code == "colosseum/undefined-citation":
            actions += _citation_fixes(project, snap, path, uri, version, diag)
    claim = claim_at(snap, path, convert.engine_position(params.range.start))
    ft = project.index.text_of(path)
    if claim is not None and ft is not None:
        actions += _claim_actions(snap, claim, ft, uri, version)
    actions.extend(ctx.features.code_actions(ctx, path, uri, params, snap, version))
    return actions


def _solve_fixes(snap, path: Path, uri: str, diag, report: str | None) -> list:
    """On a surviving critique of a solve: record it as a failed route; open the run's ``report``."""
    actions = []
    claim_here = claim_at(snap, path, convert.engine_position(diag.range.start))
    if claim_here is not None:
        actions.append(convert.code_action(
            "Record as a failed route in the catalog", "quickfix", diagnostic=diag,
            command=convert.command_call("Record as a failed route", "colosseum.recordFailedRoute",
                                         [uri, claim_here.id, diag.message])))
    if report:
        actions.append(convert.code_action(
            "Open the run's report", "quickfix", diagnostic=diag,
            command=convert.command_call("Open the run's report", "colosseum.openReport", [report])))
    return actions


def _reference_fixes(ctx, snap, path: Path, uri: str, version, diag) -> list:
    """On an undefined reference: change it to each label close to it (preferred when only one is)."""
    hit = ctx.item_at(path, convert.engine_position(diag.range.start))
    if hit is None or hit[1] != "ref":
        return []
    candidates = similar_labels(hit[2].label, snap.labels)
    where = convert.engine_range(diag.range)
    return [convert.code_action(f"Change to `{candidate}`", "quickfix", diagnostic=diag,
                                preferred=len(candidates) == 1,
                                edit=convert.document_edit(uri, version, [convert.text_edit(where, candidate)]))
            for candidate in candidates]


def _citation_fixes(project, snap, path: Path, uri: str, version, diag) -> list:
    """On an undefined citation (its range is the key): change it to each key of the
    bibliography close to it, as for an undefined reference."""
    ft = project.index.text_of(path) if project.index is not None else None
    where = convert.engine_range(diag.range)
    if ft is None or where.start.line != where.end.line or where.start.line >= len(ft.lines.line_starts):
        return []
    line = ft.lines.line_text(where.start.line)
    key = line[convert.utf16_to_index(line, where.start.character):convert.utf16_to_index(line, where.end.character)]
    candidates = similar_labels(key, snap.bibliography)
    return [convert.code_action(f"Change to `{candidate}`", "quickfix", diagnostic=diag,
                                preferred=len(candidates) == 1,
                                edit=convert.document_edit(uri, version, [convert.text_edit(where, candidate)]))
            for candidate in candidates]


def _claim_actions(snap, claim, ft, uri: str, version) -> list:
    """On a claim: add it to the catalog, solve it when it is an open obligation, (un)mark it as one."""
    actions = [convert.code_action(
        f"Add `{claim.id}` to the catalog", "empty",
        command=convert.command_call(f"Add `{claim.id}` to the catalog", "colosseum.addToCatalog", [uri, claim.id]))]
    if claim.obligation and snap.graph.status.get(claim.id) == "obligation":
        actions.append(convert.code_action(
            f"Solve obligation `{claim.id}`", "empty",
            command=convert.command_call(f"Solve obligation `{claim.id}`", "colosseum.solveObligation",
                                         [uri, claim.id])))
    begin_line = claim.location.range.start.line
    if claim.obligation:
        spans = _obligation_marks(ft, begin_line, claim.end.range.end.line)
        if spans:
            actions.append(convert.code_action(
                f"Unmark `{claim.id}` as an obligation", "rewrite",
                edit=convert.document_edit(uri, version, [convert.text_edit(span, "") for span in spans])))
    else:
        indent = re.match(r"\s*", ft.lines.line_text(begin_line)).group()
        at = Position(begin_line, 0)
        actions.append(convert.code_action(
            f"Mark `{claim.id}` as an obligation", "rewrite",
            edit=convert.document_edit(uri, version, [convert.text_edit(Range(at, at),
                                                                        f"{indent}% colosseum: obligation\n")])))
    return actions


def _obligation_marks(ft, begin_line: int, end_line: int) -> list[Range]:
    """What marks a claim as an obligation: a marker comment on the line before it (the whole
    line), and each ``\\obligation`` or marker comment from its first line to its last."""
    spans = []
    if begin_line > 0 and _MARKER_COMMENT.match(ft.lines.line_text(begin_line - 1)):
        spans.append(Range(Position(begin_line - 1, 0), Position(begin_line, 0)))
    for line in range(begin_line, end_line + 1):
        spans += [Range(Position(line, m.start()), Position(line, m.end()))
                  for m in _MARKS.finditer(ft.lines.line_text(line))]
    return spans


def claim_at(snap, path: Path, pos: Position):
    """The innermost claim of ``path`` whose statement holds ``pos`` (an engine position)."""
    best = None
    for claim in snap.claims.values():
        if claim.file == path and claim.location.range.start <= pos <= claim.end.range.end:
            if best is None or claim.location.range.start > best.location.range.start:
                best = claim
    return best
