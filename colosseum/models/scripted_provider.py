"""A scripted provider: a test double for engine tests, never a default.

Answers are chosen by a function of the request (deterministic), usage is counted from the text
lengths, and every call is recorded so that tests can check what was asked. Its token counter is
the same rule as its usage (one token per four characters), or ``counter(request)`` when given;
token counts are recorded in ``count_requests`` apart from the calls."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from colosseum.models.provider import ModelRequest, ModelResponse, ProviderError, Usage, content_chars


class ScriptedProvider:
    name = "scripted (test double)"

    exact_token_counts = True  # the double's own rule is its "API counter"

    def __init__(self, answer: Callable[[ModelRequest], dict | str], model: str = "scripted", latency: float = 0.0,
                 counter: Callable[[ModelRequest], int] | None = None):
        self._answer = answer
        self.model = model
        self.latency = latency
        self.calls: list[ModelRequest] = []
        self.count_requests: list[ModelRequest] = []
        self._counter = counter

    async def count_tokens(self, request: ModelRequest) -> int:
        self.count_requests.append(request)
        if self._counter is not None:
            return int(self._counter(request))
        return _prompt_chars(request) // 4 + 1

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.calls.append(request)
        if self.latency:
            await asyncio.sleep(self.latency)
        answer = self._answer(request)
        if isinstance(answer, Exception):
            raise answer
        if request.schema is not None and not isinstance(answer, dict):
            raise ProviderError(self.name, f"script gave text to a structured request ({request.role})")
        text = answer if isinstance(answer, str) else json.dumps(answer, sort_keys=True)
        prompt = _prompt_chars(request)
        usage = Usage(input_tokens=prompt // 4 + 1, output_tokens=len(text) // 4 + 1, calls=1)
        return ModelResponse(text if isinstance(answer, str) else "", answer if isinstance(answer, dict) else None,
                             usage, request.model or self.model, "end_turn")


def _prompt_chars(request: ModelRequest) -> int:
    return len(request.system) + sum(content_chars(m.content) for m in request.messages)
