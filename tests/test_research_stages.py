"""The research pipeline's stages one by one, with the scripted provider (a test double):
the exploration tree and its adaptive widths, the readiness gate's rules, the choice of routes,
and cross-model selection."""

from __future__ import annotations

import pytest

from colosseum.loops.inner.solve import ObligationContext
from colosseum.models.scripted_provider import ScriptedProvider
from colosseum.models.budget import Budget
from colosseum.models.metered import MeteredProvider
from colosseum.loops.research.exploration import choose_routes, explore, widths_for
from colosseum.loops.research.readiness import judge
from colosseum.loops.research.records import EXPLORATION_WIDTHS, ResearchConfig, ResearchResult, StrategyCard
from doubles.research_script import ResearchScript
from colosseum.loops.research.selection import cross_model_select, decide
from colosseum.models import Usage

CONTEXT = ObligationContext("thm:goal", "Every admissible input has the property.", assumable="[lem:known] A fact.")


def metered(script) -> MeteredProvider:
    return MeteredProvider(ScriptedProvider(script), Budget.of_started_calls(None))


async def test_the_default_exploration_tree_keeps_a_main_route_and_distinct_alternatives():
    provider = metered(ResearchScript(distinct_fatal_flaws=True))
    config = ResearchConfig(seed=5)
    assert config.exploration_widths == EXPLORATION_WIDTHS == (32, 16, 8, 5, 1)
    result = await explore(CONTEXT, provider, config, seed=5)
    roles = [r.role for r in provider.inner.calls]
    assert roles.count("explorer") == 32 and roles.count("strategy_falsifier") == 32
    assert roles.count("strategy_aggregator") == 16 + 8 + 5 + 1
    assert [len(level) for level in result.groups] == [16, 8, 5, 1]
    assert all(len(set(m)) == 5 for _, m in result.groups[0])  # k = 5, drawn without replacement
    # every new batch found a new fatal flaw: the tree was not narrowed
    assert result.widths == (32, 16, 8, 5, 1) and result.calls_saved == 0
    # the scripted root offers a variant of the main route and a different mechanism: the variant goes
    assert "induction" in result.main.key_mechanism
    assert [c.key_mechanism for c in result.alternatives] == ["a probabilistic count of the bad configurations"]
    # the critiques that no aggregator resolved stay attached to the main route
    assert result.main.critiques and all(c.severity == "fatal" for c in result.main.critiques)


async def test_adaptive_widths_stop_widening_once_refutations_find_nothing_new():
    provider = metered(ResearchScript(distinct_fatal_flaws=False))  # every batch finds the same flaw
    result = await explore(CONTEXT, provider, ResearchConfig(seed=5, adaptive_widths=True), seed=5)
    assert [b["new_fatal_flaws"] for b in result.batches] == [1, 0]
    assert result.widths == (16, 8, 5, 1) and result.planned_widths == (32, 16, 8, 5, 1)
    made = len(provider.inner.calls)
    assert made == 16 + 16 + 8 + 5 + 1
    assert result.calls_saved == (32 + 32 + 16 + 8 + 5 + 1) - made


def test_a_narrower_tree_keeps_the_planned_widths_below_the_leaves():
    assert widths_for(16, (32, 16, 8, 5, 1)) == (16, 8, 5, 1)
    assert widths_for(24, (32, 16, 8, 5, 1)) == (24, 16, 8, 5, 1)
    assert widths_for(3, (32, 16, 8, 5, 1)) == (3, 1)


def test_routes_are_a_main_one_and_at_most_two_genuinely_different_alternatives():
    cards = [StrategyCard(f"c{i}", "goal", m) for i, m in enumerate(
        ["induction on the number of edges", "induction on the number of edges, twice", "a second moment bound",
         "an entropy compression argument", "a spectral bound on the adjacency matrix"])]
    main, alternatives = choose_routes(cards, 2)
    assert main.id == "c0" and [c.id for c in alternatives] == ["c2", "c3"]


