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
    # fresh refuters of the root proof before it is offered (its fatal/major critiques survive)
    final_refuters: int = 2
    plan_angles: bool = True  # one call plans the provers' angles from the claim; else `angles`

    def planned_calls(self) -> int:
        """The calls of a run in which no aggregator claims a resolution (each claim adds at
        most one check per aggregator: see ``maximum_calls``)."""
        return (int(self.plan_angles) + self.leaves + self.leaves * self.refuters_per_candidate
                + sum(self.widths[1:]) + self.final_refuters)

    def maximum_calls(self) -> int:
        """Every call a run can make: the planned ones and one resolution check per aggregator."""
        return self.planned_calls() + sum(self.widths[1:])


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
    # "proof": the quote is a span of the candidate; "statement": a counterexample found by
    # execution, against the claim itself (its quote is the statement), whatever proof it was read in
    anchor: str = "proof"
    evidence: dict | None = None  # for a counterexample found by execution: the run (code, output, limits)

    @property
    def computational(self) -> bool:
        """A counterexample a run of code showed: fatal, and no argument resolves it away."""
        return self.evidence is not None


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
    resolved: dict[str, str] = field(default_factory=dict)  # critique id -> how (confirmed by a checker)
    # critique id -> why the checker did not confirm the claimed resolution (the critique stays)
    unconfirmed: dict[str, str] = field(default_factory=dict)
    alternative: Candidate | None = None  # a competing proof the aggregator kept upward


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


@dataclass(frozen=True)
class AnglePlan:
    """The provers' angles: ``planned`` when the angle planner gave them for this claim, else the
    fixed list, with ``reason`` saying why."""

    angles: tuple[str, ...]
    planned: bool
    reason: str = ""


@dataclass
class FinalRefutation:
    """The fresh refutation of the root proof before it is offered: ``calls`` asked, the critiques
    they wrote (the fatal and major ones joined the survivors), and the calls that failed."""

    calls: int = 0
    critiques: list[Critique] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # the failure of each call that gave no answer

    @property
    def complete(self) -> bool:
        return not self.failed


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
    final_refutation: FinalRefutation = field(default_factory=FinalRefutation)
    angle_plan: AnglePlan | None = None
    executions: list[dict] = field(default_factory=list)  # every run of run_python by a refuter

    @property
    def surviving_critiques(self) -> list[Critique]:
        return self.root.critiques

    @property
    def verdict(self) -> str:
        """"refuted" when a fatal or major critique survives (the final refutation's included),
        "incomplete" when none does but a final refutation call failed (unread is not unrefuted),
        else "unrefuted"; minor ones never change it. A run that did not finish has no
        SolveResult: its verdict is "incomplete"."""
        blocking = any(c.severity in BLOCKING_SEVERITIES for c in self.surviving_critiques)
        if blocking:
            return "refuted"
        return "unrefuted" if self.final_refutation.complete else "incomplete"
