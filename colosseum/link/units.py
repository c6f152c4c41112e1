"""What the linker (colosseum.link.linker) makes from the visits of a walk (colosseum.project.walk): the units of a
build (what one chunk contributed in one state), the proofs waiting for their claim, and the
results per root."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from types import MappingProxyType

from colosseum.core.source_text import Anchor
from colosseum.project.chunks import Chunk
from colosseum.project.analysis import FileAnalysis
from colosseum.project.walk import Visit  # noqa: F401 (the linker's vocabulary: what it reads)
from colosseum.core.structure import ORDER_SHIFT, Claim, Label, Proof, Reference, Section


_NO_ENTRIES = MappingProxyType({})


@dataclass(slots=True)
class EnvProblem:
    file: Path
    start: int  # relative to the anchor when there is one (where the chunk is now)
    end: int
    code: str
    message: str
    anchor: Anchor | None = None  # where the chunk is now (None: offsets are the file's)


@dataclass
class RootResult:
    root: Path
    files: list[Path] = field(default_factory=list)
    problems: list[EnvProblem] = field(default_factory=list)
    _labels: dict[str, list[Label]] | None = None
    _units: list[Unit] = field(default_factory=list, repr=False)  # the units read, in reading order
    _label_list: list[Label] | None = field(default=None, repr=False)
    _references: list[Reference] | None = field(default=None, repr=False)

    def read(self, units: list[Unit]) -> None:
        """The units the root read, in reading order (its labels and references come from them)."""
        self._units = units

    def keep_labels(self, table: dict[str, list[Label]]) -> None:
        """Its label table, when colosseum.link.state has it already (kept or updated by difference)."""
        self._labels = table

    @property
    def label_list(self) -> list[Label]:
        """Every definition, in reading order (a file read twice: twice)."""
        if self._label_list is None:
            self._label_list = list(chain.from_iterable(unit.labels for unit in self._units))
        return self._label_list

    @property
    def references(self) -> list[Reference]:
        if self._references is None:
            self._references = list(chain.from_iterable(unit.refs for unit in self._units))
        return self._references

    @property
    def labels(self) -> dict[str, list[Label]]:
        """Label name -> its definitions in this build."""
        if self._labels is None:
            table: dict[str, list[Label]] = {}
            for label in self.label_list:
                found = table.get(label.name)
                if found is None:
                    table[label.name] = [label]
                else:
                    found.append(label)
            self._labels = table
        return self._labels


@dataclass(slots=True)
class _State:
    section: str | None = None
    section_stack: list[tuple[int, str]] = field(default_factory=list)
    last_claim: str | None = None  # the last claim closed: what a proof with no claim before it proves
    envs: list[tuple[str, Path, int, int]] = field(default_factory=list)  # dangling begins
    ended: bool = False  # \end{document} was read: LaTeX stops there

    def signature(self) -> tuple:
        return (self.section, tuple(self.section_stack), self.last_claim, tuple(self.envs), self.ended)

    def copy(self) -> "_State":
        """A state to read on from (its stacks are lists)."""
        return _State(self.section, list(self.section_stack), self.last_claim, list(self.envs), self.ended)

    def frozen(self) -> "_State":
        """A snapshot, kept and only ever copied (its stacks are tuples: an empty one is shared,
        and a unit keeps one at its exit)."""
        return _State(self.section, tuple(self.section_stack), self.last_claim, tuple(self.envs), self.ended)


@dataclass(slots=True, eq=False)
class PendingProof:
    """A proof, attached to its claim once every label is known (a named proof may come first)."""

    proof: Proof
    named: str | None
    fallback: str | None  # the claim it follows (what it proves when the name is unknown)
    refs: list[Reference]
    labels: list[Label]
    rank: int
    target: str | None = None  # the claim it proves, as last settled
    # what other readings of the same proof found beyond these (another root's macros); most
    # proofs have none and share one empty mapping, replaced by a dict at the first (add_extra)
    extra: Mapping = field(default_factory=lambda: _NO_ENTRIES)  # Unit -> (references, labels)
    # the claims stated inside it (a claim proved within a theorem's proof): the claim it proves
    # rests on them (colosseum.graph.update makes the edges); most have none: () until the first
    nested: Sequence[str] = ()

    @property
    def order(self) -> int:
        return (self.rank << ORDER_SHIFT) | self.proof.spans[0]

    def every_ref(self) -> Sequence[Reference]:
        if not self.extra:
            return self.refs
        return [*self.refs, *(r for refs, _labels in self.extra.values() for r in refs)]

    def every_label(self) -> Sequence[Label]:
        if not self.extra:
            return self.labels
        return [*self.labels, *(lab for _refs, labels in self.extra.values() for lab in labels)]

    def add_extra(self, unit, more: tuple) -> None:
        if not self.extra:
            self.extra = {}
        self.extra[unit] = more

    def add_nested(self, claim_id: str) -> None:
        if claim_id in self.nested:
            return
        if type(self.nested) is tuple:  # the shared empty one
            self.nested = [claim_id]
        else:
            self.nested.append(claim_id)


@dataclass(slots=True, eq=False)
class Unit:
    """What one chunk contributed, read in one state."""

    path: Path
    chunk: Chunk
    analysis: FileAnalysis
    entry: tuple  # the state signature it was read in
    key: tuple = ()  # its key in the linker's memo
    # node ids made of a line number (or an offset) hold only while the chunk stays there
    pinned_line: int | None = None
    pinned_offset: int | None = None
    claims: list[tuple[Claim, str]] = field(default_factory=list)  # with the id each wanted
    claim_map: dict[str, Claim] = field(default_factory=dict)
    claim_bases: dict[str, tuple[bool, tuple[str, ...]]] = field(default_factory=dict)
    sections: list[Section] = field(default_factory=list)
    section_map: dict[str, Section] = field(default_factory=dict)
    section_bases: dict[str, bool] = field(default_factory=dict)
    labels: list[Label] = field(default_factory=list)
    refs: list[Reference] = field(default_factory=list)
    pendings: list[PendingProof] = field(default_factory=list)
    problems: list[EnvProblem] = field(default_factory=list)
    marked_sections: list[str] = field(default_factory=list)
    exit: _State | None = None
    shared: bool = False  # holds objects another reading of the same place made
    borrowed: list["Unit"] = field(default_factory=list)  # the readings that made them
    fallbacks: tuple[str, ...] = ()  # ids claims wanted but could not have (taken before)
    # the same, by key, for link_state, the graph and the checks
    # (each value the item itself, or a list from two items on: read them with ``filed``)
    labels_by_name: dict[str, Sequence[Label]] = field(default_factory=dict)
    refs_by_owner: dict[str | None, Sequence[Reference]] = field(default_factory=dict)  # not proofs'
    refs_by_label: dict[str, Sequence[Reference]] = field(default_factory=dict)  # proofs' too
    by_target: dict[str, PendingProof | list[PendingProof]] = field(default_factory=dict)  # unnamed proofs (filed)
    named: list[PendingProof] = field(default_factory=list)
    nodes: set[str] = field(default_factory=set)  # ids whose derived data this unit feeds
    edge_counts: dict | None = None  # its share of the dependency graph (colosseum.graph.dag)
    claim_ids: dict[int, str] = field(default_factory=dict)  # claim index in the chunk -> id
    section_ids: dict[int, str] = field(default_factory=dict)
    child: int | None = None  # the include it ends with, to be read next
    child_is_subfile: bool = False
    hits: list | None = None  # its labels and references by position in the chunk (the server's hit tests)

    def seal(self) -> None:
        pending_refs = set()
        for pending in self.pendings:
            pending_refs.update(map(id, pending.refs))
            more = pending.extra.get(self)
            if more:
                pending_refs.update(map(id, more[0]))
            if pending.named is None:
                if pending.fallback is not None:
                    _file(self.by_target, pending.fallback, pending)
            else:
                self.named.append(pending)
        # each place is read once in a unit: no object comes twice
        for label in self.labels:
            _file(self.labels_by_name, label.name, label)
        for ref in self.refs:
            _file(self.refs_by_label, ref.label, ref)
            if pending_refs and id(ref) in pending_refs:
                continue
            _file(self.refs_by_owner, ref.owner, ref)
        nodes = self.nodes
        nodes.update(self.claim_map)
        nodes.update(self.section_map)
        nodes.update(owner for owner in self.refs_by_owner if owner is not None)
        nodes.update(self.by_target)
        nodes.update(self.marked_sections)
        # sealed: nothing is added to these any more. Most units leave most of them empty, and
        # twenty empty containers cost a unit more than its own slots: empties share one
        # immutable value (an addition after this point would fail loudly)
        for name in _SEALED_LISTS:
            if not getattr(self, name):
                setattr(self, name, ())
        for name in _SEALED_MAPS:
            if not getattr(self, name):
                setattr(self, name, _NO_ENTRIES)
        if not self.nodes:
            self.nodes = _NO_NODES


    @property
    def semantic(self) -> tuple:
        """Equal for two readings that differ only in where the chunk sits (made when asked: the
        graph compares the units an edit added with those it removed). Objects taken from another
        reading carry that reading's owners: the lenders are part of it."""
        return (self.path, id(self.analysis), self.entry, tuple(self.claim_map), tuple(self.section_map),
                self.fallbacks, tuple(self.borrowed))

    def release_for_report(self) -> None:
        """An index built for one report, linked: let go of what only the next build reads (its
        memo key, the state it left, the claims' and sections' indices and bases, the nodes it
        feeds); kept is what the graph and the checks read."""
        self.key, self.entry, self.exit, self.borrowed = (), (), None, ()
        self.claims = self.sections = self.marked_sections = self.named = ()
        self.claim_ids = self.section_ids = self.claim_bases = self.section_bases = _NO_ENTRIES
        self.refs_by_owner = self.by_target = _NO_ENTRIES  # read when claims and sections are settled
        for pending in self.pendings:  # settled: the graph reads what it proves and the claims inside it
            pending.refs = pending.labels = ()
            pending.extra = _NO_ENTRIES
        self.nodes = _NO_NODES


