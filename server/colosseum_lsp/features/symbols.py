"""The outline (documentSymbol) and the code lenses on claims."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from colosseum_lsp.convert import range_

STATUS_MARK = {"proved": "✓ proved", "open": "○ open", "obligation": "● obligation", "conditional": "◐ conditional"}


def document_symbols(ctx, path: Path) -> list[types.DocumentSymbol]:
    project = ctx.project_for(path)
    snap = project.snapshot()
    if snap is None:
        return []
    symbols: dict[str, types.DocumentSymbol] = {}
    top: list[types.DocumentSymbol] = []
    for sid, section in sorted(snap.sections.items(), key=lambda kv: kv[1].location.range.start):
        if section.file != path:
            continue
        sym = types.DocumentSymbol(
            name=section.title or section.level, detail=f"{section.level} · {snap.graph.status[sid]}",
            kind=types.SymbolKind.Namespace, range=range_(section.location.range),
            selection_range=range_(section.location.range), children=[])
        symbols[sid] = sym
        parent = symbols.get(section.parent) if section.parent else None
        (parent.children if parent is not None else top).append(sym)
    for cid, claim in sorted(snap.claims.items(), key=lambda kv: kv[1].location.range.start):
        if claim.file != path or claim.kind == "leannode":
            continue
        whole = types.Range(start=range_(claim.location.range).start, end=range_(claim.end.range).end)
        name = f"{snap.kind_name(claim.kind)} {claim.label or ''}".strip()
        if claim.title:
            name += f" ({claim.title})"
        sym = types.DocumentSymbol(
            name=name, detail=STATUS_MARK[snap.graph.status[cid]],
            kind=types.SymbolKind.Interface if claim.role == "definition" else types.SymbolKind.Function,
            range=whole, selection_range=range_(claim.location.range))
        parent = symbols.get(claim.section) if claim.section else None
        (parent.children if parent is not None else top).append(sym)
    return top


def code_lenses(ctx, path: Path, uri: str) -> list[types.CodeLens]:
    project = ctx.project_for(path)
    snap = project.snapshot()
    if snap is None:
        return []
    graph = snap.graph
    lenses = []
    for cid, claim in snap.claims.items():
        if claim.file != path or claim.kind == "leannode":
            continue
        rng = range_(claim.location.range)
        uses, used_by = len(graph.pred.get(cid, ())), len(graph.succ.get(cid, ()))
        status = graph.status[cid]
        lenses.append(types.CodeLens(range=rng, command=types.Command(
            title=f"{STATUS_MARK[status]} · uses {uses} · used by {used_by}",
            command="colosseum.showDependencyGraph", arguments=[uri])))
        if status == "obligation" or (claim.obligation and status != "proved"):
            lenses.append(types.CodeLens(range=rng, command=types.Command(
                title="Solve obligation", command="colosseum.solveObligation", arguments=[uri, cid])))
    return lenses
