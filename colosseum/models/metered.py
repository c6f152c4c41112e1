"""A provider wrapped in a run-wide budget: every call of a run that runs other loops (research
runs the inner loop and both reviews) goes through one, so one budget bounds them all. It also
accounts usage per stage (the stage is a context variable, so the tasks a stage starts inherit
it) and checks for cancellation before each call."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable

from colosseum.models.budget import Budget
from colosseum.models.provider import ModelRequest, Usage

CURRENT_STAGE: contextvars.ContextVar[str] = contextvars.ContextVar("model_stage", default="other")


@contextlib.contextmanager
def stage(name: str):
    """Calls made inside (and in the tasks started inside) are accounted to ``name``."""
    token = CURRENT_STAGE.set(name)
    try:
        yield
    finally:
        CURRENT_STAGE.reset(token)


class MeteredProvider:
    """Wraps a provider: the budget, usage per stage, cache hits, and a cancellation check.
    Anything else (``hits``, ``count_tokens``) is the wrapped provider's."""

    def __init__(self, inner, budget: Budget, check: Callable[[], None] | None = None):
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
        self.budget.before_call()
        response = await self.inner.complete(request)
        self.budget.after_call(response)
        if response.cached:
            self.cached_answers += 1
        where = CURRENT_STAGE.get()
        self.usage = self.usage + response.usage
        self.by_stage[where] = self.by_stage.get(where, Usage()) + response.usage
        return response
