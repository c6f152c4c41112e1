"""Plain records of one inner-loop run."""

from __future__ import annotations

from dataclasses import dataclass, field

from colosseum.models import Usage

BLOCKING_SEVERITIES = ("fatal", "major")  # a surviving critique of these makes the verdict "refuted"

DEFAULT_ANGLES = (
    "a direct proof from the definitions",
    "find the one main lemma the statement reduces to, prove it, then conclude",
    "a probabilistic or counting argument",
    "induction on the natural parameter of the statement",
    "argue by contradiction from a minimal counterexample",
    "a different representation of the objects (a matrix, a graph, a generating function)",
    "reduce to a known theorem among the assumable results and check its hypotheses one by one",
    "an extremal argument: consider a maximal or minimal object",
)


@dataclass(frozen=True)
class InnerLoopConfig:
    leaves: int = 16
    refuters_per_candidate: int = 1
    widths: tuple[int, ...] = (16, 8, 5, 1)  # node counts per level; widths[0] is the leaves
    k: int = 5  # bundles per aggregator, capped at the current width
    seed: int | None = None  # None: derived from the obligation and its context
    max_calls: int | None = None  # budget; a run that would exceed it does not start
    angles: tuple[str, ...] = DEFAULT_ANGLES
    # beyond the paper: every strategy cluster of the leaves reaches at least one aggregator
    cover_strategies: bool = False

    def planned_calls(self) -> int:
        return self.leaves + self.leaves * self.refuters_per_candidate + sum(self.widths[1:])


@dataclass
class Critique:
    id: str
    severity: str  # fatal | major | minor
    kind: str
    quote: str
    explanation: str
    repair: str = ""
    anchored: bool = True  # the quoted span was found in the candidate it attacks
    origin: str = ""  # the bundle whose candidate it was written against


@dataclass
class Candidate:
    id: str
    proof: str
    strategy: str = ""
    angle: str = ""


@dataclass
class Bundle:
    """A candidate with every critique attached to it (its own, and those carried up)."""

    id: str
    level: int
    candidate: Candidate
    critiques: list[Critique] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    sources: tuple[str, ...] = ()  # the bundles this one merged
    resolved: dict[str, str] = field(default_factory=dict)  # critique id -> how


@dataclass(frozen=True)
class Dropped:
    """A candidate left out of the tree because one of its calls failed (after the repair and
    every attempt): ``stage`` is "generation" or "refutation", ``reason`` the failure."""

    candidate: str
    stage: str
    reason: str


def dropped_summary(dropped: list[Dropped], leaves: int) -> str:
    """One line: "2 of 16 candidates dropped: L3 (generation): why; L7 (refutation): why"."""
    reasons = "; ".join(f"{d.candidate} ({d.stage}): {d.reason}" for d in dropped[:3])
    more = f"; and {len(dropped) - 3} more" if len(dropped) > 3 else ""
    return f"{len(dropped)} of {leaves} candidates dropped: {reasons}{more}"


@dataclass
class SolveResult:
    root: Bundle
    bundles: dict[str, Bundle]
    groups: list[list[tuple[str, list[str]]]]  # per level: (aggregator, the bundles it drew)
    reached_root: list[str]  # the leaves whose bundle is an ancestor of the root
    usage: Usage
    seed: int
    clusters: list[list[str]] = field(default_factory=list)  # leaves by strategy, when covering
    covered_by_swap: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)  # candidates whose calls failed

    @property
    def surviving_critiques(self) -> list[Critique]:
        return self.root.critiques

    @property
    def verdict(self) -> str:
        """"refuted" when a fatal or major critique survives, else "unrefuted" (minor ones never
        change it); a run that did not finish has no SolveResult, its verdict is "incomplete"."""
        blocking = any(c.severity in BLOCKING_SEVERITIES for c in self.surviving_critiques)
        return "refuted" if blocking else "unrefuted"
