"""How the bench's requests are answered, and what each method spends.

The seam for batch runs: every stage of the baselines and of the grading collects its requests
(each under its own id, e.g. ``direct/lem:x``) and hands them to one function, a ``RunStage``.
``interactive(provider)`` is today's: every request at once through the provider
(``asyncio.gather``, the provider's own semaphore bounding them), each through the one model step
(``colosseum.models.step``). A batch executor fits the same signature: submit the stage, poll,
collect the outcomes by id.

What a method spends is priced at list price whether an answer was asked now or came from the
response cache (the cache keeps what it was billed when first asked): a rerun with the same
settings then sets the same budgets, asks the same questions, and costs no call."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from colosseum.models.executor import CallOutcome
from colosseum.models.pricing import cost_usd, price_of
from colosseum.models.provider import ModelRequest, ModelResponse, Usage, estimate_tokens
from colosseum.models.step import ModelStep

# stage name, requests by id -> outcomes by the same ids (a failed request is a failed outcome)
RunStage = Callable[[str, dict[str, ModelRequest]], Awaitable[dict[str, CallOutcome]]]


def interactive(provider) -> RunStage:
    """The interactive executor: every request of a stage at once, through the model step."""
    step = ModelStep(provider)  # no call budget: the bench's budgets are in dollars (Spend, Pricing)

    async def run_stage(stage: str, requests: dict[str, ModelRequest]) -> dict[str, CallOutcome]:
        ids = list(requests)
        outcomes = await asyncio.gather(*(step.send(requests[key]) for key in ids))
        return dict(zip(ids, outcomes))

    return run_stage


@dataclass(frozen=True)
class Pricing:
    """List prices of the solvers' model (``[models] prices`` overrides them)."""

    model: str
    overrides: dict | None = None

    @property
    def known(self) -> bool:
        return price_of(self.model, self.overrides) is not None

    def cost(self, usage: Usage) -> float:
        return cost_usd(usage, self.model, self.overrides) or 0.0

    def estimate(self, request: ModelRequest, output_tokens: int) -> float:
        """What ``request`` would cost if it wrote ``output_tokens`` (its input estimated from its length)."""
        return self.cost(Usage(input_tokens=estimate_tokens(request), output_tokens=output_tokens))


def listed_usage(response: ModelResponse) -> Usage:
    """What an answer was billed: now, or when it was first asked (a cached one)."""
    if response.cached:
        return response.first_usage if response.first_usage is not None else Usage(calls=1)
    return response.usage


@dataclass
class Spend:
    """What one method spent on one problem: ``usage`` at list price (a cached answer counted as
    when it was first asked), the calls made now and the answers that came from the cache, and the
    wall time of its stages."""

    usage: Usage = field(default_factory=Usage)
    calls_made: int = 0
    cache_hits: int = 0
    failed_calls: int = 0
    seconds: float = 0.0

    @property
    def calls(self) -> int:
        return self.usage.calls

    def add(self, outcome_or_response) -> None:
        response = outcome_or_response
        if isinstance(outcome_or_response, CallOutcome):
            if not outcome_or_response.ok:
                self.failed_calls += 1
                self.calls_made += 1
                self.usage = self.usage + Usage(calls=1)
                return
            response = outcome_or_response.response
        self.usage = self.usage + listed_usage(response)
        if response.cached:
            self.cache_hits += 1
        else:
            self.calls_made += 1


class SpendingProvider:
    """A provider that adds every answer to a Spend (the inner loop calls its provider itself)."""

    def __init__(self, inner, spend: Spend):
        self.inner = inner
        self.spend = spend
        self.name = inner.name
        self.model = getattr(inner, "model", "")

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        response = await self.inner.complete(request)
        self.spend.add(response)
        return response


class Stopwatch:
    """Adds the time of a block to every Spend given (the stage's time, counted once per method)."""

    def __init__(self, *spends: Spend):
        self.spends = spends

    def __enter__(self):
        self.start = time.monotonic()
        return self

    def __exit__(self, *exc):
        took = time.monotonic() - self.start
        for spend in self.spends:
            spend.seconds += took
        return False