def _file(table: dict, key, item) -> None:
    """File ``item`` under ``key``: the item itself for the first (most names have one definition
    and one reference in a unit: no container at all), a list from the second on. Read with
    ``filed``."""
    found = table.get(key)
    if found is None:
        table[key] = item
    elif type(found) is list:
        found.append(item)
    else:
        table[key] = [found, item]


_NO_INNER_BASES = {False: (False, ()), True: (True, ())}


def claim_base(obligation: bool, inner: tuple[str, ...]) -> tuple[bool, tuple[str, ...]]:
    """A claim's (obligation, inner label names) in its unit: most claims have no inner labels,
    and share one of two such tuples."""
    if inner or obligation not in _NO_INNER_BASES:
        return (obligation, inner)
    return _NO_INNER_BASES[obligation]


def filed(table, key) -> Sequence | Set:
    """What ``_file`` filed under ``key`` (or LinkState its units), as a collection: empty when
    nothing is, a 1-tuple for a lone item."""
    found = table.get(key)
    if found is None:
        return ()
    return found if type(found) in _COLLECTIONS else (found,)


_COLLECTIONS = (list, set, tuple)  # what a table holds from two items on (LinkState.freeze: a tuple)
_SEALED_LISTS = ("claims", "sections", "labels", "refs", "pendings", "problems", "marked_sections", "named")
_SEALED_MAPS = ("claim_map", "claim_bases", "section_map", "section_bases", "labels_by_name", "refs_by_owner",
                "refs_by_label", "by_target", "claim_ids", "section_ids")
