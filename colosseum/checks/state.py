"""The index's findings, kept from one build to the next and found again only where the build
changed something they rest on.

A finding is about something: a reference (undefined in some root), a label name (defined twice
in a root, or with a comma), a claim (never referenced, Lean markers), a node of the graph (on a
circle, conditional on an open obligation). Each is kept under that key and found again only
when its inputs changed: a reference's finding when its unit is new or the root's labels of that
name changed, a claim's when the claim or whether its label is referenced changed, and so on
(colosseum.link.state.LinkChange says what changed). The few findings about reading files,
includes and environments are found again on every build. A file's sorted list is put together
again only when one of its findings changed: the list of an untouched file stays the same
object, which is what lets the language server send only what changed.
"""

from __future__ import annotations

from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from colosseum.checks.findings import (
    NearMisses,
    similar_labels,
    within_one_edit,
    claim_findings,
    comma_finding,
    conditional_finding,
    cycle_findings,
    duplicate_findings,
    structural_findings,
    undefined_finding,
)
from colosseum.core.structure import Diagnostic

if TYPE_CHECKING:
    from colosseum.index import ProjectIndex
    from colosseum.link.state import LinkChange

Entry = tuple[Diagnostic, "Path | None"]  # a finding and the root that made it (None: not per root)


class _Findings:
    """Findings by what they are about, and the keys of each file's findings."""

    def __init__(self):
        self.items: dict[tuple, list[Entry]] = {}
        self.by_file: dict[Path, set[tuple]] = {}
        self.dirty: set[Path] = set()

    def set(self, key: tuple, entries: list[Entry]) -> None:
        old = self.items.get(key)
        if old == entries or (old is None and not entries):
            return
        if old:
            for diag, _root in old:
                self.dirty.add(diag.file)
                keys = self.by_file.get(diag.file)
                if keys is not None:
                    keys.discard(key)
        if entries:
            self.items[key] = entries
            for diag, _root in entries:
                self.dirty.add(diag.file)
                self.by_file.setdefault(diag.file, set()).add(key)
        else:
            self.items.pop(key, None)

    def of_file(self, path: Path) -> list[Entry]:
        return [entry for key in self.by_file.get(path, ()) for entry in self.items[key] if entry[0].file == path]


