"""What the research stages share about model calls: the usage as JSON. The budget and the
metered provider are the model layer's (``models.budget``, ``models.metered``)."""

from __future__ import annotations

from colosseum.models import Usage

__all__ = ["usage_json"]


def usage_json(usage: Usage) -> dict:
    return {"calls": usage.calls, "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_tokens, "cache_write_tokens": usage.cache_write_tokens}
