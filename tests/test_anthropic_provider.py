"""The Anthropic provider through the real SDK, against a local Messages-API double."""

from __future__ import annotations

import asyncio

import pytest

from colosseum.models import Message, ModelRequest, ProviderError
from colosseum.models.anthropic_provider import AnthropicProvider
from colosseum.models.scripted_provider import ScriptedProvider
from doubles.messages_api import MessagesAPIDouble, error, text_answer, tool_answer

SCHEMA = {"type": "object", "required": ["verdict", "reasons"], "additionalProperties": False,
          "properties": {"verdict": {"enum": ["accepted", "rejected"]},
                         "reasons": {"type": "array", "items": {"type": "string"}}}}
GOOD = {"verdict": "accepted", "reasons": ["the bound follows from Lemma 2"]}


def request(schema=SCHEMA, **kwargs) -> ModelRequest:
    return ModelRequest(system="PAPER CONTEXT " * 50, messages=(Message("user", "Review the proof."),),
                        schema=schema, max_tokens=512, temperature=0.3, role="refuter", **kwargs)


def provider(server, **kwargs) -> tuple[AnthropicProvider, list[float]]:
    slept: list[float] = []

    async def sleep(seconds):
        slept.append(seconds)

    kwargs.setdefault("timeout", 5.0)
    return AnthropicProvider("claude-test-model", api_key="sk-test", base_url=server.url, sleep=sleep,
                             **kwargs), slept


async def test_request_shape_cache_control_tools_and_usage():
    with MessagesAPIDouble([tool_answer(GOOD, input_tokens=1200, output_tokens=40, cache_read=1000,
                                        cache_write=0)]) as server:
        p, _ = provider(server)
        response = await p.complete(request())
    sent = server.requests[0]
    assert sent["model"] == "claude-test-model" and sent["max_tokens"] == 512 and "temperature" not in sent
    assert sent["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert sent["tools"][0]["input_schema"] == SCHEMA
    assert sent["tool_choice"] == {"type": "tool", "name": "answer"}
    assert sent["messages"] == [{"role": "user", "content": "Review the proof."}]
    headers = {k.lower(): v for k, v in server.headers[0].items()}
    assert "sk-test" in (headers.get("x-api-key", "") + headers.get("authorization", ""))  # the SDK's choice
    assert headers["anthropic-version"]
    assert response.data == GOOD
    assert (response.usage.input_tokens, response.usage.output_tokens, response.usage.cache_read_tokens) == (1200, 40, 1000)


async def test_plain_text_answers_have_no_tools():
    with MessagesAPIDouble([text_answer("A proof.")]) as server:
        p, _ = provider(server)
        response = await p.complete(request(schema=None))
    assert "tools" not in server.requests[0] and response.text == "A proof." and response.data is None


async def test_retries_on_429_and_529_honour_retry_after():
    script = [error(429, "rate_limit_error", "slow down", retry_after=7), error(529, "overloaded_error", "busy"),
              tool_answer(GOOD)]
    with MessagesAPIDouble(script) as server:
        p, slept = provider(server)
        response = await p.complete(request())
    assert len(server.requests) == 3 and response.attempts == 3 and response.data == GOOD
    assert slept[0] == 7 and 0 < slept[1] <= 60


async def test_gives_up_after_the_retry_budget_with_a_structured_error():
    with MessagesAPIDouble([error(529, "overloaded_error", "busy")] * 3) as server:
        p, slept = provider(server, max_retries=2)
        with pytest.raises(ProviderError) as caught:
            await p.complete(request())
    err = caught.value
    assert err.status == 529 and err.retryable and err.attempts == 3 and len(slept) == 2
    assert "overloaded_error: busy" in str(err) and err.request_id == "req_3"


async def test_a_bad_request_is_not_retried():
    with MessagesAPIDouble([error(400, "invalid_request_error", "max_tokens too large")]) as server:
        p, slept = provider(server)
        with pytest.raises(ProviderError) as caught:
            await p.complete(request())
    assert caught.value.status == 400 and not caught.value.retryable and slept == [] and len(server.requests) == 1


async def test_a_timeout_is_retried():
    with MessagesAPIDouble([("sleep", 2.0, tool_answer(GOOD)), tool_answer(GOOD)]) as server:
        p, slept = provider(server, timeout=0.5)
        response = await p.complete(request())
    assert response.data == GOOD and len(slept) == 1 and len(server.requests) == 2


async def test_a_malformed_tool_answer_gets_one_repair():
    bad = {"verdict": "maybe", "reasons": "none"}
    with MessagesAPIDouble([tool_answer(bad), tool_answer(GOOD)]) as server:
        p, _ = provider(server)
        response = await p.complete(request())
    assert response.data == GOOD and response.attempts == 2 and response.usage.calls == 2
    repair = server.requests[1]["messages"]
    assert repair[-1]["role"] == "user" and "verdict" in repair[-1]["content"]


async def test_a_second_malformed_answer_is_an_error_not_a_guess():
    with MessagesAPIDouble([tool_answer({"verdict": "maybe"}), tool_answer({"reasons": []})]) as server:
        p, _ = provider(server)
        with pytest.raises(ProviderError, match="malformed structured answer"):
            await p.complete(request())


async def test_the_concurrency_limit_holds():
    script = [("sleep", 0.2, tool_answer(GOOD)) for _ in range(8)]
    with MessagesAPIDouble(script) as server:
        p, _ = provider(server, max_concurrency=3)
        results = await asyncio.gather(*(p.complete(request()) for _ in range(8)))
    assert all(r.data == GOOD for r in results)
    assert server.max_in_flight == 3


def test_no_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider("claude-test-model")


async def test_the_scripted_double_answers_by_role_and_records_calls():
    double = ScriptedProvider(lambda req: GOOD if req.role == "refuter" else "text")
    answer = await double.complete(request())
    assert answer.data == GOOD and double.calls[0].role == "refuter" and "double" in double.name
