"""Any server speaking the OpenAI chat-completions API (a local model server, another vendor),
over httpx, so that either model of a run can come from elsewhere. Same retry policy and the same
schema check with one repair as the Anthropic provider."""

from __future__ import annotations

import asyncio
import json
import os
from typing import TYPE_CHECKING

from colosseum.core.extras import MissingExtra, import_extra
from colosseum.models.provider import ModelRequest, ModelResponse, ProviderError, Usage, estimate_tokens
from colosseum.models.retry import (DEFAULT_TIMEOUT_S, IDLE_TIMEOUT_S, attempts_of, repair_instruction,
                                    unreadable_answer, validate, with_retries)

if TYPE_CHECKING:
    import httpx

RETRYABLE_STATUS = frozenset((408, 409, 429, 500, 502, 503, 504, 529))


class _Status(Exception):
    def __init__(self, response: httpx.Response):
        super().__init__(response.text[:500])
        self.response = response


class OpenAICompatibleProvider:
    # the chat-completions API has no token-counting endpoint: count_tokens is an estimate
    exact_token_counts = False

    def __init__(self, model: str, base_url: str, *, api_key: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 max_concurrency: int = 8, max_attempts: int | None = None, max_retries: int | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S,
                 backoff_seconds: float = 1.0, max_backoff_seconds: float = 60.0, sleep=asyncio.sleep):
        self.name = f"openai-compatible ({base_url})"
        try:
            self._httpx = import_extra("httpx", "models")  # imported on first use: a base install has no httpx
        except MissingExtra as exc:
            raise ProviderError(self.name, exc.message) from exc
        self.model = model
        self.base_url = base_url.rstrip("/")
        key = api_key if api_key is not None else os.environ.get(api_key_env, "")
        self._headers = {"authorization": f"Bearer {key}"} if key else {}
        self._timeout = min(timeout, IDLE_TIMEOUT_S)  # httpx's: the longest silence of the connection
        self.max_concurrency = max_concurrency  # [models] max_concurrency: requests in flight at once
        self._limit = asyncio.Semaphore(max_concurrency)
        self._retry = dict(sleep=sleep, max_attempts=attempts_of(max_attempts, max_retries), timeout_s=timeout,
                           backoff_seconds=backoff_seconds, max_backoff_seconds=max_backoff_seconds)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        async with self._limit:
            messages = [{"role": "system", "content": request.system}]
            messages += [{"role": m.role, "content": m.content} for m in request.messages]
            body, usage, attempts = await self._call(request, messages)
            text = _content(body)
            if request.schema is None:
                return ModelResponse(text, None, usage, body.get("model", self.model), _finish(body), attempts)
            data, problem = _parse(text, request.schema)
            if problem is not None:
                messages += [{"role": "assistant", "content": text},
                             {"role": "user", "content": repair_instruction(problem, "as one JSON object only")}]
                body, more, extra = await self._call(request, messages)
                usage, attempts, text = usage + more, attempts + extra, _content(body)
                data, problem = _parse(text, request.schema)
                if problem is not None:
                    raise ProviderError(self.name, f"malformed structured answer after a repair: {problem}",
                                        attempts=attempts, details={"answer": text[:2000]})
            return ModelResponse(text, data, usage, body.get("model", self.model), _finish(body), attempts)

    async def count_tokens(self, request: ModelRequest) -> int:
        """An ESTIMATE (``estimate_tokens``): this API has no counter endpoint, and the server's
        tokenizer is unknown to us. ``exact_token_counts`` is False so that reports say so."""
        return estimate_tokens(request)

    async def _call(self, request: ModelRequest, messages: list[dict]):
        httpx = self._httpx
        payload = {"model": request.model or self.model, "messages": messages, "max_tokens": request.max_tokens,
                   "temperature": request.temperature}
        if request.schema is not None:
            payload["response_format"] = {"type": "json_schema",
                                          "json_schema": {"name": "answer", "schema": request.schema}}

        async def call():
            async with httpx.AsyncClient(timeout=self._timeout) as client:
                response = await client.post(f"{self.base_url}/chat/completions", json=payload, headers=self._headers)
            if response.status_code >= 400:
                raise _Status(response)
            return response.json()

        def classify(exc, attempt: int) -> ProviderError:
            if isinstance(exc, _Status):
                status = exc.response.status_code
                retry_after = exc.response.headers.get("retry-after")
                try:
                    retry_after = float(retry_after) if retry_after is not None else None
                except ValueError:
                    retry_after = None
                return ProviderError(self.name, str(exc), status=status, retry_after=retry_after,
                                     request_id=exc.response.headers.get("x-request-id"),
                                     retryable=status in RETRYABLE_STATUS, attempts=attempt)
            if isinstance(exc, TimeoutError):
                return ProviderError(self.name, f"request timed out (limit {self._retry['timeout_s']:g} s)",
                                     retryable=True, attempts=attempt)
            if isinstance(exc, (httpx.TimeoutException, httpx.TransportError)):
                return ProviderError(self.name, f"request failed: {type(exc).__name__}: {exc}", retryable=True,
                                     attempts=attempt)
            if isinstance(exc, ValueError):  # a body cut off mid-JSON, or not JSON at all
                return unreadable_answer(self.name, exc, attempt)
            raise exc

        body, attempts = await with_retries(call, classify, **self._retry)
        raw = body.get("usage") or {}
        cached = (raw.get("prompt_tokens_details") or {}).get("cached_tokens", 0) or 0
        usage = Usage(raw.get("prompt_tokens", 0) - cached, raw.get("completion_tokens", 0), cached, 0, calls=1)
        return body, usage, attempts


def _content(body: dict) -> str:
    try:
        return body["choices"][0]["message"].get("content") or ""
    except (KeyError, IndexError, TypeError, AttributeError):
        return ""


def _finish(body: dict) -> str | None:
    try:
        return body["choices"][0].get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        return None


def _parse(text: str, schema: dict) -> tuple[dict | None, str | None]:
    candidate = text.strip()
    if candidate.startswith("```"):  # a fenced answer
        candidate = candidate.strip("`").split("\n", 1)[-1]
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at position {exc.pos})"
    return (data if isinstance(data, dict) else None), validate(data, schema)
