"""What the catalog says about the paper: claims that rest on a retracted entry, or on one that
depends on a retracted entry, are suspect; a claim a probe found a counterexample to says so;
malformed entries are findings on their files."""

from __future__ import annotations

from colosseum.core.structure import Diagnostic, Position, Range, RelatedInfo

# the codes of the catalog's findings (each in the README's table of diagnostic codes)
CATALOG_CODES = ("suspect", "catalog-entry", "counterexample-found")
# a warning, not an error: the case comes from code a model wrote, which may test another statement
# than the paper's; an error stays what breaks the document itself (and makes `check` exit 1)
COUNTEREXAMPLE_SEVERITY = "warning"


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


def suspect_claims(catalog, index, entry_ids) -> set[str]:
    """The paper's claims linked to these entries and those that rest on them in the DAG: what
    catalog_diagnostics calls suspect once the entries are retracted (or rest on a retracted one)."""
    found: set[str] = set()
    for entry_id in entry_ids:
        entry = catalog.entries.get(entry_id)
        for label in (entry.links.get("labels") or []) if entry is not None else ():
            if label in index.claims:
                found |= {label} | {later for later in index.graph.descendants(label) if later in index.claims}
    return found


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
    out += counterexample_diagnostics(catalog, index)
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


def counterexample_diagnostics(catalog, index) -> list[Diagnostic]:
    """``colosseum/counterexample-found`` on a claim the catalog holds a counterexample to (a
    computation item whose verdict is ``counterexample``, in an active entry)."""
    from colosseum.catalog.evidence import computation_line, evidence_by_claim, labels_named

    out: list[Diagnostic] = []
    # the claims the catalog names, not every claim of the paper: this runs at every publication
    # of the server's findings (each keystroke), and a paper has thousands of claims
    named = labels_named(catalog) & index.claims.keys()
    for label, evidence in sorted(evidence_by_claim(catalog, named).items()):
        claim = index.claims[label]
        for item in evidence.counterexamples:
            entry = catalog.entries[item.entry]
            related = (RelatedInfo(_file_location(entry.file), f"catalog entry `{item.entry}`"),)
            out.append(Diagnostic(claim.file, claim.location.range, COUNTEREXAMPLE_SEVERITY,
                                  "colosseum/counterexample-found",
                                  f"a probe of `{label}` {computation_line(item)}, catalog entry `{item.entry}`. "
                                  "Computation, not a proof: read the run's code, then fix the claim or retract "
                                  "the entry",
                                  related, "colosseum-catalog"))
    return out
