"""Plain records of a review: critiques, verdicts, the plan of a review cut into parts."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.models import Usage
from colosseum.core.structure import Range

VERDICTS = ("accepted", "revise", "rejected")
LOCAL_VERDICTS = ("passed", "failed")
SEVERITIES = ("fatal", "major", "minor")
RANK = {"fatal": 0, "major": 1, "minor": 2}  # lower is more severe
GLOBAL_KINDS = ("assumption-carried", "notation-drift", "missing-case", "wrong-dependency", "hypothesis-not-met",
                "statement-mismatch", "gap", "circularity", "other")
LOCAL_KINDS = ("wrong-target", "hypothesis-not-met", "gap", "circularity", "missing-case", "other")

# each reviewer starts from a different concern (all of them read for every concern): the
# reviewers should not all make the same first pass over the argument
DEFAULT_FOCUSES = (
    "assumptions carried from one section to another, and the hypotheses of every cited result where it is used",
    "notation that drifts, cases that are missing, and dependencies between sections that are wrong or circular",
    "whether the main theorem as proved matches the statement the paper claims, then every step it rests on",
)


def normalize(text: str) -> str:
    """Whitespace collapsed to single spaces: how quotes are compared and keyed."""
    return re.sub(r"\s+", " ", text).strip()


def critique_key(kind: str, quote: str) -> str:
    """What a dismissal is remembered by: the critique's kind and the text it quotes (modulo
    whitespace). The same complaint about unchanged text keeps the same key; edit the text and
    the key changes, so a dismissed critique comes back when what it attacks changes."""
    return hashlib.sha256(f"{kind}\0{normalize(quote)}".encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class ReviewConfig:
    """How a review runs. ``[review]`` in colosseum.toml sets ``reviewers``, ``context_tokens``,
    ``output_tokens`` (see ``colosseum.loops.review.settings``); the budget comes from ``[budget]``."""

    reviewers: int = 3  # independent reviewers (each reads the whole document)
    context_tokens: int = 200_000  # the model's context window: longer documents are split
    output_tokens: int = 8192  # max_tokens of each review call (reserved out of the window)
    max_calls: int | None = None  # budget: a review that needs more does not start
    focuses: tuple[str, ...] = DEFAULT_FOCUSES
    model: str | None = None  # the model asked for (None: the provider's configured one)

    def part_budget(self) -> int:
        """Tokens one review request may take: the window less the answer and a safety margin."""
        return max(1_000, self.context_tokens - self.output_tokens - self.context_tokens // 20)


@dataclass
class ReviewCritique:
    """One finding. ``quote`` is the text it attacks as the reviewer copied it; when that text is
    in the document (modulo whitespace and comments) ``file``/``range`` say exactly where and
    ``anchored`` is true; otherwise both are None and it is never pinned to a guessed line."""

    id: str
    severity: str  # fatal | major | minor
    kind: str  # one of GLOBAL_KINDS (a global review) or LOCAL_KINDS (a local one)
    message: str
    quote: str
    anchored: bool = False
    file: Path | None = None
    range: Range | None = None  # 0-based lines, UTF-16 columns (LSP)
    repair: str = ""
    reviewers: tuple[str, ...] = ()  # who raised it: several once duplicates are merged
    also: tuple[str, ...] = ()  # the merged duplicates' own wording, kept
    part: str | None = None  # the part of a split review it came from (None: whole document)
    label: str | None = None  # the claim it is about, when known (a local review)
    dismissed: bool = False  # the author dismissed it for this unchanged text
    keys: tuple[str, ...] = ()  # a merged critique: every member's key (a dismissal records them all)

    @property
    def key(self) -> str:
        return critique_key(self.kind, self.quote)

    @property
    def all_keys(self) -> tuple[str, ...]:
        """What dismissing this critique records: its own key and, once merged, its members'."""
        return self.keys or (self.key,)

    @property
    def line(self) -> int | None:
        """1-based line of the quoted span's start, or None when unanchored."""
        return self.range.start.line + 1 if self.anchored and self.range is not None else None

    @property
    def active(self) -> bool:
        return not self.dismissed


@dataclass
class ReviewerVerdict:
    """What one reviewer said, before merging: its own verdict and reasons."""

    reviewer: str
    verdict: str
    reasons: list[str] = field(default_factory=list)


@dataclass
class ReviewPart:
    """A piece of a document too long for one request: whole units (top-level sections, cut
    finer only when one alone is too long) taken in DAG order, plus the statements of the
    results outside it that it relies on."""

    id: str
    units: list[str]  # titles of the units it holds, in order
    files: list[str]  # project-relative files it reads from
    relies_on: list[str]  # labels whose statements are given with it
    tokens: int = 0  # counted by the provider's token counter


@dataclass
class SplitPlan:
    parts: list[ReviewPart]
    document_tokens: int  # the whole document's request, as counted
    budget: int  # tokens one request may take
    exact: bool = True  # the counts came from the API's counter (False: an estimate, labelled so)

    def describe(self) -> str:
        how = "counted by the API's token counter" if self.exact else "estimated (this provider has no counter API)"
        return (f"The document ({self.document_tokens:,} tokens, {how}) is longer than one request may be "
                f"({self.budget:,} tokens), so it was reviewed in {len(self.parts)} parts cut along the dependency "
                "DAG, each with the statements it relies on, followed by a synthesis pass over the parts' findings.")


@dataclass
class ReviewReport:
    """The outcome of a global review. ``verdict`` is ``accepted``, ``revise`` or ``rejected``
    with ``reasons``; one concrete fatal flaw (anchored, not dismissed) rejects: a veto."""

    verdict: str
    reasons: list[str]
    critiques: list[ReviewCritique]
    reviewer_verdicts: list[ReviewerVerdict]
    usage: Usage
    model: str
    cache_hits: int = 0
    token_counts: int = 0  # requests to the token counter
    split: SplitPlan | None = None  # None: read in one request
    vetoes: list[str] = field(default_factory=list)  # ids of the critiques that rejected
    withdrawn: dict[str, str] = field(default_factory=dict)  # critique id -> why the synthesis withdrew it
    report_path: Path | None = None  # the Markdown report, once written
    status: str = "done"  # done | cancelled | budget-stopped

    @property
    def unanchored(self) -> int:
        return sum(1 for c in self.critiques if not c.anchored)

    def to_json(self, root_dir: Path) -> dict:
        """``{"verdict", "critiques": [{"file", "line", "severity", "kind", "message", "quote",
        "anchored"}], "usage"}``: file relative to the project, line 1-based, both null when
        the quote was not found."""
        from colosseum.loops.review.report import report_json

        return report_json(self, root_dir)


@dataclass
class ClaimReview:
    """A local review of one claim or section: does the proof prove exactly its statement, and
    do the hypotheses of each result it cites hold where it cites them? ``verdict`` is
    ``passed`` or ``failed``; ``cached`` says it was served without a call."""

    label: str
    verdict: str
    reasons: list[str]
    critiques: list[ReviewCritique]
    key: str  # the incremental key (claim text, used statements, prompt version, model)
    proof: str  # the proof text that was reviewed (the failed draft, for a retry)
    statement: str
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    model: str = ""
    # the refuters' critiques it was given, by id: {status: stands | answered, reason}; one it
    # was given and is missing here was not addressed (it stands, and the review failed)
    addressed: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"
