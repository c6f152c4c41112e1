"""The inner loop as a dataflow: the tree drawn up front is the one the level-by-level loop drew
for the same seed; a refuter starts when its own candidate is ready and an aggregator when its
own inputs are, whatever the rest of the level does; cancellation stops every call in flight;
a dropped leaf leaves only the groups that drew it; the result does not depend on the order
calls finish in. Everything here is counted events on a gated double, never the wall clock."""

from __future__ import annotations

import asyncio
import json
import random
import zlib

import pytest

from colosseum.loops.inner.records import InnerLoopConfig
from colosseum.loops.inner.solve import solve
from colosseum.loops.sampling_tree import draw_tree
from colosseum.models.provider import ProviderError
from colosseum.models.scripted_provider import ScriptedProvider

from test_inner_loop import CONTEXT, script

# What the level-by-level loop (before the dataflow) drew for InnerLoopConfig(seed=7): recorded
# from that code, so a change of the RNG's use shows here.
SEED_7_TREE = [
    [("A1.0", ["L10", "L2", "L6", "L15", "L0"]), ("A1.1", ["L2", "L13", "L8", "L1", "L5"]),
     ("A1.2", ["L1", "L14", "L8", "L3", "L0"]), ("A1.3", ["L2", "L6", "L14", "L1", "L3"]),
     ("A1.4", ["L2", "L8", "L6", "L0", "L9"]), ("A1.5", ["L3", "L15", "L10", "L13", "L9"]),
     ("A1.6", ["L1", "L9", "L14", "L6", "L0"]), ("A1.7", ["L7", "L0", "L8", "L2", "L4"])],
    [("A2.0", ["A1.6", "A1.1", "A1.4", "A1.0", "A1.2"]), ("A2.1", ["A1.2", "A1.0", "A1.4", "A1.5", "A1.1"]),
     ("A2.2", ["A1.5", "A1.0", "A1.4", "A1.6", "A1.7"]), ("A2.3", ["A1.3", "A1.7", "A1.5", "A1.4", "A1.6"]),
     ("A2.4", ["A1.5", "A1.3", "A1.4", "A1.6", "A1.2"])],
    [("A3.0", ["A2.2", "A2.1", "A2.0", "A2.4", "A2.3"])],
]
SEED_7_ROOT_CRITIQUES = ["L3.r0.0", "L10.r0.0", "L2.r0.0"]
# InnerLoopConfig(seed=0, leaves=8, widths=(8, 2, 1), k=3, cover_strategies=True), same origin:
# covering the clusters swapped L1 and L5 in, drawing from the same RNG between levels 1 and 2.
COVER_SEED_0_TREE = [[("A1.0", ["L6", "L7", "L3"]), ("A1.1", ["L5", "L2", "L4"])], [("A2.0", ["A1.1", "A1.0"])]]


async def test_the_tree_drawn_up_front_is_the_level_by_level_tree_of_the_same_seed():
    assert draw_tree([f"L{i}" for i in range(16)], (16, 8, 5, 1), 5, random.Random(7)) == SEED_7_TREE
    result = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=7))
    assert result.groups == SEED_7_TREE
    assert [c.id for c in result.root.critiques] == SEED_7_ROOT_CRITIQUES
    covered = await solve(CONTEXT, ScriptedProvider(script()),
                          InnerLoopConfig(seed=0, leaves=8, widths=(8, 2, 1), k=3, cover_strategies=True))
    assert covered.groups == COVER_SEED_0_TREE and covered.covered_by_swap == ["L1", "L5"]


class GatedProvider:
    """Answers like ``script()``; the call whose slot is ``held`` waits for ``release``. Every start
    is logged by slot; ``cancelled`` lists the calls that were cancelled while in flight."""

    name = "gated double"
    model = "gated"

    def __init__(self, held: str = "", hold_role: str = ""):
        self.inner = ScriptedProvider(script())
        self.held, self.hold_role = held, hold_role
        self.release = asyncio.Event()
        self.first_held = asyncio.Event()
        self.started: list[str] = []
        self.cancelled: list[str] = []

    async def count_tokens(self, request) -> int:
        return 1

    async def complete(self, request):
        slot = next(s for s in _slots(request) if s)
        self.started.append(slot)
        if slot == self.held or request.role == self.hold_role:
            self.first_held.set()
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled.append(slot)
                raise
        return await self.inner.complete(request)


