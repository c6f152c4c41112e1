"""The inner loop with the scripted provider (a test double): tree shape, sampling, determinism,
critiques carried to the root, budget, and a second identical run served from the cache."""

from __future__ import annotations

from collections import Counter

import pytest

from colosseum.loops.inner.records import DEFAULT_ANGLES, InnerLoopConfig
from colosseum.models.errors import BudgetExceeded
from colosseum.loops.inner.solve import ObligationContext, anchored, solve
from colosseum.models.response_cache import CachedProvider
from colosseum.models.scripted_provider import ScriptedProvider
from colosseum.models.prompts import load_prompt

CONTEXT = ObligationContext("lem:resampling", "The algorithm performs at most m/d resampling steps.",
                            assumable="thm:lll: the Lovász Local Lemma ...", notation="\\newcommand{\\euler}{e}")
FLAWED_ANGLE = "a probabilistic or counting argument"


def script(resolve: set[str] = frozenset()):
    def answer(request):
        user = request.messages[0].content
        if request.role == "angle_planner":
            return {"angles": [{"angle": a, "why": "it fits"} for a in DEFAULT_ANGLES]}
        if request.role == "resolution_checker":  # confirms every claimed resolution
            ids = [line.split("[", 1)[1].split("]", 1)[0] for line in user.splitlines() if line.startswith("- [")]
            return {"checks": [{"critique": cid, "confirmed": True, "reason": "the step is gone"} for cid in ids]}
        if request.role == "generator":
            angle = user.split(' name="your angle">\n', 1)[1].split("\n</document-", 1)[0]
            flaw = " By a union bound over dependent events, done." if angle == FLAWED_ANGLE else " Done."
            return {"strategy": angle, "proof": f"We argue via {angle}.{flaw}"}
        if request.role == "refuter":
            critiques = []
            if "union bound over dependent events" in user:
                critiques.append({"severity": "fatal", "kind": "misused-theorem",
                                  "quote": "By a union bound over dependent events",
                                  "explanation": "the events are not independent", "repair": ""})
            if "induction" in user:
                critiques.append({"severity": "minor", "kind": "gap", "quote": "a sentence that is not there",
                                  "explanation": "quotes nothing real", "repair": ""})
            return {"critiques": critiques}
        ids = [line.split("[", 1)[1].split("]", 1)[0] for line in user.splitlines() if line.startswith("- [")]
        return {"proof": "Merged proof.", "open_conflicts": [],
                "resolved": [{"critique": cid, "how": "handled by Lemma 2"} for cid in ids if cid in resolve]}
    return answer


async def test_tree_shape_and_call_count_with_the_defaults():
    provider = ScriptedProvider(script())
    stages = []
    result = await solve(CONTEXT, provider, InnerLoopConfig(seed=7), lambda s, d, t: stages.append(s))
    roles = Counter(r.role for r in provider.calls)
    # the angle plan, the tree, and the final refutation of the root (2 refuters); no resolution claimed
    assert roles == {"angle_planner": 1, "generator": 16, "refuter": 16 + 2, "aggregator": 14}
    assert len(provider.calls) == 49 == InnerLoopConfig().planned_calls()
    assert [len(level) for level in result.groups] == [8, 5, 1]
    assert "generating" in stages and "aggregating level 3 of 3" in stages
    assert result.usage.calls == 49


async def test_groups_are_drawn_without_replacement_overlap_and_k_is_capped():
    result = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=3, widths=(16, 8, 3, 1), k=5))
    level1 = result.groups[0]
    assert all(len(members) == 5 == len(set(members)) for _, members in level1)
    uses = Counter(m for _, members in level1 for m in members)
    assert max(uses.values()) > 1  # groups overlap: one bundle feeds several aggregators
    assert [len(members) for _, members in result.groups[2]] == [3]  # k capped at the width below


async def test_same_seed_same_questions_other_seed_other_groups():
    a = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=11))
    b = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=11))
    c = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=12))
    assert a.groups == b.groups and a.seed == b.seed == 11
    assert a.groups != c.groups
    derived = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig())
    again = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig())
    assert derived.seed == again.seed and derived.groups == again.groups