class DiagnosticState:
    def __init__(self):
        self.findings = _Findings()
        self.by_file: dict[Path, list[Diagnostic]] = {}
        self.defined: dict[Path, set[str]] = {}  # per root: the label names it defines
        self.undefined: dict[Path, set] = {}  # per root: its undefined references
        self.near: dict[Path, NearMisses] = {}
        self.referenced: dict[str, int] = {}  # label -> how many references make it used
        self.claims: dict[str, object] = {}  # claim id -> the claim whose findings are kept
        self.cycles: list | None = None
        self.conditional: dict = {}
        self.origins: set[str] = set()
        self.file_roots: dict[Path, list[Path]] = {}
        self.structural_files: set[Path] = set()
        self.last_dirty = 0  # files whose findings changed in the last update

    def update(self, index: "ProjectIndex", change: "LinkChange | None") -> list[Diagnostic]:
        """Bring the findings up to date with the index's current build; returns all of them,
        sorted (``self.by_file`` holds them per file)."""
        full = change is None or change.full
        if full:
            self.__init__()
        findings = self.findings
        state = index._link_state
        # units kept as they were whose chunk moved: what is found about them is found again,
        # at its new place
        self.moved = [] if full else change.moved
        self.moved_nodes = {node for unit in self.moved for node in chain(unit.claim_map, unit.section_map)}
        if full or change.structural:
            self._structural(index)
        self._labels(index, change, state, full)
        self._graph(index, change, full)
        self._claims(index, change, state, full)
        if index.file_roots != self.file_roots:  # which roots read a file: part of each message
            findings.dirty.update(index.file_roots.keys() | self.file_roots.keys())
            self.file_roots = {f: list(r) for f, r in index.file_roots.items()}
        multi_root = len(index.roots) > 1
        self.last_dirty = len(findings.dirty)
        for path in findings.dirty:
            found = _assemble(index, findings.of_file(path), multi_root)
            if found:
                self.by_file[path] = found
            else:
                self.by_file.pop(path, None)
        findings.dirty = set()
        self.by_file = dict(sorted(self.by_file.items(), key=lambda item: str(item[0])))
        return list(chain.from_iterable(self.by_file.values()))

    # ---- few: found again every time
    def _structural(self, index: "ProjectIndex") -> None:
        per_file: dict[Path, list[Entry]] = {}
        for diag, root in structural_findings(index):
            per_file.setdefault(diag.file, []).append((diag, root))
        findings = self.findings
        for path in self.structural_files - per_file.keys():
            findings.set(("file", path), [])
        for path, entries in per_file.items():
            findings.set(("file", path), entries)
        self.structural_files = set(per_file)

    # ---- labels and references, per root
    def _labels(self, index: "ProjectIndex", change, state, full: bool) -> None:
        findings = self.findings
        units_of_root = {result.root: units for result, units in zip(index.root_results, _root_units(state, index))}
        for result in index.root_results:
            root = result.root
            defined = result.labels
            known = self.defined.setdefault(root, set())
            undefined = self.undefined.setdefault(root, set())
            if not full and root in change.root_names:
                names, added, removed = change.root_names[root], change.root_added[root], change.root_removed[root]
            if full or root not in change.root_names or any(u.shared for u in chain(added, removed)):
                # from nothing (a reference object may sit in two units: a file read twice)
                for ref in undefined:
                    findings.set(("undefined", root, ref), [])
                undefined.clear()
                names, added, removed = set(defined) | known, units_of_root[root], []
            flipped = {name for name in names if (name in defined) != (name in known)}
            for name in flipped:
                if name in defined:
                    known.add(name)
                else:
                    known.discard(name)
            near = self.near.get(root)
            if near is not None:
                for name in flipped:
                    (near.add if name in defined else near.remove)(name)
            # references to check again: of new units, and of names now (un)defined here
            check = []
            for unit in removed:
                for ref in unit.refs:
                    if ref in undefined:
                        undefined.discard(ref)
                        findings.set(("undefined", root, ref), [])
            for unit in added:
                check.extend(unit.refs)
            in_root = set(units_of_root[root]) if flipped or self.moved else ()
            placed = set()  # names of labels that only moved: what is found about them, placed again
            for unit in self.moved:
                if unit in in_root:
                    if undefined:
                        check.extend(ref for ref in unit.refs if ref in undefined)
                    placed.update(name for name in unit.labels_by_name
                                  if len(defined.get(name, ())) > 1 or "," in name)
            if flipped:
                for name in flipped:
                    for unit in state.by_ref.get(name, ()):
                        if unit in in_root:
                            check.extend(unit.refs_by_label.get(name, ()))
            # the message names near labels, or where else the label is: found again when a
            # label within one edit of it came or went, or its own definitions changed
            if flipped and undefined:
                check.extend(ref for ref in undefined if any(within_one_edit(ref.label, n) for n in flipped))
            if not full and change.names:
                check.extend(ref for ref in undefined if ref.label in change.names)
            check = [ref for ref in dict.fromkeys(check)]
            many = len(check) * len(defined) >= 200_000
            if many and near is None:  # many names to look up: a deletion index, kept from now on
                near = self.near[root] = NearMisses(defined)
            lookup = near.lookup if near is not None else (lambda name: similar_labels(name, defined))
            for ref in check:
                if ref.label in defined:
                    if ref in undefined:
                        undefined.discard(ref)
                        findings.set(("undefined", root, ref), [])
                    continue
                undefined.add(ref)
                findings.set(("undefined", root, ref), [(undefined_finding(index, ref, lookup), root)])
            for name in names | placed if placed else names:
                labels = defined.get(name, ())
                findings.set(("duplicate", root, name), [(d, root) for d in duplicate_findings(index, name, labels)])
                if "," in name:
                    found = comma_finding(name, labels)
                    findings.set(("comma", root, name), [(found, root)] if found is not None else [])
        for root in [r for r in self.defined if r not in units_of_root]:  # a root that is gone
            for ref in self.undefined.pop(root, ()):
                findings.set(("undefined", root, ref), [])
            for name in self.defined.pop(root):
                findings.set(("duplicate", root, name), [])
                findings.set(("comma", root, name), [])
            self.near.pop(root, None)

    # ---- the graph
    def _graph(self, index: "ProjectIndex", change, full: bool) -> None:
        findings, graph = self.findings, index.graph
        dirty = set() if full else change.nodes | self.moved_nodes
        cycles = graph.cycles()
        if cycles is not self.cycles or any(node in dirty for cycle in cycles for node in cycle):
            found = cycle_findings(index, cycles)
            findings.set(("cycles",), [(d, None) for d in found])
            self.cycles = cycles
        conditional = graph.conditional_on
        if conditional is not self.conditional:
            todo = conditional.keys() | self.conditional.keys()
        elif dirty & self.origins:
            todo = set(conditional)  # an obligation moved: every message that names it
        else:
            todo = dirty & conditional.keys()
        for node in todo:
            path = conditional.get(node)
            found = conditional_finding(index, node, path) if path is not None else None
            findings.set(("conditional", node), [(found, None)] if found is not None else [])
        if conditional is not self.conditional:
            self.conditional = conditional
            self.origins = {path[0] for path in conditional.values()}

    # ---- claims
    def _claims(self, index: "ProjectIndex", change, state, full: bool) -> None:
        findings, claims, labels = self.findings, index.claims, index.labels
        referenced = self.referenced
        flipped = set()
        units = (state.units, []) if full else (change.added, change.removed)
        for sign, group in ((+1, units[0]), (-1, units[1])):
            for unit in group:
                for ref in unit.refs:
                    if ref.part != "proof-title" or ref.command == "proves":
                        name = ref.label
                        count = referenced.get(name, 0) + sign
                        if count > 0:
                            referenced[name] = count
                        else:
                            referenced.pop(name, None)
                        # any change, not only a flip: a label inside a claim is used only from elsewhere
                        flipped.add(name)
        if full:
            todo = set(claims)
        else:  # a claim that only moved has new findings only if it had some (at the old place)
            todo = change.nodes | {cid for cid in self.moved_nodes if ("claim", cid) in findings.items}
        for name in flipped | (set() if full else change.names):
            for label in labels.get(name, ()):
                if label.owner in claims:
                    todo.add(label.owner)
        for cid in todo:
            claim = claims.get(cid)
            kept = self.claims.get(cid)
            if claim is None or claim.kind == "leannode":
                if kept is not None:
                    del self.claims[cid]
                    findings.set(("claim", cid), [])
                continue
            self.claims[cid] = claim
            is_referenced = not claim.label or claim.label in referenced \
                or any(name in referenced and _used_elsewhere(state, name, cid) for name in claim.inner_labels)
            findings.set(("claim", cid), [(d, None) for d in claim_findings(claim, is_referenced, labels)])


