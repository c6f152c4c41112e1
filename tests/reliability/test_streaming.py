"""Streamed answers through the real ``anthropic`` SDK against the local Messages-API double,
which speaks server-sent events as the API does. A stream that stalls mid-answer is given up after
``[models] idle_timeout_s`` without an event, counted as one failed attempt and retried up to
``max_attempts``. The stall is an Event the double waits on (released when the test ends), and
the tests count the attempts the double received, never wall time."""

from __future__ import annotations

import asyncio
import threading

import pytest

from doubles.messages_api import MessagesAPIDouble, error, stall, stream_error, text_answer, tool_answer

SCHEMA = {"type": "object", "properties": {"proof": {"type": "string"}}, "required": ["proof"]}


def provider_for(server, **models):
    from colosseum.models.configured import configured_provider

    settings = {"base_url": server.url, "idle_timeout_s": 0.5, "max_attempts": 2, **models}
    provider, _model = configured_provider(settings, None)
    provider.backoff_seconds = 0.0  # the retries' waits are not what these tests are about
    return provider


def ask(provider, schema=SCHEMA):
    from colosseum.models.provider import Message, ModelRequest

    request = ModelRequest("system", (Message("user", "prove it"),), schema=schema, role="generator")
    return asyncio.run(provider.complete(request))


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")


def test_every_call_is_streamed_and_the_events_make_the_answer():
    with MessagesAPIDouble([tool_answer({"proof": "By induction."}, input_tokens=70, output_tokens=30,
                                        cache_read=40)]) as server:
        answer = ask(provider_for(server))
    assert server.requests[0]["stream"] is True
    assert answer.data == {"proof": "By induction."} and answer.attempts == 1
    assert (answer.usage.input_tokens, answer.usage.output_tokens, answer.usage.cache_read_tokens) == (70, 30, 40)


def test_a_plain_text_answer_streams_too():
    with MessagesAPIDouble([text_answer("Plain words.")]) as server:
        answer = ask(provider_for(server), schema=None)
    assert answer.text == "Plain words." and answer.stop_reason == "end_turn"


def test_a_stream_that_stalls_is_one_failed_attempt_and_the_retry_answers():
    released = threading.Event()
    good = tool_answer({"proof": "Second time."})
    with MessagesAPIDouble([stall(good, released), good]) as server:
        answer = ask(provider_for(server))
        released.set()
    assert len(server.requests) == 2 and answer.attempts == 2
    assert answer.data == {"proof": "Second time."}


def test_streams_that_keep_stalling_end_after_max_attempts_with_a_clear_error():
    from colosseum.models.provider import ProviderError

    released = threading.Event()
    good = tool_answer({"proof": "never finished"})
    with MessagesAPIDouble([], responder=lambda body: stall(good, released)) as server:
        with pytest.raises(ProviderError) as failed:
            ask(provider_for(server, max_attempts=3))
        released.set()
        asked = len(server.requests)
    assert asked == 3 and failed.value.attempts == 3
    assert "no event for 0.5 s" in str(failed.value)


def test_the_idle_limit_is_a_setting_not_the_whole_attempts_limit():
    with MessagesAPIDouble([]) as server:
        provider = provider_for(server, idle_timeout_s=7, request_timeout_s=120)
    assert provider.idle_timeout == 7 and provider.timeout == 120
    from colosseum.settings.tables import ModelsSettings

    assert ModelsSettings().idle_timeout_s == 60 and ModelsSettings().request_timeout_s == 300


def test_an_overloaded_error_event_mid_stream_is_retried():
    with MessagesAPIDouble([stream_error(), tool_answer({"proof": "After the overload."})]) as server:
        answer = ask(provider_for(server))
    assert len(server.requests) == 2 and answer.data == {"proof": "After the overload."}


def test_an_invalid_request_error_event_is_not_retried():
    from colosseum.models.provider import ProviderError

    with MessagesAPIDouble([stream_error("invalid_request_error", "bad input")]) as server:
        with pytest.raises(ProviderError) as failed:
            ask(provider_for(server))
    assert len(server.requests) == 1 and "bad input" in str(failed.value)


def test_a_status_error_before_the_stream_is_retried_as_before():
    with MessagesAPIDouble([error(529, "overloaded_error", "Overloaded", retry_after=0),
                            tool_answer({"proof": "Fine."})]) as server:
        answer = ask(provider_for(server))
    assert answer.attempts == 2 and answer.data == {"proof": "Fine."}
