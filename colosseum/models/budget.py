"""One budget of model calls for every loop. A run that is planned to need more calls than the
budget does not start (BudgetExceeded); a run that uses it up stops starting calls (BudgetReached)
and keeps what it did.

What a call costs depends on who holds the budget, and is fixed when the budget is made:

- ``Budget.of_answered_calls`` (the inner loop, the global review): the calls billed for each
  answer once it is in, retries and repairs included (an answer from the response cache bills
  none). Calls in flight are not counted until they answer.
- ``Budget.of_started_calls`` (a research run, shared by every loop it runs, and each local
  review run): one call as it starts, given back when the answer came from the response cache.
"""

from __future__ import annotations

from dataclasses import dataclass

from colosseum.models.errors import BudgetExceeded, BudgetReached
from colosseum.models.provider import ModelResponse

ANSWERED = "answered"
STARTED = "started"


@dataclass
class Budget:
    max_calls: int | None  # None: unbounded
    counts: str = ANSWERED  # ANSWERED or STARTED (see the module docstring)
    spent: int = 0

    @classmethod
    def of_answered_calls(cls, max_calls: int | None) -> "Budget":
        return cls(max_calls, ANSWERED)

    @classmethod
    def of_started_calls(cls, max_calls: int | None) -> "Budget":
        return cls(max_calls, STARTED)

    def refuse_plan(self, planned: int, message: str) -> None:
        """BudgetExceeded(message) when ``planned`` calls would not fit: nothing has started."""
        if self.max_calls is not None and planned > self.max_calls:
            raise BudgetExceeded(message)

    def before_call(self) -> None:
        """BudgetReached when the budget is used up; else the call may start (and, counting
        started calls, is charged now)."""
        if self.max_calls is not None and self.spent >= self.max_calls:
            raise BudgetReached(f"the budget of {self.max_calls} model calls is used up")
        if self.counts == STARTED:
            self.spent += 1

    def after_call(self, response: ModelResponse) -> None:
        if self.counts == STARTED:
            if response.cached:
                self.spent -= 1  # an answer from disk costs no call
        else:
            self.spent += response.usage.calls

    @property
    def remaining(self) -> int | None:
        return None if self.max_calls is None else max(0, self.max_calls - self.spent)
