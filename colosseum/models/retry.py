"""One retry policy for every provider: exponential backoff with jitter, or the server's
``retry-after``, for errors that say they are worth retrying; everything else at once."""

from __future__ import annotations

import random

from colosseum.models.provider import ProviderError


async def with_retries(call, classify, *, sleep, max_retries: int, backoff_seconds: float, max_backoff_seconds: float):
    """``call()`` until it succeeds; ``classify(exc, attempt)`` turns a failure into a
    ProviderError (or re-raises what is not a provider failure)."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call(), attempt
        except ProviderError:
            raise
        except Exception as exc:  # noqa: BLE001 - classify decides, and re-raises what is not ours
            error = classify(exc, attempt)
        if not error.retryable or attempt > max_retries:
            raise error
        if error.retry_after is not None:
            delay = min(error.retry_after, max_backoff_seconds)
        else:
            delay = min(backoff_seconds * 2 ** (attempt - 1) * (0.5 + random.random()), max_backoff_seconds)
        await sleep(delay)


def validate(data, schema: dict) -> str | None:
    """What is wrong with a structured answer (up to three problems), or None."""
    import jsonschema

    if not isinstance(data, dict):
        return "the answer is not a JSON object"
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data), key=lambda e: list(map(str, e.path)))
    if not errors:
        return None
    return "; ".join(f"{'.'.join(str(p) for p in e.absolute_path) or '(top level)'}: {e.message}" for e in errors[:3])


def repair_instruction(problem: str, how: str) -> str:
    return f"That answer does not fit the required format: {problem}. Answer again, {how}."
