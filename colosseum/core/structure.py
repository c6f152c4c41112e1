"""Plain data classes shared by the whole engine (no behaviour beyond small helpers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

SEVERITIES = ("error", "warning", "information", "hint")


class Position(NamedTuple):
    """0-based line and UTF-16 code-unit column, as LSP counts them. (Named tuples: an index
    creates hundreds of thousands of these, and a tuple is several times cheaper to build.)"""

    line: int
    character: int


class Range(NamedTuple):
    start: Position
    end: Position


class Location(NamedTuple):
    file: Path
    range: Range


ORDER_SHIFT = 40  # Claim.order and Section.order: the file's rank above, the offset in it below


class _Located:
    """Where an item is, computed when first asked: an index holds tens of thousands of labels
    and references, and an edit needs the positions of only the few that are reported. Offsets
    are relative to the item's anchor (colosseum.core.source_text.Anchor): where its chunk of the file
    is now."""

    __slots__ = ()

    @property
    def location(self) -> Location:
        loc = self._location
        anchor = self._lines
        if anchor is not None and (loc is None or self._at != anchor.version):
            loc = self._location = Location(self._file, anchor.range(self._start, self._start + self._length))
            self._at = anchor.version
        return loc

    @location.setter
    def location(self, value: Location) -> None:
        self._location = value
        self._lines = None

    @property
    def file(self) -> Path:
        return self._file if self._file is not None else self.location.file

    @property
    def offset(self) -> int:
        """Where it starts in its file's current text."""
        return self._start + (self._lines.offset if self._lines is not None else 0)

    @property
    def _end(self) -> int:
        """Where it ends, relative to its anchor. Kept as a length: a name's length is a small
        integer Python shares, where an offset is one more object per item."""
        return self._start + self._length


class Label(_Located):
    __slots__ = ("name", "owner", "command", "_location", "_file", "_lines", "_start", "_length", "_at", "in_proof")

    def __init__(self, name: str, location: Location | None, owner: str | None = None, command: str = "label",
                 file: Path | None = None, lines=None, start: int = 0, end: int = 0, in_proof: bool = False):
        self.name, self.owner, self.command = name, owner, command
        self._location, self._file, self._lines, self._start, self._length = location, file, lines, start, end - start
        self._at = -1
        self.in_proof = in_proof  # defined inside a proof: it belongs to the claim the proof proves

    def __repr__(self) -> str:
        return f"Label(name={self.name!r}, owner={self.owner!r}, command={self.command!r})"


class Reference(_Located):
    """A reference to ``label``; ``command`` is the macro name without backslash (ref, cref,
    uses, proves, or a wrapper); ``part`` is statement | proof | prose | proof-title."""

    __slots__ = ("label", "command", "owner", "part", "_location", "_file", "_lines", "_start", "_length", "_at")

    def __init__(self, label: str, command: str, location: Location | None, owner: str | None = None,
                 part: str = "prose", file: Path | None = None, lines=None, start: int = 0, end: int = 0):
        self.label, self.command, self.owner, self.part = label, command, owner, part
        self._location, self._file, self._lines, self._start, self._length = location, file, lines, start, end - start
        self._at = -1

    def __repr__(self) -> str:
        return f"Reference(label={self.label!r}, command={self.command!r}, owner={self.owner!r}, part={self.part!r})"


def _moved_with(anchor, rel: tuple[int, ...]) -> tuple[int, ...]:
    if anchor is None:
        return rel
    offset = anchor.offset
    return tuple(x + offset for x in rel)


@dataclass(slots=True)
class Proof:
    """A proof environment and the claim it proves."""

    file: Path
    named_target: str | None = None  # label named by [Proof of \cref{x}] or \proves{x}
    leanok: bool = False
    has_content: bool = True  # an empty proof environment is not a proof
    obligation: bool = False
    rel_spans: tuple[int, int, int, int] = (0, 0, 0, 0)  # \begin{proof}, \end{proof}: relative to the anchor
    anchor: object = field(default=None, repr=False, compare=False)
    # a model's draft (``% colosseum: draft <run-id>`` on its first line): the run id ("" when the
    # marker names none), None for the author's own proof; and where the marker is, like rel_spans
    draft_run: str | None = None
    rel_draft: tuple[int, int] = (-1, -1)

    @property
    def spans(self) -> tuple[int, int, int, int]:
        """Offsets of \\begin{proof} and \\end{proof} in the file's current text."""
        return _moved_with(self.anchor, self.rel_spans)

    @property
    def is_draft(self) -> bool:
        return self.draft_run is not None

    @property
    def draft_location(self) -> Location | None:
        """The draft marker comment, or None for a proof that is not a draft."""
        if self.draft_run is None or self.rel_draft[0] < 0:
            return None
        return Location(self.file, self.anchor.range(self.rel_draft[0], self.rel_draft[1]))

    @property
    def location(self) -> Location:
        """The \\begin{proof} command (computed when asked, like a claim's)."""
        return Location(self.file, self.anchor.range(self.rel_spans[0], self.rel_spans[1]))

    @property
    def end(self) -> Location:
        return Location(self.file, self.anchor.range(self.rel_spans[2], self.rel_spans[3]))


