"""What the catalog says about the paper: claims that rest on a retracted entry, or on one that
depends on a retracted entry, are suspect; malformed entries are findings on their files."""

from __future__ import annotations

from colosseum.core.structure import Diagnostic, Position, Range, RelatedInfo


def suspect_entries(catalog) -> dict[str, list[str]]:
    """entry id -> the chain to a retracted entry it depends on (transitively), retracted ones included."""
    entries = catalog.entries
    chains: dict[str, list[str]] = {e.id: [e.id] for e in entries.values() if e.status == "retracted"}
    changed = True
    rounds = 0
    while changed and rounds < len(entries) + 1:  # bounded: a chain is at most the whole catalog
        changed = False
        rounds += 1
        for entry in entries.values():
            if entry.id in chains:
                continue
            for dep in entry.links.get("entries") or []:
                if dep in chains:
                    chains[entry.id] = [entry.id] + chains[dep]
                    changed = True
                    break
    return chains


def catalog_diagnostics(catalog, index) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    chains = suspect_entries(catalog)
    for entry_id, chain in sorted(chains.items()):
        entry = catalog.entries[entry_id]
        retracted = catalog.entries[chain[-1]]
        reason = retracted.data.get("retraction_reason", "no reason given")
        for label in entry.links.get("labels") or []:
            claim = index.claims.get(label)
            if claim is None:
                continue
            how = "is retracted" if len(chain) == 1 else f"depends on the retracted entry `{chain[-1]}` (via {' -> '.join(chain)})"
            related = (RelatedInfo(_file_location(retracted.file), f"`{chain[-1]}` is retracted"),)
            out.append(Diagnostic(claim.file, claim.location.range, "warning", "colosseum/suspect",
                                  f"`{label}` relies on catalog entry `{entry_id}`, which {how}: {reason}",
                                  related, "colosseum-catalog"))
            # and what rests on that claim in the paper, transitively
            for later in sorted(index.graph.descendants(label)):
                other = index.claims.get(later)
                if other is not None:
                    out.append(Diagnostic(other.file, other.location.range, "warning", "colosseum/suspect",
                                          f"`{later}` is suspect: it rests on `{label}`, which relies on the "
                                          f"retracted catalog entry `{chain[-1]}`", related, "colosseum-catalog"))
    for problem in catalog.problems:
        if problem.severity == "information":
            continue
        where = Range(Position(problem.line, 0), Position(problem.line, 0))
        field = f"{problem.field}: " if problem.field else ""
        out.append(Diagnostic(problem.file, where, problem.severity, "colosseum/catalog-entry",
                              f"{field}{problem.message}", (), "colosseum-catalog"))
    return out


def _file_location(path):
    from colosseum.core.structure import Location

    return Location(path, Range(Position(0, 0), Position(0, 0)))
