"""The OpenAI-compatible provider (httpx) against a local chat-completions double, and the
on-disk response cache."""

from __future__ import annotations

import json

import pytest

from colosseum.models import Message, ModelRequest, ProviderError
from colosseum.models.openai_compatible import OpenAICompatibleProvider
from colosseum.models.response_cache import CachedProvider
from colosseum.models.scripted_provider import ScriptedProvider
from doubles.messages_api import ChatCompletionsDouble, chat_answer, error

SCHEMA = {"type": "object", "required": ["proof"], "properties": {"proof": {"type": "string"}},
          "additionalProperties": False}


def request(schema=SCHEMA) -> ModelRequest:
    return ModelRequest(system="context", messages=(Message("user", "Prove it."),), schema=schema,
                        max_tokens=300, temperature=0.7, role="generator")


def provider(server, **kwargs):
    slept = []

    async def sleep(seconds):
        slept.append(seconds)

    return OpenAICompatibleProvider("local-model", server.url, api_key="k", sleep=sleep, timeout=5, **kwargs), slept


async def test_request_shape_and_usage():
    with ChatCompletionsDouble([chat_answer(json.dumps({"proof": "By induction."}), prompt_tokens=80, cached=30)]) as s:
        p, _ = provider(s)
        response = await p.complete(request())
    sent = s.requests[0]
    assert sent["messages"][0] == {"role": "system", "content": "context"}
    assert sent["response_format"]["json_schema"]["schema"] == SCHEMA and sent["temperature"] == 0.7
    assert response.data == {"proof": "By induction."}
    assert (response.usage.input_tokens, response.usage.cache_read_tokens) == (50, 30)


async def test_retry_then_repair():
    script = [error(503, "unavailable", "later"), chat_answer("not json at all"), chat_answer('{"proof": "QED"}')]
    with ChatCompletionsDouble(script) as s:
        p, slept = provider(s)
        response = await p.complete(request())
    assert response.data == {"proof": "QED"} and response.attempts == 3 and len(slept) == 1
    assert "not valid JSON" in s.requests[2]["messages"][-1]["content"]


async def test_persistent_garbage_is_an_error():
    with ChatCompletionsDouble([chat_answer('{"wrong": 1}'), chat_answer('{"wrong": 2}')]) as s:
        p, _ = provider(s)
        with pytest.raises(ProviderError, match="malformed"):
            await p.complete(request())


async def test_the_cache_serves_an_unchanged_request_without_a_call(tmp_path):
    inner = ScriptedProvider(lambda req: {"proof": f"answer to {req.messages[0].content}"})
    cached = CachedProvider(inner, tmp_path / "cache")
    first = await cached.complete(request())
    again = await cached.complete(request())
    other = await cached.complete(ModelRequest("context", (Message("user", "Prove more."),), schema=SCHEMA))
    assert len(inner.calls) == 2 and cached.hits == 1
    assert again.data == first.data and again.cached and again.usage.calls == 0
    assert other.data["proof"].endswith("Prove more.")
    # a second process (a new wrapper on the same folder) is served from disk too
    fresh = CachedProvider(ScriptedProvider(lambda req: pytest.fail("should not be called")), tmp_path / "cache")
    assert (await fresh.complete(request())).data == first.data


async def test_a_torn_cache_file_is_asked_again(tmp_path):
    inner = ScriptedProvider(lambda req: {"proof": "fresh"})
    cached = CachedProvider(inner, tmp_path / "cache")
    await cached.complete(request())
    for path in (tmp_path / "cache").rglob("*.json"):
        path.write_text('{"text": "half')
    assert (await cached.complete(request())).data == {"proof": "fresh"} and len(inner.calls) == 2
