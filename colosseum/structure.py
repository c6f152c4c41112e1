"""Plain data classes shared by the whole engine (no behaviour beyond small helpers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

SEVERITIES = ("error", "warning", "information", "hint")


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """0-based line and UTF-16 code-unit column, as LSP counts them."""

    line: int
    character: int


@dataclass(frozen=True, slots=True, order=True)
class Range:
    start: Position
    end: Position


@dataclass(frozen=True, slots=True, order=True)
class Location:
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


@dataclass(frozen=True, slots=True)
class Edge:
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