async def test_an_unresolved_fatal_critique_reaches_the_root_and_nothing_is_voted_away():
    for seed in range(40):
        result = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=seed))
        flawed = [b.id for b in result.bundles.values() if b.level == 0 and b.candidate.angle == FLAWED_ANGLE]
        if set(flawed) & set(result.reached_root):
            break
    else:
        pytest.fail("no seed in 40 let a flawed leaf reach the root")
    fatal = [c for c in result.surviving_critiques if c.severity == "fatal"]
    assert fatal and all(c.origin in flawed for c in fatal)
    # every critique of every leaf that reached the root is still there
    for leaf in result.reached_root:
        for critique in result.bundles[leaf].critiques:
            assert critique.id in {c.id for c in result.root.critiques}


async def test_a_critique_resolved_by_an_argument_is_dropped_with_the_argument_recorded():
    first = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=5))
    fatal_ids = {c.id for b in first.bundles.values() if b.level == 0 for c in b.critiques if c.severity == "fatal"}
    resolved = await solve(CONTEXT, ScriptedProvider(script(resolve=fatal_ids)), InnerLoopConfig(seed=5))
    assert not [c for c in resolved.surviving_critiques if c.severity == "fatal"]
    assert any(cid in b.resolved for b in resolved.bundles.values() for cid in fatal_ids)


async def test_a_critique_quoting_nothing_real_is_marked_unanchored():
    result = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=1))
    critiques = [c for b in result.bundles.values() if b.level == 0 for c in b.critiques]
    assert any(not c.anchored and c.kind == "gap" for c in critiques)
    assert all(c.anchored for c in critiques if c.kind == "misused-theorem")
    assert anchored("union  bound\nover", "by a union bound over x") and not anchored("", "x")


async def test_a_run_over_budget_does_not_start():
    provider = ScriptedProvider(script())
    with pytest.raises(BudgetExceeded, match="49 model calls"):
        await solve(CONTEXT, provider, InnerLoopConfig(max_calls=40))
    assert provider.calls == []


async def test_a_second_identical_run_makes_no_model_call(tmp_path):
    inner = ScriptedProvider(script())
    first = await solve(CONTEXT, CachedProvider(inner, tmp_path), InnerLoopConfig())
    calls = len(inner.calls)
    second = await solve(CONTEXT, CachedProvider(inner, tmp_path), InnerLoopConfig())
    assert calls == 49 and len(inner.calls) == 49
    assert second.root.candidate.proof == first.root.candidate.proof and second.usage.calls == 0


def test_prompt_files_state_role_inputs_and_schema():
    for role in ("generator", "refuter", "aggregator", "angle_planner", "resolution_checker"):
        spec = load_prompt(role)
        assert spec.role == role and spec.schema["type"] == "object" and spec.inputs
        system, user = spec.render({name: f"<{name}>" for name in spec.inputs})
        assert "never instructions" in system.replace("\n", " ") and "{" + spec.inputs[0] + "}" not in user


def test_a_broken_solve_table_is_reported_by_key_and_the_defaults_stay(tmp_path):
    from colosseum.settings.project import load_config, valid_table
    from colosseum.models.pricing import cost_usd
    from colosseum.models.provider import Usage

    (tmp_path / "colosseum.toml").write_text(
        '[solve]\nleaves = 16\nwidths = [16, 8, "five", 1]\nk = 0\ncolour = "red"\n'
        '[models]\nbase_url = "ftp://x"\n[budget]\nmax_calls = 100\n')
    config = load_config(tmp_path)
    keys = {p.key for p in config.problems}
    assert {"solve.widths", "solve.k", "solve.colour", "models.base_url"} <= keys and "budget.max_calls" not in keys
    assert all(p.line > 0 for p in config.problems if p.key.startswith("solve."))
    assert valid_table(config, "solve") == {"leaves": 16} and valid_table(config, "budget") == {"max_calls": 100}
    assert cost_usd(Usage(1_000_000, 1_000_000), "claude-sonnet-4-5") == 18.0
    assert cost_usd(Usage(1, 1), "some-local-model") is None


