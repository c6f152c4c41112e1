"""``[models] max_concurrency``: the provider a project configures never has more than that many
requests in flight; the rest wait for a slot (events, no sleeps)."""

from __future__ import annotations

import asyncio

from colosseum.models.concurrency import ConcurrencyLimited
from colosseum.models.configured import configured_provider
from colosseum.models.provider import Message, ModelRequest, ModelResponse, Usage
from colosseum.models.response_cache import CachedProvider
from colosseum.settings import load_config, table


class GatedProvider:
    """Holds every call until the test opens its gate; counts the calls in flight."""

    name = "gated (test double)"
    model = "gated"

    def __init__(self):
        self.in_flight = 0
        self.max_in_flight = 0
        self.started = 0
        self.gates: list[asyncio.Event] = []
        self.progress = asyncio.Event()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.in_flight += 1
        self.started += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        gate = asyncio.Event()
        self.gates.append(gate)
        self.progress.set()
        await gate.wait()
        self.in_flight -= 1
        return ModelResponse("ok", None, Usage(calls=1), self.model, "end_turn")


def _request(n: int) -> ModelRequest:
    return ModelRequest(role="prover", system="s", messages=[Message("user", f"question {n}")])


async def _until(provider: GatedProvider, started: int) -> None:
    while provider.started < started:
        provider.progress.clear()
        await provider.progress.wait()


async def test_no_more_than_max_concurrency_calls_are_in_flight():
    gated = GatedProvider()
    limited = ConcurrencyLimited(gated, 2)
    tasks = [asyncio.create_task(limited.complete(_request(n))) for n in range(6)]
    released = 0
    while released < 6:
        await _until(gated, min(released + 2, 6))
        # every task has had its turn: those past the bound still wait for a slot
        await asyncio.wait(tasks, timeout=0)
        assert gated.in_flight == min(2, 6 - released)
        gated.gates[released].set()
        released += 1
    answers = await asyncio.gather(*tasks)
    assert [a.text for a in answers] == ["ok"] * 6
    assert gated.max_in_flight == 2 and gated.started == 6


async def test_a_bound_of_one_serialises_the_calls():
    gated = GatedProvider()
    limited = ConcurrencyLimited(gated, 1)
    tasks = [asyncio.create_task(limited.complete(_request(n))) for n in range(3)]
    for n in range(3):
        await _until(gated, n + 1)
        await asyncio.wait(tasks, timeout=0)
        assert gated.in_flight == 1 and gated.started == n + 1
        gated.gates[n].set()
    await asyncio.gather(*tasks)
    assert gated.max_in_flight == 1


def test_the_setting_reaches_the_configured_provider(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    (tmp_path / "colosseum.toml").write_text("[models]\nmax_concurrency = 3\n")
    config = load_config(tmp_path)
    assert config.problems == [] and table(config, "models").max_concurrency == 3
    provider, _model = configured_provider({"max_concurrency": 3}, tmp_path / "cache")
    assert isinstance(provider, CachedProvider) and isinstance(provider.inner, ConcurrencyLimited)
    assert provider.inner.limit == 3
    # the cache key is unchanged by the bound: the name and model are the provider's own
    assert provider.inner.name == provider.inner.inner.name and provider.inner.model == provider.inner.inner.model
    default, _ = configured_provider({}, None)
    assert isinstance(default, ConcurrencyLimited) and default.limit == 8
