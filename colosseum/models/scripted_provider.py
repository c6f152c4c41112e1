"""A scripted provider: a test double for engine tests, never a default.

Answers are chosen by a function of the request (deterministic), usage is counted from the text
lengths, and every call is recorded so that tests can check what was asked. An answer may be a
``ToolCall`` (or a tuple of them) instead: the model's turn that calls the request's tools, which the
tool-use loop (colosseum.models.tool_loop) runs before asking again. Its token counter is
the same rule as its usage (one token per four characters), or ``counter(request)`` when given;
token counts are recorded in ``count_requests`` apart from the calls."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from colosseum.models.provider import ModelRequest, ModelResponse, ProviderError, ToolCall, Usage, content_chars


class ScriptedProvider:
    name = "scripted (test double)"

    exact_token_counts = True  # the double's own rule is its "API counter"
    supports_tools = True  # a script may answer with ToolCall(s)

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
        if isinstance(answer, ToolCall) or (isinstance(answer, tuple) and answer and isinstance(answer[0], ToolCall)):
            return self._tool_turn(request, answer if isinstance(answer, tuple) else (answer,))
        if request.schema is not None and not isinstance(answer, dict):
            raise ProviderError(self.name, f"script gave text to a structured request ({request.role})")
        text = answer if isinstance(answer, str) else json.dumps(answer, sort_keys=True)
        prompt = _prompt_chars(request)
        usage = Usage(input_tokens=prompt // 4 + 1, output_tokens=len(text) // 4 + 1, calls=1)
        return ModelResponse(text if isinstance(answer, str) else "", answer if isinstance(answer, dict) else None,
                             usage, request.model or self.model, "end_turn")

    def _tool_turn(self, request: ModelRequest, calls: tuple[ToolCall, ...]) -> ModelResponse:
        offered = {tool.name for tool in request.tools}
        if request.must_answer or any(call.name not in offered for call in calls):
            raise ProviderError(self.name, f"script called a tool the request does not offer ({request.role})")
        blocks = tuple({"type": "tool_use", "id": c.id, "name": c.name, "input": c.input} for c in calls)
        usage = Usage(input_tokens=_prompt_chars(request) // 4 + 1, output_tokens=len(json.dumps(blocks)) // 4 + 1,
                      calls=1)
        return ModelResponse("", None, usage, request.model or self.model, "tool_use", tool_calls=calls,
                             blocks=blocks)


def _prompt_chars(request: ModelRequest) -> int:
    return len(request.system) + sum(content_chars(m.content) for m in request.messages)


class ScriptedBatchExecutor:
    """A batch executor over a scripted provider (a test double): ``submit`` keeps the requests,
    a batch reads ``in_progress`` for ``polls`` status calls and then ``ended``, and ``results``
    answers each request through the provider; ``fate(custom_id, request)`` may say ``"errored"``,
    ``"expired"`` or ``"canceled"`` instead of ``"succeeded"``. ``submitted`` lists every batch's ids."""

    name = ScriptedProvider.name

    def __init__(self, provider: ScriptedProvider, polls: int = 0, fate: Callable | None = None):
        self.provider = provider
        self.polls = polls
        self.fate = fate or (lambda custom_id, request: "succeeded")
        self.submitted: list[list[str]] = []
        self._batches: dict[str, dict] = {}

    async def submit(self, requests) -> str:
        batch_id = f"scripted_batch_{len(self.submitted) + 1}"
        self.submitted.append(sorted(requests))
        self._batches[batch_id] = {"requests": dict(requests), "polls": self.polls, "cancelled": False}
        return batch_id

    async def status(self, batch_id: str):
        from colosseum.models.executor import BatchStatus

        batch = self._batches[batch_id]
        total = len(batch["requests"])
        if batch["polls"] > 0 and not batch["cancelled"]:
            batch["polls"] -= 1
            return BatchStatus(batch_id, "in_progress", 0, total)
        return BatchStatus(batch_id, "ended", total, total)

    async def results(self, batch_id: str) -> dict:
        from colosseum.models.executor import CallOutcome

        batch, outcomes = self._batches[batch_id], {}
        for custom_id, request in batch["requests"].items():
            fate = "canceled" if batch["cancelled"] else self.fate(custom_id, request)
            if fate != "succeeded":
                outcomes[custom_id] = CallOutcome.failed(request.role, ProviderError(self.name, f"batch item {fate}"))
                continue
            try:
                outcomes[custom_id] = CallOutcome.answered(request.role, await self.provider.complete(request))
            except ProviderError as error:
                outcomes[custom_id] = CallOutcome.failed(request.role, error)
        return outcomes

    async def cancel(self, batch_id: str) -> None:
        self._batches[batch_id]["cancelled"] = True