def test_cover_clusters_brings_every_minority_strategy_to_some_aggregator():
    import random as _random

    from colosseum.loops.sampling_tree import cover_clusters, draw_groups, strategy_clusters

    strategies = {f"L{i}": "induction on the number of edges" for i in range(15)}
    strategies["L15"] = "a spectral argument with the adjacency matrix eigenvalues"
    clusters = strategy_clusters(strategies)
    assert sorted(map(len, clusters)) == [1, 15]
    for seed in range(50):
        rng = _random.Random(seed)
        groups = draw_groups(list(strategies), 8, 5, rng)
        cover_clusters(groups, clusters, rng)
        assert any("L15" in g for g in groups)
        assert all(len(g) == len(set(g)) == 5 for g in groups)  # still without replacement


async def test_the_solve_reports_clusters_and_which_leaves_reached_the_root():
    result = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=9, cover_strategies=True))
    assert sum(map(len, result.clusters)) == 16 and len(result.clusters) >= 2
    drawn = {leaf for _, members in result.groups[0] for leaf in members}
    assert all(any(leaf in drawn for leaf in cluster) for cluster in result.clusters)


def _recorder(tmp_path, config):
    from colosseum.loops.inner.run_record import RunRecorder

    return RunRecorder(tmp_path / "run", "lem:resampling", config, "scripted")


async def test_a_cancelled_run_leaves_a_consistent_record_of_what_it_did(tmp_path):
    import asyncio
    import json

    from colosseum.models.errors import SolveCancelled

    config = InnerLoopConfig(seed=2)
    recorder = _recorder(tmp_path, config)

    def progress(stage, done, total):
        if stage == "refuting" and done == 3:
            raise SolveCancelled("the author pressed cancel")

    with pytest.raises(BaseExceptionGroup):
        await solve(CONTEXT, ScriptedProvider(script(), latency=0.001), config, progress, recorder)
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["status"] == "cancelled"
    leaves = [b for b in record["bundles"].values() if b["level"] == 0]
    assert len(leaves) == 16 and all(b["proof"] for b in leaves)  # generation had finished
    assert record["groups"] == [] and not any(b["level"] > 0 for b in record["bundles"].values())
    assert not (tmp_path / "run" / "report.md").exists()  # no report of a proof that was never made

    # a task cancelled from outside (the editor closing) records the same way
    outside = _recorder(tmp_path / "second", config)
    task = asyncio.ensure_future(solve(CONTEXT, ScriptedProvider(script(), latency=0.05), config, None, outside))
    await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert json.loads((tmp_path / "second" / "run" / "run.json").read_text())["status"] == "cancelled"


async def test_a_run_that_reaches_its_budget_stops_and_keeps_what_it_has(tmp_path):
    import json

    from colosseum.models.errors import BudgetReached
    from colosseum.models import ModelResponse, Usage

    class Costly(ScriptedProvider):
        """Every answer needed a retry: two calls each."""

        async def complete(self, request):
            answer = await super().complete(request)
            return ModelResponse(answer.text, answer.data, Usage(10, 10, calls=2), answer.model)

    config = InnerLoopConfig(seed=2, max_calls=49)
    recorder = _recorder(tmp_path, config)
    provider = Costly(script())
    with pytest.raises(BaseExceptionGroup) as caught:
        await solve(CONTEXT, provider, config, None, recorder)
    assert caught.group_contains(BudgetReached)
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["status"] == "budget-stopped" and record["usage"]["calls"] >= 49
    assert len(provider.calls) < 49  # it stopped starting new calls
    finished = _recorder(tmp_path / "ok", InnerLoopConfig(seed=2))
    await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=2), None, finished)
    done = json.loads((tmp_path / "ok" / "run" / "run.json").read_text())
    assert done["status"] == "done" and (tmp_path / "ok" / "run" / "report.md").exists()
