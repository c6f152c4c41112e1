"""Workspace symbols: the claims of every indexed project, found by label, title or kind."""

from __future__ import annotations

from lsprotocol import types

from colosseum_lsp import convert

MAX_SYMBOLS = 500  # an empty query lists the claims; an editor shows no more than this at once


def _matches(query: str, *fields: str | None) -> bool:
    """Every word of the query in one of the fields (case ignored)."""
    text = " ".join(f for f in fields if f).lower()
    return all(word in text for word in query.lower().split())


def workspace_symbols(projects, query: str) -> list[types.SymbolInformation]:
    """``projects``: (project, snapshot) pairs; claims in reading order within each."""
    out = []
    for project, snap in projects:
        for cid, claim in sorted(snap.claims.items(), key=lambda kv: kv[1].order):
            if claim.kind == "leannode":
                continue
            kind_name = snap.kind_name(claim.kind)
            if not _matches(query, claim.label, claim.title, kind_name, cid):
                continue
            name = claim.label or cid
            if claim.title:
                name += f" ({claim.title})"
            container = f"{kind_name} · {project.index.relative(claim.file)}"
            out.append(convert.symbol_information(name, "definition" if claim.role == "definition" else "claim",
                                                  claim.location, container))
            if len(out) >= MAX_SYMBOLS:
                return out
    return out
