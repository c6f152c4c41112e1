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


@dataclass(slots=True)
class Label:
    name: str
    location: Location
    owner: str | None = None  # node id of the claim/section this label belongs to
    command: str = "label"


@dataclass(slots=True)
class Reference:
    label: str
    command: str  # macro name without backslash: ref, cref, uses, proves, or a wrapper
    location: Location
    owner: str | None = None
    part: str = "prose"  # statement | proof | prose | proof-title


@dataclass(slots=True)
class Proof:
    location: Location  # the \begin{proof}
    end: Location
    named_target: str | None = None  # label named by [Proof of \cref{x}] or \proves{x}
    leanok: bool = False
    has_content: bool = True  # an empty proof environment is not a proof
    obligation: bool = False


@dataclass(slots=True)
class Claim:
    id: str
    kind: str  # environment name, e.g. "lemma"
    title: str | None
    label: str | None
    location: Location  # the \begin{kind} command
    end: Location  # the \end{kind} command
    file: Path
    statement_text: str = ""
    obligation: bool = False
    proof: Proof | None = None
    lean_decls: list[str] = field(default_factory=list)
    leanok: bool = False
    mathlibok: bool = False
    notready: bool = False
    needs_proof: bool = True  # False for definitions, remarks, examples ...
    role: str = "assertion"  # assertion | definition | other
    cited: bool = False  # a result quoted from the literature: [\cite{...}] in its title
    order: int = 0  # position in reading order
    section: str | None = None  # innermost section node id
    references: list[Reference] = field(default_factory=list)
    inner_labels: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Section:
    id: str
    level: str  # part, chapter, section, ... subparagraph
    title: str
    label: str | None
    location: Location
    file: Path
    obligation: bool = False
    parent: str | None = None
    has_content: bool = False
    references: list[Reference] = field(default_factory=list)
    order: int = 0  # position in reading order


class Edge(NamedTuple):
    source: str  # used by target: source must be settled before target
    target: str
    kind: str  # statement-uses | proof-uses | contains


@dataclass(frozen=True, slots=True)
class RelatedInfo:
    location: Location
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    file: Path
    range: Range
    severity: str
    code: str
    message: str
    related: tuple[RelatedInfo, ...] = ()
    source: str = "colosseum"

    def sort_key(self):
        return (str(self.file), self.range.start.line, self.range.start.character, self.code, self.message)
