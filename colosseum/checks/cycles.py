"""Findings about circular arguments: every claim on a circle of the dependency graph
(colosseum.graph.dag.DependencyGraph.cycles), with the reference behind each step.

Found again when the graph's circles are new, or a node on one was read afresh or moved. A claim
that ``\\uses`` its own label (``\\begin{proof}\\uses{thm:a}`` under ``thm:a``) is a circle of
length one: the graph keeps no edge from a node to itself (a statement's "see Theorem \\ref{thm:a}"
of itself is no use), so that finding is made here, from the claim's own references, on the
``\\uses``."""

from __future__ import annotations

from pathlib import Path

from colosseum.checks.family import Edit, Entry, Findings, code
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic, Location, RelatedInfo


def node_location(view: BuildView, node: str) -> Location | None:
    item = view.claims.get(node) or view.sections.get(node)
    return item.location if item is not None else None


NAMED_STEPS = 8  # a longer circle's findings name its length and its first steps only


def cycle_findings(view: BuildView, cycles: list[list[str]]) -> list[Diagnostic]:
    """One finding per claim on a circle. A circle of n claims makes n findings of bounded size
    (its first NAMED_STEPS steps), not n findings of n steps each."""
    out = []
    for cycle in cycles:
        message, steps = _describe(view, cycle)
        for node in cycle[:-1]:
            loc = node_location(view, node)
            if loc is None:
                continue
            out.append(Diagnostic(loc.file, loc.range, "error", code("dependency-cycle"), message, steps))
    return out


def _describe(view: BuildView, cycle: list[str]) -> tuple[str, tuple[RelatedInfo, ...]]:
    """The message and related places shared by a circle's findings."""
    label_owner = view.label_owner
    declared = view.graph.declares_uses
    length = len(cycle) - 1
    shown = cycle if length <= NAMED_STEPS else cycle[:NAMED_STEPS + 1]
    # why each step is a use: the reference that makes it, e.g. an \eqref to an equation inside;
    # one that closes the circle first: a \uses where the project declares them, else the
    # claim's own label before a label inside it
    steps = []
    said = []  # the same in the message, for a linter's output that has no related places
    # (no line numbers: an edit elsewhere that moves the reference would leave them stale)
    for used, user in zip(shown, shown[1:]):
        item = view.claims.get(user) or view.sections.get(user)
        refs = [r for r in (item.references if item is not None else ())
                if r.owner == user and label_owner.get(r.label) == used and r.part != "proof-title"]
        if refs:
            ref = min(refs, key=lambda r: (declared and r.command != "uses", r.label != used))
            inner = "" if ref.label == used else f" (a label inside `{used}`)"
            steps.append(RelatedInfo(ref.location, f"`{user}` uses `{used}` here: \\{ref.command}{{{ref.label}}}{inner}"))
            said.append(f"`{user}` uses `{used}` by \\{ref.command}{{{ref.label}}}{inner}")
    why = "; ".join(said) if said else "each is used by the next"
    if length <= NAMED_STEPS:
        return f"circular argument: {' -> '.join(cycle)} ({why})", tuple(steps)
    path = " -> ".join(shown)
    return (f"circular argument of {length} claims: {path} -> ... -> {cycle[-1]} (the first {NAMED_STEPS} "
            f"steps: {why})", tuple(steps))


class Cycles:
    name = "cycles"
    codes = ("dependency-cycle",)
    depends_on = ("graph", "claims", "sections", "label_owner")

    def __init__(self):
        self.cycles: list[list[str]] | None = None  # the circles the findings were made from
        self.files: set[Path] = set()  # the files they are in
        self.self_users: set[str] = set()  # claims with a finding that they \uses themselves

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        dirty = set() if edit.full else edit.change.nodes | edit.moved_nodes
        cycles = view.graph.cycles()
        if cycles is not self.cycles or any(node in dirty for cycle in cycles for node in cycle):
            by_file: dict[Path, list[Entry]] = {}
            for diag in cycle_findings(view, cycles):
                by_file.setdefault(diag.file, []).append((diag, None))
            # one key per file: a file's findings are read without walking a long circle's others
            for path in self.files - by_file.keys():
                findings.set(("cycles", path), [])
            for path, entries in by_file.items():
                findings.set(("cycles", path), entries)
            self.cycles, self.files = cycles, set(by_file)
        self._judge_self_uses(view, edit, findings)

    def _judge_self_uses(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        """The circles of length one, found again for the claims read afresh or moved (and those
        that had one: a claim that is gone loses its finding)."""
        claims = view.claims
        again = claims.keys() if edit.full else (edit.change.nodes | edit.moved_nodes) & claims.keys()
        for cid in set(again) | self.self_users:
            found = self_use_findings(view, cid)
            findings.set(("cycles", "self", cid), [(diag, None) for diag in found])
            if found:
                self.self_users.add(cid)
            else:
                self.self_users.discard(cid)


def self_use_findings(view: BuildView, cid: str) -> list[Diagnostic]:
    """A finding on each ``\\uses`` of ``cid``'s own label inside ``cid`` (its statement or its
    proof): the claim rests on itself."""
    claim = view.claims.get(cid)
    if claim is None or not claim.label:
        return []
    out = []
    for ref in claim.references:
        if ref.command != "uses" or ref.label != claim.label or ref.owner != cid or ref.part == "proof-title":
            continue
        where = "its proof" if ref.part == "proof" else "its statement"
        message = (f"circular argument: `{cid}` -> `{cid}` ({where} \\uses{{{ref.label}}}, the claim itself: "
                   "a result cannot rest on itself)")
        out.append(Diagnostic(ref.location.file, ref.location.range, "error", code("dependency-cycle"), message,
                              (RelatedInfo(claim.location, f"`{cid}` is stated here"),)))
    return out
