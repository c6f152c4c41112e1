"""What the analysis of a file (colosseum.project.analysis) finds: its claims, proofs and
sections with their labels and references, and what it leaves to the project linker
(colosseum.link.linker). Offsets are relative to the analysed text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from colosseum.core.source_text import LineIndex
from colosseum.latex.events import Event

INCOMING = -1  # "the claim / section in effect where this file is included"


@dataclass(slots=True)
class RefRec:
    label: str
    command: str
    start: int
    end: int  # range of the label name itself
    part: str  # statement | proof | prose | proof-title


@dataclass(slots=True)
class LabelRec:
    name: str
    command: str
    start: int
    end: int


@dataclass(slots=True)
class ClaimRec:
    env: str
    title: str | None
    begin: tuple[int, int]
    end: tuple[int, int] = (-1, -1)
    label: LabelRec | None = None
    inner_labels: list[LabelRec] = field(default_factory=list)
    refs: list[RefRec] = field(default_factory=list)
    obligation: bool = False
    lean_decls: list[str] = field(default_factory=list)
    leanok: bool = False
    mathlibok: bool = False
    notready: bool = False
    section: int = INCOMING  # index into sections, or INCOMING
    statement: tuple[int, int] = (0, 0)  # offsets of the statement (after \begin, before \end)
    leannode: bool = False
    parent_claim: int | None = None  # claim this one is nested in (a claim inside a proof)
    in_proof: int | None = None  # the proof (index into proofs) it is stated in, if any


@dataclass(slots=True)
class ProofRec:
    begin: tuple[int, int]
    end: tuple[int, int] = (-1, -1)
    attach: int | None = INCOMING  # claim index in this file, INCOMING, or None when named
    follows: int = INCOMING  # the claim closed before it (what it proves if its name is unknown)
    # with follows INCOMING: a remark or example of this file between it and the claim before the
    # file (or chunk) began, which it proves when that claim has its proof already
    aside: int | None = None
    named: str | None = None
    refs: list[RefRec] = field(default_factory=list)
    labels: list[LabelRec] = field(default_factory=list)
    leanok: bool = False
    obligation: bool = False
    has_content: bool = False
    section: int = INCOMING
    title: tuple[int, int] | None = None  # range of the optional argument [Proof of ...]
    draft_run: str | None = None  # a model's draft: the run its marker names (colosseum.project.draft_proofs)
    draft_span: tuple[int, int] = (-1, -1)  # the marker comment


@dataclass(slots=True)
class SectionRec:
    level: str
    title: str
    begin: tuple[int, int]
    star: bool
    label: LabelRec | None = None
    refs: list[RefRec] = field(default_factory=list)
    labels: list[LabelRec] = field(default_factory=list)
    obligation: bool = False
    has_content: bool = False


@dataclass(slots=True)
class ThmDecl:
    env: str
    title: str
    style: str
    start: int
    end: int


@dataclass(slots=True)
class FileAnalysis:
    lines: LineIndex
    claims: list[ClaimRec] = field(default_factory=list)
    proofs: list[ProofRec] = field(default_factory=list)
    sections: list[SectionRec] = field(default_factory=list)
    incoming_refs: list[RefRec] = field(default_factory=list)  # before the file's first section
    incoming_labels: list[LabelRec] = field(default_factory=list)
    incoming_obligation: bool = False
    incoming_content: bool = False
    dangling_ends: list[Event] = field(default_factory=list)  # \end with no \begin in this file
    dangling_begins: list[Event] = field(default_factory=list)  # \begin never closed here
    errors: list[Event] = field(default_factory=list)
    includes: list[Event] = field(default_factory=list)
    magic_root: Event | None = None
    document_end: int = -1  # offset of \end{document}: LaTeX reads nothing after it
    timeline: list | None = None  # claims, proofs, sections, includes in offset order (linker)
    segments: list | None = None  # the timeline cut after each include (linker)
    # the last claim closed before each include, and at the end (claim index, INCOMING, or None
    # when a proof or a section came after it): what a proof read next, with no claim of its own
    # before it, belongs to
    include_last_closed: list[int | None] = field(default_factory=list)
    last_closed: int | None = INCOMING
    closed_after_include: bool = False  # last_closed was set after the last include

    def release_records(self) -> None:
        """Let go of what only linking the chunk again reads (its claims, proofs, sections, the
        references and labels in them): an index built for one report links each chunk once, and
        the records are a seventh of it. Kept: the line index (the items' anchor) and the
        scanner's errors (colosseum.checks.structure); such an index refuses edits."""
        self.claims = self.proofs = self.sections = ()
        self.incoming_refs = self.incoming_labels = self.dangling_ends = self.dangling_begins = ()
        self.includes = self.include_last_closed = ()
        self.timeline = self.segments = None