def _slots(request):
    """The slot named in the prompt (prover i of n, referee r of candidate L, aggregator A)."""
    user = request.messages[0].content
    for marker in ("prover ", "referee ", "aggregator A"):
        at = user.find("(" + marker)
        if at >= 0:
            yield user[at + 1:user.index(")", at)]
    yield request.role


async def idle() -> None:
    """Let every task that can run, run (the double answers without waiting, except the held call)."""
    for _ in range(500):
        await asyncio.sleep(0)


def blocked_by(tree, held_leaf: str) -> set[str]:
    blocked = {held_leaf}
    for level in tree:
        for name, members in level:
            if any(m in blocked for m in members):
                blocked.add(name)
    return blocked


@pytest.mark.parametrize("held, held_leaf", [("prover 1 of 6", "L0"), ("referee 2 of candidate L0", "L0")])
async def test_each_node_starts_when_its_own_inputs_are_ready(held, held_leaf):
    config = InnerLoopConfig(seed=4, leaves=6, widths=(6, 3, 2, 1), k=2, refuters_per_candidate=2)
    tree = draw_tree([f"L{i}" for i in range(6)], config.widths, config.k, random.Random(4))
    blocked = blocked_by(tree, held_leaf)
    free = {name for level in tree for name, _ in level} - blocked
    assert free == {"A1.0", "A1.2", "A2.0"}  # the fixture has free aggregators on two levels

    provider = GatedProvider(held)
    run = asyncio.ensure_future(solve(CONTEXT, provider, config))
    await provider.first_held.wait()
    await idle()
    assert not run.done()
    started = set(provider.started)
    siblings = {f"referee {r} of candidate L{i}" for i in range(6) if f"L{i}" != held_leaf for r in (1, 2)}
    assert siblings <= started  # the other candidates' refuters did not wait for the held call
    assert {s.split()[-1] for s in started if s.startswith("aggregator")} == free  # exactly those with inputs
    provider.release.set()
    result = await run
    assert result.groups == tree and result.root.id == "A3.0"
    assert len(provider.started) == 1 + 6 + 12 + 6 + 2  # the angle plan, the tree, the final round


async def test_cancelling_the_run_cancels_every_call_in_flight_and_records_it(tmp_path):
    from colosseum.loops.inner.run_record import RunRecorder

    config = InnerLoopConfig(seed=4, leaves=6, widths=(6, 3, 2, 1), k=2)
    recorder = RunRecorder(tmp_path / "run", "lem:resampling", config, "gated")
    provider = GatedProvider(hold_role="aggregator")  # every aggregator call waits, forever
    run = asyncio.ensure_future(solve(CONTEXT, provider, config, None, recorder))
    await provider.first_held.wait()
    await idle()
    in_flight = [s for s in provider.started if s.startswith("aggregator")]
    assert in_flight and not run.done()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert sorted(provider.cancelled) == sorted(in_flight)  # every held call got the cancellation
    assert len(provider.started) == 1 + 6 + 6 + len(in_flight)  # the angle plan, the leaves; nothing after
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["status"] == "cancelled"
    assert sorted(b for b, v in record["bundles"].items() if v["level"] == 0) == [f"L{i}" for i in range(6)]
    assert record["groups"] == []  # no aggregator finished


def failing(slot: str):
    answer = script()

    def scripted(request):
        if f"({slot})" in request.messages[0].content:
            return ProviderError("scripted", "HTTP 529 overloaded")
        return answer(request)
    return scripted


async def test_a_dropped_leaf_leaves_only_the_groups_that_drew_it():
    config = InnerLoopConfig(seed=7)
    provider = ScriptedProvider(failing("prover 3 of 16"))
    result = await solve(CONTEXT, provider, config)
    assert [(d.candidate, d.stage) for d in result.dropped] == [("L2", "generation")]
    assert "L2" not in result.bundles
    assert not any("candidate L2" in r.messages[0].content for r in provider.calls if r.role == "refuter")
    without_l2 = [[(name, [m for m in members if m != "L2"]) for name, members in level] for level in SEED_7_TREE]
    assert result.groups == without_l2  # the rest of the tree is the tree of the seed


