"""What the linker's units add up to, kept from one build to the next and updated by difference.

A build's units (colosseum.link.linker) are compared with the last build's: the units that are new
and the units that are gone say which label names, claims and sections can have changed, and only
those are computed again (a label's definitions, its owner, the proof a claim gets, the
references that belong to a claim or section). Named proofs (``\\proves{x}``, ``[Proof of
\\cref{x}]``) are settled here on every build: they are few, and the label they name can move to
another claim without anything near the proof changing. The result says what changed
(``LinkChange``), for the dependency graph and the checks to follow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from pathlib import Path

from colosseum.link.linker import Linker, PendingProof, Unit
from colosseum.link.units import filed
from colosseum.core.structure import Claim, Label, Section

_MISSING = object()
_REFS = attrgetter("refs")


@dataclass
class LinkChange:
    """What one build changed, for the graph and the checks."""

    full: bool  # everything is new (the first build)
    added: list[Unit] = field(default_factory=list)
    removed: list[Unit] = field(default_factory=list)
    names: set[str] = field(default_factory=set)  # label names whose definitions changed
    owners: set[str] = field(default_factory=set)  # label names whose owning node changed
    root_names: dict[Path, set[str]] = field(default_factory=dict)  # per root: definitions changed
    root_added: dict[Path, list[Unit]] = field(default_factory=dict)
    root_removed: dict[Path, list[Unit]] = field(default_factory=dict)
    nodes: set[str] = field(default_factory=set)  # claims and sections whose data was set again
    retargeted: list[PendingProof] = field(default_factory=list)  # named proofs that now prove another claim
    pending_units: set[Unit] = field(default_factory=set)  # the units holding those proofs
    moved: list[Unit] = field(default_factory=list)  # units kept as they were, whose chunk an edit moved
    structural: bool = True  # what reading files, includes and environments finds may have changed


class _Positions:
    """Unit -> its place in reading order, computed only if a name or node has several units."""

    def __init__(self, units: list[Unit]):
        self.units = units
        self.table: dict[Unit, int] | None = None

    def __getitem__(self, unit: Unit) -> int:
        if self.table is None:
            self.table = {u: i for i, u in enumerate(self.units)}
        return self.table[unit]


class LinkState:
    def __init__(self):
        self.units: list[Unit] = []
        self.unit_set: set[Unit] = set()
        # label name -> units defining it; each value a 1-tuple or, from two units on, a set
        self.by_name: dict[str, Unit | set[Unit]] = {}  # read with filed
        self.by_node: dict[str, Unit | set[Unit]] = {}  # node id -> units feeding its data
        self.by_ref: dict[str, Unit | set[Unit]] = {}  # label name -> units referring to it
        self.labels: dict[str, list[Label]] = {}
        self.label_owner: dict[str, str | None] = {}
        self.references: list = []
        self.named_by_target: dict[str, list[PendingProof]] = {}
        self.root_units: dict[Path, list[Unit]] = {}
        self.root_labels: dict[Path, dict[str, list[Label]]] = {}
        self.shared = False
        self.labels_before: dict | None = None
        self._shared = 0  # units holding objects of another reading
        self._named: set[Unit] = set()  # units holding named proofs

    def freeze(self, claims: dict[str, Claim]) -> None:
        """An index built for one report is never updated: a table's units from two on are a
        tuple, not a set (a set of a few units costs four times as much; filed reads either), the
        units keep only what the graph and the checks read (Unit.release_for_report), and claims
        with no Lean names or inner labels (most) share the empty tuple."""
        for claim in claims.values():
            if not claim.inner_labels:
                claim.inner_labels = ()
            if not claim.lean_decls:
                claim.lean_decls = ()
        self.by_name = {}  # read only to update the label table
        for table in (self.by_node, self.by_ref):
            for key, found in table.items():
                if type(found) is set:
                    table[key] = tuple(found)
        for unit in self.units:
            unit.release_for_report()

    # ---- the update ---------------------------------------------------------------------------
    def update(self, linker: Linker, claims: dict[str, Claim], sections: dict[str, Section],
               rank: dict[Path, int], moved_chunks=frozenset()) -> LinkChange:
        units = linker.units
        change = self._difference(units, moved_chunks)
        pos = _Positions(units)
        self.labels = self._all_definitions(change.names, pos)
        owners_touched = self._settle_named_proofs(change, claims)
        self._settle_owners(change, owners_touched)
        # claims and sections fed by what changed
        for node in change.nodes:
            claim = claims.get(node)
            if claim is not None:
                self._settle_claim(claim, pos, rank)
                continue
            section = sections.get(node)
            if section is not None:
                self._settle_section(section, pos)
        every = chain.from_iterable(map(_REFS, units))
        self.references = list(dict.fromkeys(every)) if self.shared else list(every)
        self._roots(linker, change)
        return change

    def _difference(self, units: list[Unit], moved_chunks) -> LinkChange:
        """The units that came and went (filed in and out), the label names and nodes they touch,
        and the units kept whose chunk moved."""
        new_set = set(units)
        full = not self.units
        change = LinkChange(full)
        change.added = [u for u in units if u not in self.unit_set]
        change.removed = [u for u in self.units if u not in new_set]
        if moved_chunks and not full:
            change.moved = [u for u in units if u.chunk in moved_chunks and u in self.unit_set]
        for unit in change.removed:
            self._index(unit, -1)
        for unit in change.added:
            self._index(unit, +1)
        names = change.names
        nodes = change.nodes
        for unit in change.added + change.removed:
            names.update(unit.labels_by_name)
            nodes.update(unit.nodes)
        self.units, self.unit_set = units, new_set
        self.shared = self._shared > 0
        return change

    def _all_definitions(self, names: set[str], pos: _Positions) -> dict[str, list[Label]]:
        """Every definition of each label, in reading order, with those of ``names`` found again."""
        self.labels_before = self.labels
        labels = dict(self.labels)
        for name in names:
            found = self._definitions(name, pos)
            if found:
                labels[name] = found
            else:
                labels.pop(name, None)
        return labels

    def _settle_named_proofs(self, change: LinkChange, claims: dict[str, Claim]) -> set[str]:
        """Named proofs, settled against the labels; returns the label names whose owner may
        have changed (the changed names, and the labels inside proofs that now prove another claim)."""
        labels, nodes = self.labels, change.nodes
        owners_touched = set(change.names)
        added = set(change.added)
        named_by_target: dict[str, list[PendingProof]] = {}
        for unit in self._named:
            for pending in unit.named:
                target = self._target(pending, labels, claims)
                if target != pending.target:
                    change.retargeted.append(pending)
                    change.pending_units.add(unit)
                    for node in (pending.target, target):
                        if node is not None:
                            nodes.add(node)
                    pending.target = target
                    for ref in pending.every_ref():
                        ref.owner = target
                    for label in pending.every_label():
                        label.owner = target
                        owners_touched.add(label.name)
                elif target is not None and unit in added:
                    nodes.add(target)
                if target is not None:
                    found = named_by_target.setdefault(target, [])
                    if not any(pending is p for p in found):
                        found.append(pending)
        for unit in change.removed:
            for pending in unit.named:
                if pending.target is not None:
                    nodes.add(pending.target)
            for pending in unit.pendings:
                if pending.extra and pending.extra.pop(unit, None) is not None:  # a reading of a shared proof is gone
                    target = pending.target if pending.named is not None else pending.fallback
                    if target is not None:
                        nodes.add(target)
        old_named = self.named_by_target
        for target in old_named.keys() | named_by_target.keys():
            if old_named.get(target) != named_by_target.get(target):
                nodes.add(target)
        self.named_by_target = named_by_target
        return owners_touched

    def _settle_owners(self, change: LinkChange, owners_touched: set[str]) -> None:
        """The node that owns each label (its first definition's), for the names touched."""
        labels = self.labels
        owner = dict(self.label_owner)
        for name in owners_touched:
            found = labels.get(name)
            new = found[0].owner if found else _MISSING
            old = owner.get(name, _MISSING)
            if new is _MISSING:
                owner.pop(name, None)
            else:
                owner[name] = new
            if new != old:
                change.owners.add(name)
        self.label_owner = owner

    def _index(self, unit: Unit, sign: int) -> None:
        if unit.named:
            (self._named.add if sign > 0 else self._named.discard)(unit)
        if unit.shared:
            self._shared += sign
        for table, keys in ((self.by_name, unit.labels_by_name), (self.by_node, unit.nodes),
                            (self.by_ref, unit.refs_by_label)):
            for key in keys:
                found = table.get(key)
                if sign > 0:
                    if found is None:
                        table[key] = unit  # most keys have one unit: the unit itself, no container
                    elif type(found) is set:
                        found.add(unit)
                    elif found is not unit:
                        table[key] = {found, unit}
                elif found is not None:
                    if type(found) is set:
                        found.discard(unit)
                        if not found:
                            del table[key]
                    elif found is unit:
                        del table[key]

    def _definitions(self, name: str, pos: _Positions) -> list[Label]:
        units = filed(self.by_name, name)
        if not units:
            return []
        if len(units) == 1:
            (unit,) = units
            return list(filed(unit.labels_by_name, name))
        out: list[Label] = []
        for unit in sorted(units, key=pos.__getitem__):
            for label in filed(unit.labels_by_name, name):
                if not any(label is x for x in out):
                    out.append(label)
        return out

    @staticmethod
    def _target(pending: PendingProof, labels: dict[str, list[Label]], claims: dict[str, Claim]) -> str | None:
        """The claim a named proof proves: the owner of the label it names (its first definition,
        unless that is inside a proof), else the claim it follows."""
        found = labels.get(pending.named)
        if found:
            first = found[0]
            if not first.in_proof and first.owner in claims:
                return first.owner
        return pending.fallback

    def _settle_claim(self, claim: Claim, pos: _Positions, rank: dict[Path, int]) -> None:
        cid = claim.id
        units = filed(self.by_node, cid)
        if len(units) > 1:
            units = sorted(units, key=pos.__getitem__)
        base = None
        own: list = []
        pendings: list[PendingProof] = []
        for unit in units:
            if base is None and unit.claim_map.get(cid) is claim:
                base = unit.claim_bases[cid]
            own.extend(filed(unit.refs_by_owner, cid))
            pendings.extend(filed(unit.by_target, cid))
        pendings.extend(self.named_by_target.get(cid, ()))
        if len(units) > 1:
            own = list(dict.fromkeys(own))
        if len(pendings) > 1:
            pendings = sorted(dict.fromkeys(pendings), key=lambda p: p.order)
        obligation, inner = base if base is not None else (claim.obligation, tuple(claim.inner_labels))
        inner = list(inner)
        proof = None
        for pending in pendings:  # of several proofs, the first complete one (a sketch owes one)
            if proof is None or _better_proof(pending.proof, proof):
                proof = pending.proof
            inner.extend(label.name for label in pending.every_label())
        if proof is not None and proof.obligation:
            obligation = True  # every proof it has is a sketch
        refs = own + [ref for pending in pendings for ref in pending.every_ref()] if pendings else own
        alternatives = () if len(pendings) < 2 else tuple(
            frozenset(ref.label for ref in pending.every_ref() if ref.part == "proof")
            for pending in pendings if pending.proof.has_content and not pending.proof.obligation)
        # assigned at once: a reader of the last snapshot may share this claim
        claim.proof, claim.obligation, claim.inner_labels, claim.references = proof, obligation, inner, refs
        claim.proof_alternatives = alternatives

    def _settle_section(self, section: Section, pos: _Positions) -> None:
        sid = section.id
        units = filed(self.by_node, sid)
        if len(units) > 1:
            units = sorted(units, key=pos.__getitem__)
        base = None
        marked = False
        refs: list = []
        for unit in units:
            if base is None and unit.section_map.get(sid) is section:
                base = unit.section_bases[sid]
            if not marked and sid in unit.marked_sections:
                marked = True
            refs.extend(filed(unit.refs_by_owner, sid))
        if len(units) > 1:
            refs = list(dict.fromkeys(refs))
        obligation = bool(base) or marked
        if section.obligation != obligation:
            section.obligation = obligation
        section.references = refs

    # ---- per root -----------------------------------------------------------------------------
    def _roots(self, linker: Linker, change: LinkChange) -> None:
        new_units: dict[Path, list[Unit]] = {}
        new_labels: dict[Path, dict[str, list[Label]]] = {}
        for result, units in zip(linker.roots, linker.root_units):
            root = result.root
            old_units = self.root_units.get(root)
            old_labels = self.root_labels.get(root)
            if old_units is not None and old_labels is not None and old_units == units:
                result.keep_labels(old_labels)  # the same units in the same order: nothing changed here
                change.root_names[root], change.root_added[root], change.root_removed[root] = set(), [], []
                new_units[root], new_labels[root] = units, old_labels
                continue
            if len(linker.roots) == 1 and not self.shared and len(units) == len(self.units) and (
                    old_units is None or change.full or old_labels is self.labels_before):
                # the only root, reading every unit once: its definitions are the project's
                result.keep_labels(self.labels)
                if old_units is None or change.full:
                    change.root_names[root], change.root_added[root] = set(self.labels), list(units)
                    change.root_removed[root] = []
                else:
                    change.root_names[root], change.root_added[root] = change.names, change.added
                    change.root_removed[root] = change.removed
                new_units[root], new_labels[root] = units, self.labels
                continue
            occurrences: dict[Unit, list[int]] = {}
            for i, unit in enumerate(units):
                found = occurrences.get(unit)
                if found is None:
                    occurrences[unit] = [i]
                else:
                    found.append(i)
            if old_units is None or old_labels is None:
                table = dict(result.labels)  # built from the label list, in reading order
                change.root_names[root] = set(table)
                change.root_added[root] = list(occurrences)
                change.root_removed[root] = []
            else:
                old_set = set(old_units)
                added = [u for u in occurrences if u not in old_set]
                removed = list(dict.fromkeys(u for u in old_units if u not in occurrences))
                kept_old = [u for u in old_units if u in occurrences]
                kept_new = [u for u in units if u in old_set]
                names: set[str] = set()
                if kept_old != kept_new:  # the order of what stayed changed: every name
                    names.update(name for u in units for name in u.labels_by_name)
                    names.update(old_labels)
                for unit in added + removed:
                    names.update(unit.labels_by_name)
                table = dict(old_labels)
                for name in names:
                    found = self._root_definitions(name, occurrences)
                    if found:
                        table[name] = found
                    else:
                        table.pop(name, None)
                change.root_names[root] = names
                change.root_added[root] = added
                change.root_removed[root] = removed
            result.keep_labels(table)
            new_units[root] = units
            new_labels[root] = table
        self.root_units, self.root_labels = new_units, new_labels

    def _root_definitions(self, name: str, occurrences: dict[Unit, list[int]]) -> list[Label]:
        units = filed(self.by_name, name)
        if not units:
            return []
        readings = sorted((i, unit) for unit in units for i in occurrences.get(unit, ()))
        return [label for _i, unit in readings for label in filed(unit.labels_by_name, name)]


def _better_proof(candidate, chosen) -> bool:
    """Whether a claim's later proof settles it where the one chosen so far does not: it has
    content where that one has none, or it is complete where that one owes a proof (a sketch)."""
    if candidate.has_content != chosen.has_content:
        return candidate.has_content
    return chosen.obligation and not candidate.obligation
