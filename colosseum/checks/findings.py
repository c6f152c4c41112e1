"""Structural diagnostics of a project, with stable codes (``colosseum/<name>``).

Labels and references are judged per root, as LaTeX would judge each build; a finding that
holds in only some of the roots that read a file says which.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from colosseum.checks.separate_documents import separate_document_findings
from colosseum.core.structure import Diagnostic, Location, Position, Range, RelatedInfo

if TYPE_CHECKING:
    from colosseum.index import ProjectIndex

PREFIX = "colosseum/"
MAX_PLACES = 5  # other places named in a duplicate-label message


def code(name: str) -> str:
    return PREFIX + name


def _range_at(index: "ProjectIndex", path: Path, start: int, end: int) -> Range:
    ft = index.text_of(path)
    if ft is None:
        return Range(Position(0, 0), Position(0, 0))
    return ft.lines.range(start, end)


class NearMisses:
    """Finds the labels within one edit of a name without comparing against every label:
    each label is filed under itself and under each of its one-deletion variants (lowercased),
    and two strings within one edit share such a variant."""

    def __init__(self, labels=()):
        self.index: dict[str, set[str]] = {}
        self.labels: set[str] = set()
        for label in labels:
            self.add(label)

    @staticmethod
    def _keys(label: str) -> set[str]:
        low = label.lower()
        return {low} | {low[:i] + low[i + 1:] for i in range(len(low))}

    def add(self, label: str) -> None:
        self.labels.add(label)
        for key in self._keys(label):
            self.index.setdefault(key, set()).add(label)

    def remove(self, label: str) -> None:
        self.labels.discard(label)
        for key in self._keys(label):
            bucket = self.index.get(key)
            if bucket is not None:
                bucket.discard(label)

    def update_to(self, labels) -> "NearMisses":
        """Follow a new set of labels; an edit adds or removes a few, so this costs little."""
        current = labels.keys() if isinstance(labels, dict) else set(labels)
        for gone in self.labels - current:
            self.remove(gone)
        for new in current - self.labels:
            self.add(new)
        return self

    def lookup(self, name: str) -> list[str]:
        low = name.lower()
        found: set[str] = set()
        for key in {low} | {low[:i] + low[i + 1:] for i in range(len(low))}:
            found.update(self.index.get(key, ()))
        found.discard(name)
        return sorted(c for c in found if c.lower() == low or _one_edit(name, c))[:5]


def within_one_edit(a: str, b: str) -> bool:
    """Whether ``b`` could be a near miss for ``a`` (what similar_labels and NearMisses find)."""
    return a != b and abs(len(a) - len(b)) <= 1 and (a.lower() == b.lower() or _one_edit(a, b))


def similar_labels(name: str, candidates) -> list[str]:
    """Labels that differ from ``name`` only in case or by one edit (insert, delete, swap, change):
    a direct comparison, for a few names (many names: build a ``NearMisses`` once)."""
    low, size = name.lower(), len(name)
    return sorted(c for c in candidates if c != name and abs(len(c) - size) <= 1
                  and (c.lower() == low or _one_edit(name, c)))[:5]


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1:]


def compute_diagnostics(index: "ProjectIndex") -> list[Diagnostic]:
    """Every finding of the index, computed from nothing (the index keeps them up to date by
    difference: colosseum.checks.state)."""
    from colosseum.checks.state import DiagnosticState

    return DiagnosticState().update(index, None)


# ---- the findings, one kind at a time ------------------------------------------------------------
def structural_findings(index: "ProjectIndex") -> list[tuple[Diagnostic, Path | None]]:
    """Reading the files and the configuration, includes, environments, scanner errors: few, so
    they are found again on every build. With the root that found them (None: every root)."""
    out: list[tuple[Diagnostic, Path | None]] = []
    for path in index.file_roots:
        ft = index.text_of(path)
        if ft is not None and ft.problem is not None:
            severity, name, message = ft.problem
            out.append((Diagnostic(path, Range(Position(0, 0), Position(0, 0)), severity, code(name), message), None))
    for problem in index.config.problems:
        assert index.config.path is not None
        pos = Position(problem.line, 0)
        out.append((Diagnostic(index.config.path, Range(pos, pos), problem.severity, code(problem.code), problem.message),
                    None))
    for message in index.root_problems:
        target = index.config.path or index.root_dir
        out.append((Diagnostic(target, Range(Position(0, 0), Position(0, 0)), "error", code("config-error"), message),
                    None))
    out.extend((diag, None) for diag in separate_document_findings(index))
    for problem in index.include_problems:
        out.append((Diagnostic(problem.file, _range_at(index, problem.file, problem.start, problem.end),
                               problem.severity, code(problem.code), problem.message), problem.root))
    for result in index.root_results:
        for problem in result.problems:
            where = (problem.anchor.range(problem.start, problem.end) if problem.anchor is not None
                     else _range_at(index, problem.file, problem.start, problem.end))
            severity = "hint" if problem.code == "orphan-proof" else "error"
            out.append((Diagnostic(problem.file, where, severity, code(problem.code), problem.message), result.root))
    for path, chunks in index._file_chunks.items():
        for chunk in chunks:
            for err in chunk.analysis.errors:
                if err.name == "unterminated-environment" and "not closed before" in err.value:
                    continue  # reported per root by the linker
                out.append((Diagnostic(path, chunk.anchor.range(err.start, err.end), "error",
                                       code(err.name), err.value), None))
    return out


def duplicate_findings(index: "ProjectIndex", name: str, labels: list) -> list[Diagnostic]:
    """A label defined more than once in one build: reported at every place."""
    if len(labels) < 2:
        return []
    distinct = list({id(x): x for x in labels}.values())
    if len(distinct) == 1:  # one file read twice by this build
        label = distinct[0]
        return [Diagnostic(label.location.file, label.location.range, "error", code("duplicate-label"),
                           f"label `{name}` is defined {len(labels)} times: "
                           f"{index.relative(label.location.file)} is read {len(labels)} times by this build")]
    out = []
    for i, label in enumerate(distinct):
        # name a few of the other places: a label pasted a thousand times must not make a
        # million-entry message
        others = [x for j, x in enumerate(distinct[:MAX_PLACES + 1]) if j != i][:MAX_PLACES]
        where = ", ".join(f"{index.relative(o.location.file)}:{o.location.range.start.line + 1}" for o in others)
        more = len(distinct) - 1 - len(others)
        if more > 0:
            where += f" and {more} more"
        out.append(Diagnostic(label.location.file, label.location.range, "error", code("duplicate-label"),
                              f"label `{name}` is defined {len(distinct)} times (also at {where})",
                              tuple(RelatedInfo(o.location, f"`{name}` is also defined here") for o in others)))
    return out


def comma_finding(name: str, labels: list) -> Diagnostic | None:
    if "," not in name or not labels:
        return None
    return Diagnostic(labels[0].location.file, labels[0].location.range, "warning", code("label-with-comma"),
                      f"label `{name}` contains a comma: \\cref and \\uses read it as "
                      + " and ".join(f"`{p.strip()}`" for p in name.split(",")))


def undefined_finding(index: "ProjectIndex", ref, near) -> Diagnostic:
    """A reference to a label this build does not define; ``near(name)``: the build's labels
    within one edit of a name."""
    all_labels = index.labels
    if ref.label in all_labels:
        elsewhere = all_labels[ref.label][0].location
        message = (f"undefined reference `{ref.label}` in this build: its \\label is in "
                   f"{index.relative(elsewhere.file)}, which this root does not include")
    else:
        message = f"undefined reference `{ref.label}`: no \\label{{{ref.label}}} in the project"
        found = near(ref.label)
        if found:
            message += "; did you mean " + " or ".join(f"`{n}`" for n in found) + "?"
    return Diagnostic(ref.location.file, ref.location.range, "error", code("undefined-reference"), message)


def _node_location(index: "ProjectIndex", node: str) -> Location | None:
    if node in index.claims:
        return index.claims[node].location
    if node in index.sections:
        return index.sections[node].location
    return None


def cycle_findings(index: "ProjectIndex", cycles: list[list[str]]) -> list[Diagnostic]:
    label_owner = index.label_owner
    declared = index.graph.declares_uses
    out = []
    for cycle in cycles:
        path = " -> ".join(cycle)
        # why each step is a use: the reference that makes it, e.g. an \eqref to an equation inside;
        # one that closes the circle first: a \uses where the project declares them, else the
        # claim's own label before a label inside it
        steps = []
        said = []  # the same in the message, for a linter's output that has no related places
        # (no line numbers: an edit elsewhere that moves the reference would leave them stale)
        for used, user in zip(cycle, cycle[1:]):
            item = index.claims.get(user) or index.sections.get(user)
            refs = [r for r in (item.references if item is not None else ())
                    if r.owner == user and label_owner.get(r.label) == used and r.part != "proof-title"]
            if refs:
                ref = min(refs, key=lambda r: (declared and r.command != "uses", r.label != used))
                inner = "" if ref.label == used else f" (a label inside `{used}`)"
                steps.append(RelatedInfo(ref.location, f"`{user}` uses `{used}` here: \\{ref.command}{{{ref.label}}}{inner}"))
                said.append(f"`{user}` uses `{used}` by \\{ref.command}{{{ref.label}}}{inner}")
        why = "; ".join(said) if said else "each is used by the next"
        for node in cycle[:-1]:
            loc = _node_location(index, node)
            if loc is None:
                continue
            out.append(Diagnostic(loc.file, loc.range, "error", code("dependency-cycle"),
                                  f"circular argument: {path} ({why})", tuple(steps)))
    return out


def conditional_finding(index: "ProjectIndex", node: str, path: list[str]) -> Diagnostic | None:
    if node not in index.claims:
        return None  # a section's prose citing a result is not a proof: its status says enough
    loc = _node_location(index, node)
    origin = _node_location(index, path[0])
    if loc is None:
        return None
    via = f" (via {' -> '.join(path[1:-1])})" if len(path) > 2 else ""
    what = _unsettled_kind(index, path[0])
    related = (RelatedInfo(origin, f"{what} `{path[0]}`"),) if origin else ()
    return Diagnostic(loc.file, loc.range, "warning", code("depends-on-open-obligation"),
                      f"`{node}` is conditional: its proof relies on the {what} `{path[0]}`{via}", related)


def _unsettled_kind(index: "ProjectIndex", node: str) -> str:
    """What a conditional proof rests on: an open obligation, a conjecture-like claim, or a claim
    with no proof."""
    claim = index.claims.get(node)
    if claim is None or claim.obligation or (claim.proof is not None and claim.proof.obligation):
        return "open obligation"
    if claim.role == "conjecture":
        return f"unproved {claim.kind}"
    return "unproved claim"


def claim_findings(claim, is_referenced: bool, labels) -> list[Diagnostic]:
    out = []
    if not is_referenced:
        label = labels[claim.label][0]
        out.append(Diagnostic(label.location.file, label.location.range, "hint", code("unused-label"),
                              f"{claim.kind} `{claim.label}` is never referenced"))
    if claim.lean_decls and not claim.leanok and not claim.mathlibok:
        out.append(Diagnostic(claim.location.file, claim.location.range, "hint", code("lean-without-leanok"),
                              f"{claim.kind} `{claim.id}` names Lean declaration(s) "
                              f"{', '.join(claim.lean_decls)} but is not marked \\leanok (not formalized yet)"))
    if claim.leanok and not claim.lean_decls:
        out.append(Diagnostic(claim.location.file, claim.location.range, "warning", code("leanok-without-lean"),
                              f"{claim.kind} `{claim.id}` is marked \\leanok but names no Lean declaration (\\lean{{...}})"))
    if claim.notready and claim.leanok:
        out.append(Diagnostic(claim.location.file, claim.location.range, "warning", code("leanok-but-notready"),
                              f"{claim.kind} `{claim.id}` is marked both \\notready and \\leanok"))
    return out
