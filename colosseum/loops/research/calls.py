"""Every model call of a research run goes through one metered provider: it bounds the whole
run by one budget (calls served from the response cache are free), accounts usage per stage
(the stage is a context variable, so the tasks a stage starts inherit it), and checks for
cancellation before each call."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable

from colosseum.models.errors import BudgetReached
from colosseum.models import Message, ModelRequest, Usage
from colosseum.models.prompts import load_prompt

CURRENT_STAGE: contextvars.ContextVar[str] = contextvars.ContextVar("research_stage", default="other")


@contextlib.contextmanager
def stage(name: str):
    token = CURRENT_STAGE.set(name)
    try:
        yield
    finally:
        CURRENT_STAGE.reset(token)


class CallBudget:
    """Calls started so far against ``max_calls`` (None: unbounded). Shared by the providers of
    one run (both models of a cross-model selection draw on it)."""

    def __init__(self, max_calls: int | None):
        self.max_calls = max_calls
        self.started = 0

    def take(self) -> None:
        if self.max_calls is not None and self.started >= self.max_calls:
            raise BudgetReached(f"the budget of {self.max_calls} model calls is used up")
        self.started += 1

    def refund(self) -> None:
        self.started -= 1

    @property
    def remaining(self) -> int | None:
        return None if self.max_calls is None else max(0, self.max_calls - self.started)


class MeteredProvider:
    """Wraps a provider: the budget, usage per stage, cache hits, and a cancellation check.
    Anything else (``hits``, ``count_tokens``) is the wrapped provider's."""

    def __init__(self, inner, budget: CallBudget, check: Callable[[], None] | None = None):
        self.inner = inner
        self.name = inner.name
        self.model = getattr(inner, "model", "")
        self.budget = budget
        self.check = check or (lambda: None)
        self.usage = Usage()
        self.by_stage: dict[str, Usage] = {}
        self.cached_answers = 0

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    async def complete(self, request: ModelRequest):
        self.check()
        self.budget.take()
        response = await self.inner.complete(request)
        if response.cached:
            self.budget.refund()  # an answer from disk costs no call
            self.cached_answers += 1
        where = CURRENT_STAGE.get()
        self.usage = self.usage + response.usage
        self.by_stage[where] = self.by_stage.get(where, Usage()) + response.usage
        return response


async def ask(provider, role: str, values: dict, max_tokens: int = 8192) -> dict:
    """One structured call with the prompt spec of ``role``; the parsed answer (or {})."""
    spec = load_prompt(role)
    system, user = spec.render(values)
    response = await provider.complete(ModelRequest(system, (Message("user", user),), schema=spec.schema,
                                                    role=role, max_tokens=max_tokens))
    return response.data or {}


def usage_json(usage: Usage) -> dict:
    return {"calls": usage.calls, "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_tokens, "cache_write_tokens": usage.cache_write_tokens}