@dataclass(slots=True)
class Claim:
    """A theorem-like environment: its label, kind, statement and the proofs found for it."""

    id: str
    kind: str  # environment name, e.g. "lemma"
    title: str | None
    label: str | None
    file: Path
    # the statement's offsets relative to the anchor's text: sliced when read, never copied (a
    # copy per claim costs the square of the input for nested claims)
    statement_span: tuple[int, int] = (0, 0)
    obligation: bool = False
    proof: Proof | None = None
    lean_decls: list[str] = field(default_factory=list)
    leanok: bool = False
    mathlibok: bool = False
    notready: bool = False
    needs_proof: bool = True  # False for definitions, remarks, examples ...
    role: str = "assertion"  # assertion | definition | conjecture | assumption | other
    cited: bool = False  # a result quoted from the literature: [\cite{...}] in its title
    section: str | None = None  # innermost section node id
    references: list[Reference] = field(default_factory=list)
    inner_labels: list[str] = field(default_factory=list)
    # a claim with several proofs: the labels each complete proof refers to (one is enough to prove
    # it, colosseum.graph.status); empty for a claim with one proof, whose references all count
    proof_alternatives: tuple[frozenset[str], ...] = ()
    # where it is: offsets of \begin{kind} and \end{kind} relative to its anchor (where its
    # chunk of the file is now), turned into positions when first asked
    rel_spans: tuple[int, int, int, int] = (0, 0, 0, 0)
    anchor: object = field(default=None, repr=False, compare=False)
    rank: int = 0  # the file's place in reading order
    _location: Location | None = field(default=None, repr=False, compare=False)
    _end: Location | None = field(default=None, repr=False, compare=False)
    _at: int = field(default=-1, repr=False, compare=False)

    @property
    def statement_text(self) -> str:
        """The text between \\begin{kind} (and its options) and \\end{kind}."""
        start, end = self.statement_span
        return self.anchor.lines.text[start:end] if self.anchor is not None and end > start else ""

    @property
    def spans(self) -> tuple[int, int, int, int]:
        """Offsets of \\begin{kind} and \\end{kind} in the file's current text."""
        return _moved_with(self.anchor, self.rel_spans)

    @property
    def order(self) -> int:
        """Its position in reading order (comparable with a section's)."""
        return (self.rank << ORDER_SHIFT) | (self.rel_spans[0] + (self.anchor.offset if self.anchor is not None else 0))

    def _fresh(self) -> None:
        if self._at != self.anchor.version:
            self._location = self._end = None
            self._at = self.anchor.version

    @property
    def location(self) -> Location:
        """The \\begin{kind} command."""
        self._fresh()
        if self._location is None:
            self._location = Location(self.file, self.anchor.range(self.rel_spans[0], self.rel_spans[1]))
        return self._location

    @property
    def end(self) -> Location:
        """The \\end{kind} command."""
        self._fresh()
        if self._end is None:
            self._end = Location(self.file, self.anchor.range(self.rel_spans[2], self.rel_spans[3]))
        return self._end


@dataclass(slots=True)
class Section:
    """A sectioning command (part ... subparagraph), its title, label and parent section."""

    id: str
    level: str  # part, chapter, section, ... subparagraph
    title: str
    label: str | None
    file: Path
    obligation: bool = False
    parent: str | None = None
    has_content: bool = False
    references: list[Reference] = field(default_factory=list)
    rel_span: tuple[int, int] = (0, 0)  # the command, relative to the anchor
    anchor: object = field(default=None, repr=False, compare=False)
    rank: int = 0
    _location: Location | None = field(default=None, repr=False, compare=False)
    _at: int = field(default=-1, repr=False, compare=False)

    @property
    def location(self) -> Location:
        if self._location is None or self._at != self.anchor.version:
            self._location = Location(self.file, self.anchor.range(*self.rel_span))
            self._at = self.anchor.version
        return self._location

    @property
    def order(self) -> int:
        """Its position in reading order (comparable with a claim's)."""
        return (self.rank << ORDER_SHIFT) | (self.rel_span[0] + self.anchor.offset)


class Edge(NamedTuple):
    source: str  # used by target: source must be settled before target
    target: str
    kind: str  # statement-uses | proof-uses | contains


@dataclass(frozen=True, slots=True)
class RelatedInfo:
    """A second place a diagnostic points to, with a sentence saying why."""

    location: Location
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A finding on a range of a file, as check and the server report it."""

    file: Path
    range: Range
    severity: str
    code: str
    message: str
    related: tuple[RelatedInfo, ...] = ()
    source: str = "colosseum"

    def sort_key(self):
        return (str(self.file), self.range.start.line, self.range.start.character, self.code, self.message)
