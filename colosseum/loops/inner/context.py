"""What an obligation's provers are given, read from the project index and its catalog.

The results they may assume are exactly the claims that do not depend on the obligation in the
DAG (so no proof can become circular), its ancestors first; statements only, never proofs."""

from __future__ import annotations

from colosseum.loops.inner.solve import ObligationContext
from colosseum.loops.notation import preamble_notation

MAX_ASSUMABLE = 200  # statements, ancestors first


def obligation_context(index, label: str, catalog=None, previous: str = "(none)") -> ObligationContext:
    claim = index.claims.get(label)
    if claim is None:
        raise KeyError(f"no claim `{label}` in the project")
    graph = index.graph
    dependents = graph.descendants(label) | {label}
    ancestors = graph.ancestors(label)
    order = sorted((c for cid, c in index.claims.items() if cid not in dependents and c.kind != "leannode"),
                   key=lambda c: (c.id not in ancestors, str(c.file), c.location.range.start))
    assumable = "\n\n".join(
        f"[{c.id}] {c.kind}{' (' + c.title + ')' if c.title else ''}, status {_status_text(graph.status.get(c.id))}:\n"
        f"{_clean(c.statement_text)}" for c in order[:MAX_ASSUMABLE])
    statement = _clean(claim.statement_text)
    catalog_text, tokens, taken, computation = "(none)", 0, (), ()
    if catalog is not None:
        from colosseum.catalog.evidence import claim_evidence
        from colosseum.catalog.retrieval import CatalogSearch

        retrieved = CatalogSearch(catalog).retrieve(label, ancestors, statement)
        catalog_text, tokens, taken = retrieved.text, retrieved.tokens, tuple(e.id for e in retrieved.entries)
        computation = tuple(claim_evidence(catalog, label).computation)
    return ObligationContext(label=label, statement=statement, assumable=assumable,
                             notation=preamble_notation(index), catalog=catalog_text, previous=previous,
                             catalog_tokens=tokens, catalog_entries=taken, computation=computation)


def _clean(statement: str) -> str:
    return "\n".join(line for line in statement.strip().splitlines()
                     if not line.strip().startswith(("\\label", "%"))).strip()


def _status_text(status: str | None) -> str:
    # the provers and refuters must see a Lean-checked result as trusted, apart from reviewed ones
    return "formal (checked by Lean: trusted)" if status == "formal" else str(status)
