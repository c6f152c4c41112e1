"""Token counts for long documents: the Messages API's counter through the real ``anthropic`` SDK
(against the local HTTP double), a labelled estimate where an API has no counter, and the cache
passing counts through."""

from __future__ import annotations

import pytest

from colosseum.models import Message, ModelRequest, ProviderError
from colosseum.models.anthropic_provider import AnthropicProvider
from colosseum.models.openai_compatible import OpenAICompatibleProvider
from colosseum.models.provider import estimate_tokens
from colosseum.models.response_cache import CachedProvider
from colosseum.models.scripted_provider import ScriptedProvider
from doubles.messages_api import MessagesAPIDouble, characters_over_four, error

SCHEMA = {"type": "object", "required": ["verdict"], "properties": {"verdict": {"enum": ["accepted", "rejected"]}}}


def request(system: str = "THE PAPER " * 300) -> ModelRequest:
    return ModelRequest(system=system, messages=(Message("user", "Review it."),), schema=SCHEMA, max_tokens=777)


async def _no_sleep(_seconds):
    return None


async def test_count_tokens_asks_the_api_counter_with_the_call_s_own_system_messages_and_tool():
    with MessagesAPIDouble([], token_counter=lambda body: 4242) as server:
        provider = AnthropicProvider("claude-test", api_key="sk-test", base_url=server.url)
        counted = await provider.count_tokens(request())
    assert counted == 4242
    assert server.requests == []  # no message was created: counting costs no call
    (sent,) = server.count_requests
    assert sent["model"] == "claude-test" and "max_tokens" not in sent  # the counter refuses max_tokens
    assert sent["system"][0]["text"] == "THE PAPER " * 300
    assert sent["messages"] == [{"role": "user", "content": "Review it."}]
    assert sent["tools"][0]["input_schema"] == SCHEMA and sent["tool_choice"]["name"] == "answer"


async def test_the_count_follows_the_request_and_retries_like_a_call():
    with MessagesAPIDouble([]) as server:
        provider = AnthropicProvider("claude-test", api_key="sk-test", base_url=server.url, sleep=_no_sleep)
        short, long = await provider.count_tokens(request("x" * 400)), await provider.count_tokens(request("x" * 4000))
        assert long - short == 900  # the double's rule: one token per four characters
        assert short == characters_over_four(server.count_requests[0])

    with MessagesAPIDouble([], token_counter=lambda body: 10) as server:
        server.count_script = [error(529, "overloaded_error", "Overloaded")]
        provider = AnthropicProvider("claude-test", api_key="sk-test", base_url=server.url, sleep=_no_sleep)
        assert await provider.count_tokens(request()) == 10  # the overloaded counter was asked again
        assert len(server.count_requests) == 2


async def test_a_refused_count_is_a_clear_provider_error():
    with MessagesAPIDouble([]) as server:
        server.count_script = [error(400, "invalid_request_error", "model: unknown model")]
        provider = AnthropicProvider("claude-nope", api_key="sk-test", base_url=server.url, sleep=_no_sleep)
        with pytest.raises(ProviderError, match="unknown model") as failure:
            await provider.count_tokens(request())
    assert failure.value.status == 400 and not failure.value.retryable and len(server.count_requests) == 1


async def test_an_openai_compatible_server_has_no_counter_so_the_count_is_a_labelled_estimate():
    provider = OpenAICompatibleProvider("local", "http://127.0.0.1:9")  # never contacted
    assert provider.exact_token_counts is False and AnthropicProvider.exact_token_counts is True
    req = request("y" * 4000)
    assert await provider.count_tokens(req) == estimate_tokens(req) > 1000


async def test_the_response_cache_passes_counts_through(tmp_path):
    scripted = ScriptedProvider(lambda r: {"verdict": "accepted"}, counter=lambda r: 31337)
    cached = CachedProvider(scripted, tmp_path)
    assert await cached.count_tokens(request()) == 31337 and cached.exact_token_counts
    assert len(scripted.count_requests) == 1 and scripted.calls == [] and cached.hits == cached.misses == 0