_NO_NODES: frozenset[str] = frozenset()


@dataclass(slots=True, eq=False)
class _FileRecord:
    """The units of a file that includes nothing, read in one state: replayed in one step."""

    chunks: list[Chunk]
    units: list[Unit]
    claim_map: dict[str, Claim] = field(default_factory=dict)
    section_map: dict[str, Section] = field(default_factory=dict)
    fallbacks: tuple[str, ...] = ()
    exit: _State | None = None
    key: tuple = ()
    borrowed: list[Unit] = field(default_factory=list)
    shared: bool = False  # read where the file was read before in the same build


class _Places:
    """The objects already made for places of one file in this build (another root read it, or
    the same root twice): a second reading of a place reuses them, and notes whose they are."""

    def __init__(self):
        self.claims: dict[int, tuple[Claim, Unit]] = {}
        self.sections: dict[int, tuple[Section, Unit]] = {}
        self.labels: dict[tuple[int, str], tuple[Label, Unit]] = {}
        self.refs: dict[tuple[int, str, str], tuple[Reference, Unit]] = {}
        self.pendings: dict[int, tuple[PendingProof, Unit]] = {}

    def add(self, unit: Unit) -> None:
        for claim, _wanted in unit.claims:
            self.claims.setdefault(claim.spans[0], (claim, unit))
        for section in unit.sections:
            self.sections.setdefault(section.order & ((1 << ORDER_SHIFT) - 1), (section, unit))
        for label in unit.labels:
            self.labels.setdefault((label.offset, label.name), (label, unit))
        for ref in unit.refs:
            self.refs.setdefault((ref.offset, ref.label, ref.command), (ref, unit))
        for pending in unit.pendings:
            self.pendings.setdefault(pending.proof.spans[0], (pending, unit))

    @staticmethod
    def take(table: dict, key, unit: Unit):
        """The object made for this place before, noting in ``unit`` whose it is (a replay of
        ``unit`` holds only while that reading is part of the build too)."""
        found = table.get(key)
        if found is None:
            return None
        obj, lender = found
        if lender is not unit and lender not in unit.borrowed:
            unit.borrowed.append(lender)
        return obj


