"""One retry policy for every provider: exponential backoff with jitter, or the server's
``retry-after``, for errors that say they are worth retrying; everything else at once. Each
attempt has a time limit, and the attempts a number: both are settings (``[models]
request_timeout_s`` and ``max_attempts``)."""

from __future__ import annotations

import asyncio
import random

from colosseum.models.provider import ProviderError


DEFAULT_TIMEOUT_S = 300.0  # per call: `[models] request_timeout_s`
IDLE_TIMEOUT_S = 60.0  # the longest silence of the connection within a call
DEFAULT_MAX_ATTEMPTS = 4  # `[models] max_attempts`: the first call and its retries


def attempts_of(max_attempts: int | None, max_retries: int | None) -> int:
    """Attempts per call from either way of saying it (``max_retries`` counts the retries alone)."""
    if max_attempts is not None:
        return max(1, max_attempts)
    return DEFAULT_MAX_ATTEMPTS if max_retries is None else max(0, max_retries) + 1


async def with_retries(call, classify, *, sleep, max_attempts: int, backoff_seconds: float,
                       max_backoff_seconds: float, timeout_s: float | None = None):
    """``call()`` until it succeeds, at most ``max_attempts`` times, each attempt ended after
    ``timeout_s`` (a TimeoutError for ``classify``); ``classify(exc, attempt)`` turns a failure
    into a ProviderError (or re-raises what is not a provider failure)."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await asyncio.wait_for(call(), timeout_s), attempt
        except ProviderError:
            raise
        except Exception as exc:  # noqa: BLE001 - classify decides, and re-raises what is not ours
            error = classify(exc, attempt)
        if not error.retryable or attempt >= max_attempts:
            raise error
        if error.retry_after is not None:
            delay = min(error.retry_after, max_backoff_seconds)
        else:
            delay = min(backoff_seconds * 2 ** (attempt - 1) * (0.5 + random.random()), max_backoff_seconds)
        await sleep(delay)


def unreadable_answer(provider: str, exc: Exception, attempt: int) -> ProviderError:
    """A 200 answer whose body is cut off or is not JSON: worth another attempt."""
    return ProviderError(provider, f"the answer was cut off or not JSON ({exc})", retryable=True, attempts=attempt)


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
