"""What the research stages share about model calls: the stage a call is accounted to, and the
usage as JSON. The budget and the metered provider are the model layer's (``models.budget``,
``models.metered``); the two names below keep the callers that still import them from here
working until they import the model layer directly."""

from __future__ import annotations

from colosseum.models import Usage
from colosseum.models.budget import Budget
from colosseum.models.metered import MeteredProvider, stage

__all__ = ["CallBudget", "MeteredProvider", "stage", "usage_json"]


def CallBudget(max_calls: int | None) -> Budget:  # noqa: N802 - the name callers knew as a class
    """A research run's budget: calls as they start, an answer from the response cache free."""
    return Budget.of_started_calls(max_calls)


def usage_json(usage: Usage) -> dict:
    return {"calls": usage.calls, "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_tokens, "cache_write_tokens": usage.cache_write_tokens}
