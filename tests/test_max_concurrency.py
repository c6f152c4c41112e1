"""``[models] max_concurrency``: the provider a project configures never has more than that many
requests in flight; the rest wait for a slot. A stand-in for the SDK's client holds every stream
open until the test releases it (events, no sleeps)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from colosseum.models.anthropic_provider import AnthropicProvider
from colosseum.models.configured import configured_provider
from colosseum.models.provider import Message, ModelRequest
from colosseum.models.response_cache import CachedProvider
from colosseum.settings import load_config, table


class GatedClient:
    """``client.messages.stream(...)``: each stream waits for its gate; calls in flight are counted."""

    def __init__(self):
        self.in_flight = self.max_in_flight = self.started = 0
        self.gates: list[asyncio.Event] = []
        self.progress = asyncio.Event()
        self.messages = SimpleNamespace(stream=lambda **kwargs: _Stream(self))

    async def until_started(self, count: int) -> None:
        while self.started < count:
            self.progress.clear()
            await self.progress.wait()


class _Stream:
    def __init__(self, client: GatedClient):
        self.client = client

    async def __aenter__(self):
        c = self.client
        c.in_flight, c.started = c.in_flight + 1, c.started + 1
        c.max_in_flight = max(c.max_in_flight, c.in_flight)
        gate = asyncio.Event()
        c.gates.append(gate)
        c.progress.set()
        await gate.wait()
        return self

    async def __aexit__(self, *exc):
        self.client.in_flight -= 1

    async def __aiter__(self):
        yield SimpleNamespace(type="message_stop")

    async def get_final_message(self):
        return SimpleNamespace(content=[SimpleNamespace(type="text", text="ok")], model="m", stop_reason="end_turn",
                               usage=SimpleNamespace(input_tokens=1, output_tokens=1))


def _request(n: int) -> ModelRequest:
    return ModelRequest("system", (Message("user", f"question {n}"),), role="generator")


async def _run_bounded(limit: int, calls: int) -> GatedClient:
    client = GatedClient()
    provider = AnthropicProvider("m", client=client, max_concurrency=limit)
    tasks = [asyncio.create_task(provider.complete(_request(n))) for n in range(calls)]
    for released in range(calls):
        await client.until_started(min(released + limit, calls))
        # the others have had their turn (a wait without a timer): those past the bound still wait
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED, timeout=0)
        assert client.in_flight == min(limit, calls - released)
        client.gates[released].set()
    answers = await asyncio.gather(*tasks)
    assert [a.text for a in answers] == ["ok"] * calls
    return client


async def test_no_more_than_max_concurrency_requests_are_in_flight():
    client = await _run_bounded(2, 6)
    assert client.max_in_flight == 2 and client.started == 6


async def test_a_bound_of_one_serialises_the_requests():
    assert (await _run_bounded(1, 3)).max_in_flight == 1


def test_the_setting_reaches_the_configured_provider(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    (tmp_path / "colosseum.toml").write_text("[models]\nmax_concurrency = 3\n")
    config = load_config(tmp_path)
    assert config.problems == [] and table(config, "models").max_concurrency == 3
    provider, _model = configured_provider({"max_concurrency": 3}, tmp_path / "cache")
    assert isinstance(provider, CachedProvider) and provider.inner.max_concurrency == 3
    default, _ = configured_provider({}, None)
    assert default.max_concurrency == 8
    local, _ = configured_provider({"provider": "openai-compatible", "model": "m", "base_url": "http://localhost:1/v1",
                                    "max_concurrency": 2}, None)
    assert local.max_concurrency == 2