def _used_elsewhere(state, name: str, cid: str) -> bool:
    """Whether a label inside claim ``cid`` (a second label, an equation, an item) is referenced
    from outside the claim and its proof: an item of an exercise that names its sibling is no use."""
    return any(ref.owner != cid and (ref.part != "proof-title" or ref.command == "proves")
               for unit in state.by_ref.get(name, ()) for ref in unit.refs_by_label.get(name, ()))


def _root_units(state, index: "ProjectIndex") -> list[list]:
    return [state.root_units.get(result.root, []) for result in index.root_results]


def _assemble(index: "ProjectIndex", entries: list[Entry], multi_root: bool) -> list[Diagnostic]:
    """One file's findings: each once, with the roots that found it when only some of the roots
    reading the file did, sorted."""
    found: dict[tuple, tuple[Diagnostic, set[Path]]] = {}
    for diag, root in entries:
        key = (diag.range, diag.code, diag.message)
        entry = found.get(key)
        if entry is None:
            found[key] = (diag, {root} if root else set())
        elif root:
            entry[1].add(root)
    out = []
    for diag, roots in found.values():
        if multi_root and roots:
            reading = index.file_roots.get(diag.file, [])
            if len(reading) > 1 and len(roots) < len(reading):
                names = ", ".join(sorted(index.relative(r) for r in roots))
                diag = Diagnostic(diag.file, diag.range, diag.severity, diag.code,
                                  f"{diag.message} (when built from {names})", diag.related)
        out.append(diag)
    out.sort(key=lambda d: (d.range.start.line, d.range.start.character, d.code, d.message))
    return out
