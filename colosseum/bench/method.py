"""The method itself on one problem: the inner loop as configured (``colosseum.loops.inner``).
Its answer is the root's proof; a run that stops early (its call budget, a failed required call)
is scored as it stands: the highest bundle it made, else nothing."""

from __future__ import annotations

from colosseum.core.exception_groups import first_leaf
from colosseum.bench.problems import Problem
from colosseum.bench.records import METHOD, Attempt
from colosseum.bench.requests import SpendingProvider, Stopwatch
from colosseum.loops.inner import InnerLoopConfig, solve
from colosseum.models.errors import BudgetExceeded, BudgetReached, RunIncomplete
from colosseum.models.provider import ProviderError


_STOPS = (BudgetExceeded, BudgetReached, RunIncomplete, ProviderError)


class _AsItStands:
    """A recorder for the inner loop that keeps only what it has made so far."""

    def __init__(self):
        self.bundles: dict = {}
        self.status = ""

    def update(self, seed, bundles, groups, usage, dropped, executions=()) -> None:
        self.bundles = dict(bundles)

    def finish(self, status, usage, result=None) -> None:
        self.status = status

    def best(self) -> str:
        if not self.bundles:
            return ""
        top = max(self.bundles.values(), key=lambda b: b.level)  # the first of the highest level
        return top.candidate.proof


async def run_method(problem: Problem, provider, config: InnerLoopConfig) -> Attempt:
    attempt = Attempt(METHOD, problem.label)
    recorder = _AsItStands()
    with Stopwatch(attempt.spend):
        try:
            result = await solve(problem.context, SpendingProvider(provider, attempt.spend), config,
                                 recorder=recorder)
        except Exception as exc:  # noqa: BLE001 - only the stops below are scored; anything else is raised
            stopped = first_leaf(exc, _STOPS)
            if stopped is None:
                raise
            attempt.stopped = str(stopped)
            attempt.answer = recorder.best()
            return attempt
    attempt.answer = result.root.candidate.proof
    attempt.detail = {"verdict": result.verdict}
    return attempt