@dataclass(slots=True, eq=False)
class RootLink:
    """How the last build read one root: its units in reading order, where each file that
    includes nothing sits among them (units [a, b), the state before and after it), the state
    at the end, and the files read."""

    units: list[Unit]
    spans: dict[Visit, tuple[int, int, _State, _State]]
    final: _State
    files: list[Path]
    blocks: dict = field(default_factory=dict)  # Visit -> _Blocks: what comes before and after it


class _Blocks:
    """The units of a root before and after one file's, with their node ids merged: an edit of
    that file splices its units between them, and the next edit of it reuses them as they are."""

    __slots__ = ("before", "after", "a", "b", "before_claims", "before_sections", "after_claims",
                 "after_sections", "before_paths", "after_paths", "fallbacks")

    def __init__(self, units: list[Unit], a: int, b: int):
        self.before, self.after, self.a, self.b = units[:a], units[b:], a, b
        self.before_claims, self.before_sections, self.before_paths = _merged(self.before)
        self.after_claims, self.after_sections, self.after_paths = _merged(self.after)
        self.fallbacks = any(unit.fallbacks for unit in self.after)

    def moved(self, a: int, b: int) -> "_Blocks":
        """The same blocks around the file's new units [a, b)."""
        other = object.__new__(_Blocks)
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        other.a, other.b = a, b
        return other


def _merged(units: list[Unit]) -> tuple[dict, dict, set]:
    claims: dict = {}
    sections: dict = {}
    for unit in units:
        if unit.claim_map:
            claims.update(unit.claim_map)
        if unit.section_map:
            sections.update(unit.section_map)
    return claims, sections, {unit.path for unit in units}


def segments(fa: FileAnalysis) -> list[tuple[int, int]]:
    """The timeline of a chunk cut after each include: (first item, one past the last)."""
    found = fa.segments
    if found is None:
        items = timeline(fa)
        found, lo = [], 0
        for i, (_offset, kind, _index) in enumerate(items):
            if kind == "include":
                found.append((lo, i + 1))
                lo = i + 1
        found.append((lo, len(items)))
        fa.segments = found
    return found


def timeline(fa: FileAnalysis) -> list[tuple[int, str, int]]:
    if fa.timeline is not None:
        return fa.timeline
    items: list[tuple[int, str, int]] = []
    items += [(s.begin[0], "section", i) for i, s in enumerate(fa.sections)]
    items += [(c.begin[0], "claim", i) for i, c in enumerate(fa.claims)]
    items += [(p.begin[0], "proof", i) for i, p in enumerate(fa.proofs)]
    items += [(ev.start, "include", i) for i, ev in enumerate(fa.includes)]
    items += [(ev.start, "end", i) for i, ev in enumerate(fa.dangling_ends)]
    items.sort(key=lambda item: (item[0], item[1] != "section"))
    fa.timeline = items
    return items
