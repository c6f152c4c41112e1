"""Claude through Anthropic's Messages API, with the ``anthropic`` SDK.

- Key from ``ANTHROPIC_API_KEY``; base URL overridable the SDK's way (``ANTHROPIC_BASE_URL`` or
  ``base_url=``), which is how a local server stands in for the API in tests.
- Structured answers through tool use (one tool whose input schema is the answer's schema, and
  ``tool_choice`` forcing it), validated against the schema, with one repair retry that tells the
  model what was wrong.
- A request with ``tools`` (the probes' ``run_python``) offers them beside the answer tool with
  ``tool_choice`` ``any``: a turn that calls them comes back as ``tool_calls`` with the turn's
  content blocks, for the tool-use loop (colosseum.models.tool_loop) to run and answer with
  ``tool_result`` blocks; ``must_answer`` forces the answer tool again (the loop's last request).
- The system prefix carries ``cache_control``: every leaf of a tree shares it.
- Every call is streamed (``messages.stream``): a long answer keeps the connection busy with its
  events, so a silence of ``idle_timeout`` seconds (the transport's read limit, which every event,
  ``ping`` included, resets) means a stalled stream and ends the attempt; the whole attempt is
  still limited to ``timeout`` seconds.
- Retries with exponential backoff (or the server's ``retry-after``) on 429, 529, other 5xx, an
  ``error`` event mid-stream that says overloaded, timeouts (idle or whole), connection errors and
  answers cut off (mid-JSON, or a stream that ends before ``message_stop``); the SDK's own retries
  are off so that one policy counts. There are ``max_attempts`` attempts.
- A semaphore bounds the calls in flight (`[models] max_concurrency`; a cached answer never waits for it).
- ``count_tokens`` asks the API's counter (``POST /v1/messages/count_tokens`` through
  ``client.messages.count_tokens``) with the same system, messages and answer tool as the call.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
from dataclasses import replace

from colosseum.core.extras import MissingExtra, import_extra
from colosseum.models.provider import ModelRequest, ModelResponse, ProviderError, ToolCall, Usage
from colosseum.models.retry import (DEFAULT_TIMEOUT_S, IDLE_TIMEOUT_S, attempts_of, repair_instruction,
                                    unreadable_answer, validate, with_retries)

DEFAULT_MODEL = "claude-sonnet-4-5"
ANSWER_TOOL = "answer"
RETRYABLE_STATUS = frozenset((408, 409, 429, 500, 502, 503, 504, 529))
# an `error` event arrives after the 200 header: its type says what the status would have said
STATUS_OF_STREAM_ERROR = {"overloaded_error": 529, "api_error": 500, "rate_limit_error": 429,
                          "timeout_error": 504}


def anthropic_client(name: str, api_key: str | None, base_url: str | None, **options):
    """The SDK's async client with the key given or ANTHROPIC_API_KEY; ProviderError (a message the
    author reads) when the extra is not installed or there is no key."""
    try:
        anthropic = import_extra("anthropic", "models")
    except MissingExtra as exc:
        raise ProviderError(name, exc.message) from exc
    key = api_key or os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        raise ProviderError(name, "no API key: set ANTHROPIC_API_KEY")
    return anthropic.AsyncAnthropic(api_key=key, base_url=base_url, **options)

class AnthropicProvider:
    name = "anthropic"
    exact_token_counts = True  # the Messages API has a counter
    supports_tools = True

    def __init__(self, model: str = DEFAULT_MODEL, *, api_key: str | None = None, base_url: str | None = None,
                 max_concurrency: int = 8, max_attempts: int | None = None, max_retries: int | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S, idle_timeout: float = IDLE_TIMEOUT_S, backoff_seconds: float = 1.0,
                 max_backoff_seconds: float = 60.0, sleep=asyncio.sleep, client=None):
        self.model = model
        self.max_attempts = attempts_of(max_attempts, max_retries)
        self.timeout = timeout  # per attempt, whole
        self.idle_timeout = min(idle_timeout, timeout)  # the longest silence of a stream
        self.backoff_seconds = backoff_seconds
        self.max_backoff_seconds = max_backoff_seconds
        self._sleep = sleep
        self.max_concurrency = max_concurrency  # [models] max_concurrency: requests in flight at once
        self._limit = asyncio.Semaphore(max_concurrency)
        if client is None:
            client = anthropic_client(self.name, api_key, base_url, max_retries=0, timeout=self.idle_timeout)
        self._client = client

    # ---- one request ---------------------------------------------------------------------------
    async def complete(self, request: ModelRequest) -> ModelResponse:
        async with self._limit:
            messages = _messages(request)
            response, usage, attempts = await self._call(request, messages)
            calls = _tool_calls(response) if request.tools else ()
            if calls:  # the model ran a tool instead of answering: the loop answers it
                return ModelResponse(_text_of(response), None, usage, response.model, response.stop_reason, attempts,
                                     tool_calls=calls, blocks=tuple(_block(b) for b in response.content))
            if request.schema is None:
                return ModelResponse(_text_of(response), None, usage, response.model, response.stop_reason, attempts)
            data, problem = _structured(response, request.schema)
            if problem is None:
                return ModelResponse(_text_of(response), data, usage, response.model, response.stop_reason, attempts)
            # one repair: show the model its answer and what is wrong with it
            repair = messages + [
                {"role": "assistant", "content": _text_of(response) or json.dumps(data or {})},
                {"role": "user", "content": repair_instruction(problem, f"by calling the `{ANSWER_TOOL}` tool "
                                                                         "with a valid input")},
            ]
            # the repair asks for the answer only: no tool run is due (and none could be answered)
            response, more, extra = await self._call(replace(request, must_answer=True), repair)
            usage, attempts = usage + more, attempts + extra
            data, problem = _structured(response, request.schema)
            if problem is not None:
                raise ProviderError(self.name, f"malformed structured answer after a repair: {problem}",
                                    attempts=attempts, details={"answer": _text_of(response)[:2000]})
            return ModelResponse(_text_of(response), data, usage, response.model, response.stop_reason, attempts)

    async def count_tokens(self, request: ModelRequest) -> int:
        """The input tokens of ``request`` as the API counts them (free of charge, not cached)."""
        async with self._limit:
            kwargs = self._arguments(request, _messages(request))
            kwargs.pop("max_tokens")
            counted, _attempts = await self._with_retries(lambda: self._client.messages.count_tokens(**kwargs))
            return int(counted.input_tokens)

    def _arguments(self, request: ModelRequest, messages: list[dict]) -> dict:
        # no temperature: current Claude models take none (the SDK no longer accepts it); diversity
        # across the leaves of a tree comes from their different prompts
        kwargs = {
            "model": request.model or self.model,
            "max_tokens": request.max_tokens,
            "system": [{"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}],
            "messages": messages,
        }
        if request.schema is not None:
            kwargs["tools"] = [{"name": ANSWER_TOOL, "description": "Give the answer in the required structure.",
                                "input_schema": request.schema}]
            kwargs["tool_choice"] = {"type": "tool", "name": ANSWER_TOOL}
        if request.thinking_tokens:
            # extended thinking cannot be combined with a forced tool: the answer tool is offered
            # with `auto` (the repair asks again when the model answers in text), and max_tokens
            # must leave room for the answer after the thinking
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_tokens}
            kwargs["max_tokens"] = request.thinking_tokens + request.max_tokens
            if "tool_choice" in kwargs:
                kwargs["tool_choice"] = {"type": "auto"}
        if request.tools:  # the transcript may hold their tool_use blocks: they stay defined to the end
            kwargs["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.input_schema}
                               for t in request.tools] + kwargs.get("tools", [])
            if not request.must_answer:
                kwargs["tool_choice"] = {"type": "any"}
        return kwargs

    async def _call(self, request: ModelRequest, messages: list[dict]):
        kwargs = self._arguments(request, messages)
        response, attempts = await self._with_retries(lambda: self._streamed(kwargs))
        return response, _usage(response), attempts

    async def _streamed(self, kwargs: dict):
        """One attempt, streamed; the message once ``message_stop`` has arrived. The client's
        timeout (``idle_timeout``) applies to every read, so a stream that stalls raises a timeout
        of the transport here."""
        async with self._client.messages.stream(**kwargs) as stream:
            last = None
            async for event in stream:
                last = event.type
            if last != "message_stop":
                raise ValueError("the stream ended before message_stop")
            return await stream.get_final_message()

    async def _with_retries(self, call):
        import anthropic

        silences, broken = _transport_errors()

        def classify(exc, attempt: int) -> ProviderError:
            if isinstance(exc, anthropic.APIStatusError):
                status = _status_of(exc)
                return ProviderError(self.name, _error_message(exc), status=status,
                                     request_id=getattr(exc, "request_id", None), retry_after=_retry_after(exc),
                                     retryable=status in RETRYABLE_STATUS, attempts=attempt)
            if isinstance(exc, TimeoutError):  # the whole attempt
                return ProviderError(self.name, f"request timed out (limit {self.timeout:g} s)", retryable=True,
                                     attempts=attempt)
            if isinstance(exc, (anthropic.APITimeoutError, *silences)):  # a silence mid-stream
                return ProviderError(self.name, f"request timed out: no event for {self.idle_timeout:g} s",
                                     retryable=True, attempts=attempt)
            if isinstance(exc, (anthropic.APIConnectionError, *broken)):
                return ProviderError(self.name, f"request connection failed: {exc}", retryable=True, attempts=attempt)
            if isinstance(exc, (ValueError, anthropic.APIResponseValidationError)):  # JSON cut off or not JSON
                return unreadable_answer(self.name, exc, attempt)
            raise exc

        return await with_retries(call, classify, sleep=self._sleep, max_attempts=self.max_attempts,
                                  backoff_seconds=self.backoff_seconds, max_backoff_seconds=self.max_backoff_seconds,
                                  timeout_s=self.timeout)


def _transport_errors() -> tuple[tuple, tuple]:
    """(timeouts, other transport failures) of the HTTP library under the SDK: read mid-stream they
    reach us unwrapped. The SDK has used ``httpx`` and, lately, its fork ``httpx2``."""
    silences, broken = [], []
    for name in ("httpx", "httpx2"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        silences.append(module.TimeoutException)
        broken.append(module.TransportError)
    return tuple(silences), tuple(broken)


def _usage(response) -> Usage:
    u = response.usage
    return Usage(u.input_tokens or 0, u.output_tokens or 0, getattr(u, "cache_read_input_tokens", 0) or 0,
                 getattr(u, "cache_creation_input_tokens", 0) or 0, calls=1)


def _messages(request: ModelRequest) -> list[dict]:
    return [{"role": m.role, "content": m.content if isinstance(m.content, str) else list(m.content)}
            for m in request.messages]


def _tool_calls(response) -> tuple[ToolCall, ...]:
    """The calls of tools other than the answer tool in one turn."""
    return tuple(ToolCall(b.id, b.name, b.input if isinstance(b.input, dict) else {}) for b in response.content
                 if getattr(b, "type", "") == "tool_use" and b.name != ANSWER_TOOL)


def _block(block) -> dict:
    """A content block of the model's turn as the API takes it back in the transcript."""
    if getattr(block, "type", "") == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if getattr(block, "type", "") == "text":
        return {"type": "text", "text": block.text}
    return block.model_dump(exclude_none=True)


def _text_of(response) -> str:
    return "".join(block.text for block in response.content if getattr(block, "type", "") == "text")


def _structured(response, schema: dict) -> tuple[dict | None, str | None]:
    """The tool input, checked against the schema: (data, None) or (data or None, problem)."""
    blocks = [b for b in response.content if getattr(b, "type", "") == "tool_use" and b.name == ANSWER_TOOL]
    if not blocks:
        return None, f"no call of the `{ANSWER_TOOL}` tool in the answer"
    data = blocks[0].input
    return (data if isinstance(data, dict) else None), validate(data, schema)


def _status_of(exc) -> int:
    """The HTTP status, or for an ``error`` event mid-stream (status 200) the one its type means."""
    if exc.status_code != 200:
        return exc.status_code
    body = exc.body if isinstance(getattr(exc, "body", None), dict) else {}
    error = body.get("error") if isinstance(body.get("error"), dict) else {}
    return STATUS_OF_STREAM_ERROR.get(error.get("type"), 400)


def _retry_after(exc) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _error_message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error") or {}
        if isinstance(error, dict) and error.get("message"):
            return f"{error.get('type', 'error')}: {error['message']}"
    return str(exc)
