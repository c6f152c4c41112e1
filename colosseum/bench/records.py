"""Plain records of a bench run: one attempt per method and problem, and its grades."""

from __future__ import annotations

from dataclasses import dataclass, field

from colosseum.bench.requests import Spend

METHOD = "method"  # the inner loop as configured
DIRECT, BEST_OF_N, SELF_REFINE = "direct", "best-of-n", "self-refine"
BASELINES = (DIRECT, BEST_OF_N, SELF_REFINE)
METHODS = (METHOD, *BASELINES)
GRADES = ("correct", "minor_gaps", "wrong")
SPLIT = "split"  # no grade has a majority of the graders
TOLERANCE = 0.10  # equal budget: a baseline's list-price cost within 10% of the method's


@dataclass
class Grade:
    grader: int
    grade: str  # correct | minor_gaps | wrong
    reason: str


@dataclass
class Attempt:
    """One method's answer to one problem, what it spent, and how the graders judged it.
    ``budget_usd`` is the method's own cost on the problem (None for the method itself);
    ``stopped`` says why it ended before its plan ("" when it did not)."""

    method: str
    label: str
    spend: Spend = field(default_factory=Spend)
    answer: str = ""
    budget_usd: float | None = None
    stopped: str = ""
    detail: dict = field(default_factory=dict)
    grades: list[Grade] = field(default_factory=list)
    grader_failures: int = 0

    @property
    def key(self) -> str:
        return f"{self.method}/{self.label}"
