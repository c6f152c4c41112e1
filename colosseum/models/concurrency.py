"""One bound on the model requests in flight (``[models] max_concurrency``), whatever the provider:
an account with a low rate limit sets it low instead of paying for 429s and their backoff. It sits
under the answer cache, so an answer read from disk never waits for a slot."""

from __future__ import annotations

import asyncio

from colosseum.models.provider import ModelRequest, ModelResponse


class ConcurrencyLimited:
    """Wraps a provider; at most ``limit`` of its ``complete`` calls run at once, the rest wait."""

    def __init__(self, inner, limit: int):
        if limit < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.inner = inner
        self.limit = limit
        # the cache key is made of the inner provider's name and model: they pass through unchanged
        self.name = inner.name
        self.model = getattr(inner, "model", "")
        self._slots = asyncio.Semaphore(limit)

    @property
    def exact_token_counts(self) -> bool:
        return bool(getattr(self.inner, "exact_token_counts", False))

    async def count_tokens(self, request: ModelRequest) -> int:
        return await self.inner.count_tokens(request)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        async with self._slots:
            return await self.inner.complete(request)
