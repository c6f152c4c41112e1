"""The outline (documentSymbol) and the code lenses on claims."""

from __future__ import annotations

from lsprotocol import types

from colosseum.core.structure import Range
from colosseum_lsp import convert
from colosseum_lsp.context import FeatureContext

STATUS_MARK = {"proved": "✓ proved", "open": "○ open", "obligation": "● obligation", "conditional": "◐ conditional",
               "draft": "◇ draft", "formal": "✓ formal"}


def status_mark(status: str, claim=None) -> str:
    """The outline's and the lenses' word for a status (a value added later reads as itself); a
    draft names the run that wrote it."""
    mark = STATUS_MARK.get(status, status)
    proof = claim.proof if claim is not None else None
    if status == "draft" and proof is not None and proof.draft_run:
        mark += f" (run {proof.draft_run})"
    return mark


def document_symbols(fc: FeatureContext) -> list[types.DocumentSymbol]:
    snap, path = fc.snapshot, fc.path
    symbols: dict[str, types.DocumentSymbol] = {}
    top: list[types.DocumentSymbol] = []
    for sid, section in sorted(snap.sections.items(), key=lambda kv: kv[1].location.range.start):
        if section.file != path:
            continue
        sym = convert.document_symbol(section.title or section.level, f"{section.level} · {snap.graph.status[sid]}",
                                      "section", section.location.range, section.location.range, children=[])
        symbols[sid] = sym
        parent = symbols.get(section.parent) if section.parent else None
        (parent.children if parent is not None else top).append(sym)
    for cid, claim in sorted(snap.claims.items(), key=lambda kv: kv[1].location.range.start):
        if claim.file != path or claim.kind == "leannode":
            continue
        whole = Range(claim.location.range.start, claim.end.range.end)
        name = f"{snap.kind_name(claim.kind)} {claim.label or ''}".strip()
        if claim.title:
            name += f" ({claim.title})"
        sym = convert.document_symbol(name, status_mark(snap.graph.status[cid], claim),
                                      "definition" if claim.role == "definition" else "claim",
                                      whole, claim.location.range)
        parent = symbols.get(claim.section) if claim.section else None
        (parent.children if parent is not None else top).append(sym)
    return top


def code_lenses(fc: FeatureContext, uri: str) -> list[types.CodeLens]:
    snap, path = fc.snapshot, fc.path
    graph = snap.graph
    lenses = []
    for cid, claim in snap.claims.items():
        if claim.file != path or claim.kind == "leannode":
            continue
        rng = claim.location.range
        uses, used_by = len(graph.pred.get(cid, ())), len(graph.succ.get(cid, ()))
        status = graph.status[cid]
        lenses.append(convert.code_lens(rng, f"{status_mark(status, claim)} · uses {uses} · used by {used_by}",
                                        "colosseum.showDependencyGraph", [uri]))
        # a draft has its answer: it waits for the author's decision (draft_review), not a new solve
        if status == "obligation" or (claim.obligation and status not in ("proved", "draft")):
            lenses.append(convert.code_lens(rng, "Solve obligation", "colosseum.solveObligation", [uri, cid]))
    return lenses