READY = {"mechanism_stable": True, "skeleton_would_change": False, "ready": True, "fatal_bridges": [], "reasons": "ok",
         "open_claims": [{"statement": "a bound", "role": "estimate", "route": "Markov", "section": "bounds"}]}


@pytest.mark.parametrize("change, broken", [
    ({}, None),
    ({"fatal_bridges": [{"assumption": "independence", "why": "no route"}]}, "fatal bridge"),
    ({"mechanism_stable": False}, "not stable"),
    ({"skeleton_would_change": True}, "change the skeleton"),
    ({"open_claims": [{"statement": "a bound", "role": "estimate", "route": "", "section": "bounds"}]}, "route"),
    ({"open_claims": []}, "no open claim"),
    ({"ready": False}, "did not mark it ready"),
])
def test_the_gates_rules_hold_whatever_the_model_concluded(change, broken):
    verdict = judge({**READY, **change})
    assert verdict.ready is (broken is None)
    if broken:
        assert any(broken in r for r in verdict.reasons)


@pytest.mark.parametrize("correct, threshold, count, chosen", [
    (5, 5, 8, "A"), (8, 5, 8, "A"), (4, 5, 8, "B"), (0, 5, 8, "B"), (3, 3, 4, "A"), (2, 3, 4, "B")])
def test_the_cross_model_rule(correct, threshold, count, chosen):
    assert decide(correct, threshold) == chosen


def _result(label: str, draft: str, complete: bool) -> ResearchResult:
    from colosseum.loops.research.records import Decomposition, SectionOutcome

    decomposition = Decomposition(draft, ["lem:a", label], [["lem:a"], [label]], [("lem:a", label)], [], [])
    sections = {x: SectionOutcome(x, "passed" if complete else "failed") for x in decomposition.obligations}
    return ResearchResult(label, "accepted" if complete else "incomplete", draft, draft, [], [], decomposition,
                          sections, [], Usage(), {})


@pytest.mark.parametrize("judges_correct, chosen", [(5, "A"), (4, "B"), (8, "A"), (0, "B")])
async def test_model_b_judges_model_as_proof_eight_times_and_every_verdict_is_kept(judges_correct, chosen):
    judge_provider = metered(ResearchScript(judges_correct=judges_correct))
    a, b = _result("thm:goal", "proof by model A", True), _result("thm:goal", "proof by model B", True)
    selection = await cross_model_select(a, b, judge_provider, "thm:goal: the statement")
    assert selection.chosen == chosen and selection.correct == judges_correct
    assert [v.judge for v in selection.verdicts] == list(range(1, 9))
    assert sum(v.correct for v in selection.verdicts) == judges_correct
    asked = [r for r in judge_provider.inner.calls if r.role == "selection_judge"]
    assert len(asked) == 8 and all("proof by model A" in r.messages[0].content for r in asked)
    assert len({r.messages[0].content for r in asked}) == 8  # independent: no two requests alike (no cache hit)
    assert judge_provider.by_stage["selection"].calls == 8


async def test_threshold_and_count_are_configurable_and_an_unfinished_a_is_not_judged():
    judge_provider = metered(ResearchScript(judges_correct=2))
    a, b = _result("thm:goal", "A's proof", True), _result("thm:goal", "B's proof", True)
    selection = await cross_model_select(a, b, judge_provider, "p", count=3, threshold=2)
    assert selection.chosen == "A" and len(selection.verdicts) == 3
    unfinished = _result("thm:goal", "A's half proof", False)
    skipped = await cross_model_select(unfinished, b, judge_provider, "p")
    assert skipped.chosen == "B" and skipped.verdicts == [] and len(judge_provider.inner.calls) == 3
    with pytest.raises(ValueError):
        await cross_model_select(a, b, judge_provider, "p", count=4, threshold=5)