async def test_an_aggregator_left_with_no_input_is_skipped_and_its_parent_does_without_it():
    config = InnerLoopConfig(seed=3, leaves=4, widths=(4, 3, 1), k=2)
    tree = draw_tree([f"L{i}" for i in range(4)], config.widths, config.k, random.Random(3))
    assert tree == [[("A1.0", ["L1", "L2"]), ("A1.1", ["L1", "L3"]), ("A1.2", ["L3", "L2"])],
                    [("A2.0", ["A1.2", "A1.0"])]]
    both = failing("prover 2 of 4"), failing("prover 3 of 4")
    provider = ScriptedProvider(lambda request: both[0](request) if "(prover 2 of 4)" in request.messages[0].content
                                else both[1](request))
    result = await solve(CONTEXT, provider, config)
    assert [d.candidate for d in result.dropped] == ["L1", "L2"]
    assert "A1.0" not in result.bundles  # both its leaves were dropped: no call, no bundle
    assert not any("(aggregator A1.0)" in r.messages[0].content for r in provider.calls)
    assert result.groups == [[("A1.1", ["L3"]), ("A1.2", ["L3"])], [("A2.0", ["A1.2"])]]
    assert result.root.sources == ("A1.2",) and result.reached_root == ["L3"]


class ShuffledProvider(ScriptedProvider):
    """The scripted answers, each after a number of loop turns that depends on ``salt``: the calls
    finish in another order for each salt, with no clock involved."""

    def __init__(self, salt: int):
        super().__init__(script())
        self.salt = salt

    async def complete(self, request):
        turns = zlib.crc32(f"{self.salt}{request.messages[0].content}".encode()) % 7
        for _ in range(turns):
            await asyncio.sleep(0)
        return await super().complete(request)


async def test_the_result_does_not_depend_on_the_order_calls_finish_in():
    def summary(result):
        return (result.groups, list(result.bundles), [(b.candidate.proof, [c.id for c in b.critiques])
                                                      for b in result.bundles.values()], result.reached_root)

    config = InnerLoopConfig(seed=5, refuters_per_candidate=2)
    first, second = [summary(await solve(CONTEXT, ShuffledProvider(salt), config)) for salt in (1, 2)]
    assert first == second


def test_the_bench_critical_path_is_the_longest_chain_of_recorded_latencies(monkeypatch):
    from pathlib import Path
    from types import SimpleNamespace

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "bench"))
    from inner_loop_bench import call_node, critical_path, level_by_level

    assert [call_node(f"... ({slot}) ...") for slot in ("prover 4 of 16", "referee 1 of candidate L3",
                                                      "aggregator A1.2")] == ["L3", "L3.r0", "A1.2"]
    spans = {"L0": (0, 1), "L0.r0": (1, 5), "L1": (0, 3), "L1.r0": (3, 4),
             "A1.0": (5, 6), "A1.1": (4, 9), "A2.0": (9, 10)}
    result = SimpleNamespace(groups=[[("A1.0", ["L0", "L1"]), ("A1.1", ["L1"])], [("A2.0", ["A1.0", "A1.1"])]],
                             root=SimpleNamespace(id="A2.0"))
    assert critical_path(spans, result, 1) == 3 + 1 + 5 + 1  # L1, its referee, A1.1, the root
    assert level_by_level(spans) == 3 + 4 + 5 + 1  # each stage's slowest call


async def test_a_cancellation_from_the_progress_callback_stops_the_run_before_its_next_call():
    from colosseum.models.errors import SolveCancelled

    cancelled = []

    def progress(stage, done, total):  # research's way: the author's cancel shows at the next report
        if cancelled:
            raise SolveCancelled("the author cancelled")
        if stage == "generating" and done == 1:
            cancelled.append(True)  # pressed after the first candidate, before anything else began

    provider = ScriptedProvider(script())  # answers at once: the first leaf is done before others start
    with pytest.raises(BaseExceptionGroup) as caught:
        await solve(CONTEXT, provider, InnerLoopConfig(seed=1, leaves=4, widths=(4, 1)), progress)
    assert caught.group_contains(SolveCancelled)
    assert [r.role for r in provider.calls] == ["angle_planner", "generator"]  # no refuter, no other prover
