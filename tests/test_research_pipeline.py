"""The research pipeline with the scripted provider (a test double): the readiness gate sends
work back, the skeleton's DAG is read back from the LaTeX by the ordinary index, obligations are
solved after what they rest on with section-only retries and re-decomposition, conservative
revision is enforced on the LaTeX, and the budget and cancellation stop a run cleanly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from colosseum.index import ProjectIndex
from colosseum.loops.inner.records import InnerLoopConfig
from colosseum.models.errors import SolveCancelled
from colosseum.models.scripted_provider import ScriptedProvider
from colosseum.models.budget import Budget
from colosseum.models.metered import MeteredProvider
from colosseum.loops.research.draft import DraftDocument, DraftError
from colosseum.loops.research.pipeline import ResearchRun, run_research
from colosseum.loops.research.records import ResearchConfig
from colosseum.loops.research.review_adapter import ReviewLayer
from colosseum.loops.research.run_log import ResearchRecorder
from doubles.research_script import ResearchScript

MAIN = r"""\documentclass{article}
\usepackage{amsthm}
\usepackage{cleveref}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}[theorem]{Lemma}
\newcommand{\Q}{\mathsf{Q}}
\begin{document}
\section{Main}\label{sec:main}
\input{sections/result}
\end{document}
"""
RESULT = r"""\begin{lemma}\label{lem:known}
A known fact.
\end{lemma}
\begin{proof}
Easy.
\end{proof}

\begin{theorem}\label{thm:goal}
Every admissible input has the property.
\end{theorem}
"""
SMALL = ResearchConfig(exploration_widths=(8, 4, 1), batch=4, seed=3, adaptive_widths=False)
INNER = InnerLoopConfig(leaves=2, widths=(2, 1), seed=1)


@pytest.fixture
def project(make_project, tmp_path):
    return make_project(tmp_path / "paper", {"main.tex": MAIN, "sections/result.tex": RESULT})


def make_run(project: Path, script: ResearchScript, config: ResearchConfig = SMALL, progress=None,
             catalog_dir: Path | None = None):
    provider = MeteredProvider(ScriptedProvider(script), Budget.of_started_calls(config.max_calls))
    recorder = ResearchRecorder(project / ".colosseum" / "runs" / "test-run", "thm:goal", "scripted", config)
    run = ResearchRun(ProjectIndex.open(project), "thm:goal", provider, config, INNER, ReviewLayer(provider, reviewers=2),
                      None, catalog_dir, recorder, progress)
    return run, provider


def explorer_prompts(provider: MeteredProvider) -> list[str]:
    return [r.messages[0].content for r in provider.inner.calls if r.role == "explorer"]


async def test_a_fatal_bridge_sends_the_work_back_to_exploration_and_into_the_catalog(project):
    script = ResearchScript(gate_fatal_bridges=1)  # the gate says "ready" but names a fatal bridge
    run, provider = make_run(project, script, catalog_dir=project / "knowledge")
    result = await run_research(run)
    assert [g.ready for g in result.gates] == [False, True]
    assert any("fatal bridge" in r for r in result.gates[0].reasons)
    assert len(result.explorations) == 2 and result.status == "accepted"
    # the second exploration is told where the first one broke
    prompts = explorer_prompts(provider)
    assert "the bad events are independent" not in prompts[0]
    assert "the bad events are independent" in prompts[len(prompts) // 2]
    # the failure is a failed route in the catalog, for this theorem, at the exact point
    # (beside it, the fatal falsifier critique that reached the exploration's root, unrebutted)
    texts = [e.read_text() for e in (project / "knowledge").glob("failed-*.md")]
    (text,) = [t for t in texts if "the bad events are independent" in t]
    assert "thm:goal" in text
    assert all("bridge" in t or "fatal critique boundary-case" in t for t in texts)
    gate = json.loads((run.recorder.directory / "gate-1.json").read_text())
    assert gate["ready"] is False and gate["catalog_entries"]
    # no skeleton was cut from the strategy that was not ready
    assert script.counts["decomposer"] == 1


async def test_never_ready_gives_up_without_decomposing(project):
    config = ResearchConfig(exploration_widths=(4, 1), seed=1, max_explorations=2, adaptive_widths=False)
    script = ResearchScript(gate_fatal_bridges=99)
    run, _ = make_run(project, script, config)
    result = await run_research(run)
    assert result.status == "not-ready" and len(result.gates) == 2
    assert script.counts["decomposer"] == 0 and result.draft == ""


async def test_the_dag_is_read_back_from_the_skeleton_by_the_ordinary_index(project):
    script = ResearchScript(generations=(3, 2, 1), broken_first_skeleton=True)
    run, _ = make_run(project, script)
    result = await run_research(run)
    d = result.decomposition
    # the first skeleton referred to a label that does not exist: sent back once with the problem
    assert d.attempts == 2 and script.counts["decomposer"] == 2
    problems = json.loads((run.recorder.directory / "decompose-1.json").read_text())
    assert problems["obligations"] and "lem:goal-missing" not in d.skeleton
    # write the draft where the author would put it and read the paper again: the same DAG
    target = project / "sections" / "result.tex"
    target.write_text(RESULT.replace("\\end{theorem}\n", "\\end{theorem}\n\\input{sections/skeleton}\n"))
    (project / "sections" / "skeleton.tex").write_text(d.skeleton)
    fresh = ProjectIndex.open(project)
    wanted = set(d.obligations)
    layers = [[n for n in layer if n in wanted] for layer in fresh.graph.generations()]
    assert [layer for layer in layers if layer] == d.generations
    assert [len(layer) for layer in d.generations] == [3, 2, 1, 1] and d.obligations[-1] == "thm:goal"
    assert sorted((u, v) for u in wanted for v in fresh.graph.succ.get(u, ()) if v in wanted) == d.edges
    assert fresh.claims["thm:goal"].proof.named_target == "thm:goal"


async def test_the_authors_files_are_never_written(project):
    def authors():
        return {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".colosseum" not in p.parts}

    before = authors()
    run, _ = make_run(project, ResearchScript())
    result = await run_research(run)
    assert result.status == "accepted" and "\\begin{proof}" in result.draft
    assert authors() == before
    assert (run.recorder.directory / "round-1" / "draft.tex").read_text().strip() == result.draft.strip()


def test_a_theorem_with_a_proof_or_a_citation_is_refused(project):
    index = ProjectIndex.open(project)
    with pytest.raises(DraftError, match="already has a proof"):
        DraftDocument(index, "lem:known")
    with pytest.raises(DraftError, match="no claim"):
        DraftDocument(index, "thm:nothing")


async def test_sections_start_after_what_they_rest_on_and_a_failed_one_is_retried_alone(project):
    script = ResearchScript(generations=(2, 2, 1), local_failures={"g1-1": 1})
    run, provider = make_run(project, script)
    result = await run_research(run)
    assert result.status == "accepted"
    calls = provider.inner.calls
    first_generator = {}
    last_review = {}
    for i, r in enumerate(calls):
        text = r.messages[0].content
        if r.role == "generator":
            label = text.split(' name="obligation">\n', 1)[1].split(": ", 1)[0]
            first_generator.setdefault(label, i)
        if r.role == "local_reviewer":
            last_review[text.split(' name="statement of ', 1)[1].split('">', 1)[0]] = i
    graph_edges = result.decomposition.edges
    for used, user in graph_edges:
        assert last_review[used] < first_generator[user], f"{user} started before {used} was done"
    # the failed section alone was retried, with its failed draft and the critique
    attempts = {label: o.attempts for label, o in result.sections.items()}
    assert attempts["lem:goal-g1-1"] == 2 and all(n == 1 for k, n in attempts.items() if k != "lem:goal-g1-1")
    retry_prompts = [r.messages[0].content for r in calls if r.role == "generator"
                     and "failed its local review" in r.messages[0].content]
    assert retry_prompts and all("lem:goal-g1-1:" in p for p in retry_prompts)


async def test_a_section_that_fails_its_retries_is_recut_around_it(project):
    config = ResearchConfig(exploration_widths=(4, 1), seed=1, adaptive_widths=False, section_retries=1)
    script = ResearchScript(generations=(2, 1), local_failures={"g2-1": 2})  # fails its try and its retry
    run, _ = make_run(project, script, config)
    result = await run_research(run)
    assert result.status == "accepted"
    (recut,) = json.loads((run.recorder.directory / "sections.json").read_text())["redecompositions"]
    assert recut["label"] == "lem:goal-g2-1" and recut["done"] is True
    # the new lemma is in the draft, proved, before the lemma it was cut from; that statement is unchanged
    assert "lem:goal-g2-1-part" in result.sections and result.sections["lem:goal-g2-1-part"].status == "passed"
    assert result.draft.index("lem:goal-g2-1-part") < result.draft.index("\\label{lem:goal-g2-1}")
    assert "The quantity $Q_{2,1}$ is bounded by the quantities it uses." in result.draft
    assert result.sections["lem:goal-g2-1"].status == "passed"


async def test_a_revision_that_adds_a_section_is_rejected_and_the_skeleton_is_explored_again(project):
    config = ResearchConfig(exploration_widths=(4, 1), seed=1, adaptive_widths=False, max_explorations=2)
    script = ResearchScript(global_verdicts=("revise", "accepted"), revision="new-section")
    run, provider = make_run(project, script, config)
    result = await run_research(run)
    first = result.rounds[0].revision
    assert first.accepted is False and any("new sections" in v for v in first.violations)
    assert script.counts["reviser"] == 2  # tried once more with the rejection, then the skeleton was blamed
    assert len(result.explorations) == 2 and result.status == "accepted"
    # the previous full draft and the verifier's feedback feed the next exploration
    second = explorer_prompts(provider)[-1]
    assert "The previous full draft" in second and "smallness hypothesis" in second


async def test_an_accepted_revision_rechecks_what_rests_on_the_changed_statement(project):
    script = ResearchScript(generations=(2, 1), global_verdicts=("revise", "accepted"))
    run, _ = make_run(project, script)
    result = await run_research(run)
    assert result.status == "accepted" and [r.verdict for r in result.rounds] == ["revise", "accepted"]
    assert result.rounds[0].revision.accepted
    assert "when they are small" in result.draft
    # the revised lemma and the theorem that uses it were reviewed again; the others were not
    rechecked = {k for k, o in result.sections.items() if any(r["attempt"] == "revision" for r in o.reviews)}
    assert rechecked == {"lem:goal-g2-1", "thm:goal"}


async def test_the_round_limit_ends_the_run_with_the_last_verdict(project):
    config = ResearchConfig(exploration_widths=(4, 1), seed=1, adaptive_widths=False, rounds=2)
    script = ResearchScript(global_verdicts=("revise",))
    run, _ = make_run(project, script, config)
    result = await run_research(run)
    assert result.status == "revise" and len(result.rounds) == 2 and script.counts["reviser"] == 1


async def test_the_budget_stops_the_run_with_a_consistent_record(project):
    config = ResearchConfig(exploration_widths=(4, 1), seed=1, adaptive_widths=False, max_calls=12)
    run, provider = make_run(project, ResearchScript(), config)
    result = await run_research(run)
    assert result.status == "budget-stopped" and provider.usage.calls == 12 and len(provider.inner.calls) == 12
    record = json.loads((run.recorder.directory / "run.json").read_text())
    assert record["status"] == "budget-stopped" and record["usage"]["calls"] == 12


async def test_cancelling_from_the_progress_callback_stops_at_the_frontier(project):
    seen = []

    def progress(event):
        seen.append(event)
        if event.stage == "solving" and event.frontier:
            raise SolveCancelled("stop")

    run, provider = make_run(project, ResearchScript(), progress=progress)
    result = await run_research(run)
    assert result.status == "cancelled"
    assert not any(r.role == "global_reviewer" for r in provider.inner.calls)
    assert seen[-1].frontier and seen[-1].round == 1
    assert json.loads((run.recorder.directory / "run.json").read_text())["status"] == "cancelled"


@pytest.mark.parametrize("how", ["progress", "check"])
async def test_a_cancellation_inside_a_section_lets_only_the_calls_in_flight_finish(project, how):
    script = ResearchScript(generations=(2, 1))
    state = {"cancel": False, "answered": 0, "after": 0, "in_flight": None, "sent": None}

    def answer(request):
        state["answered"] += 1
        state["after"] += state["cancel"]
        if request.role == "generator" and script.counts["generator"] == 1 and not state["cancel"]:
            # the author cancels while the first sections' provers are at work
            state["cancel"], state["sent"] = True, len(inner.calls)
            state["in_flight"] = len(inner.calls) - state["answered"]
        return script(request)

    def stop(*_):
        if state["cancel"]:
            raise SolveCancelled("the author cancelled")

    inner = ScriptedProvider(answer, latency=0.01)
    provider = MeteredProvider(inner, Budget.of_started_calls(None), stop if how == "check" else None)
    run = ResearchRun(ProjectIndex.open(project), "thm:goal", provider, SMALL, InnerLoopConfig(leaves=4, widths=(4, 1)),
                      ReviewLayer(provider, reviewers=2), progress=stop if how == "progress" else None)
    result = await run_research(run)
    assert result.status == "cancelled" and state["in_flight"] >= 1
    assert len(inner.calls) == state["sent"]  # not one call started after the cancellation
    assert state["after"] <= state["in_flight"]  # only those already in flight were answered


async def test_a_section_that_used_its_retries_is_not_solved_again_in_a_later_pass(project):
    config = ResearchConfig(exploration_widths=(4, 1), seed=1, adaptive_widths=False, section_retries=1,
                            max_explorations=1)
    script = ResearchScript(generations=(2, 1), local_failures={"g1-1": 99, "g1-2": 99})  # both always fail
    run, _ = make_run(project, script, config)
    result = await run_research(run)
    # g1-1 was re-cut and so tried again in the second pass; g1-2 had its 1 + 1 attempts and no more
    assert script.counts["local:lem:goal-g1-2"] == 2 and result.sections["lem:goal-g1-2"].attempts == 2
    assert script.counts["local:lem:goal-g1-1"] == 4 and result.sections["lem:goal-g1-1"].attempts == 4
    # the message says exactly what happened: who failed after how many attempts, who never ran
    assert result.status == "incomplete"
    assert result.message == ("failed their local review after every attempt: lem:goal-g1-1 (4 attempts, re-cut "
                              "once), lem:goal-g1-2 (2 attempts); never attempted, because what they rest on did "
                              "not pass: lem:goal-g2-1, thm:goal")
    assert {label: o.attempts for label, o in result.sections.items() if o.status == "blocked"} == {
        "lem:goal-g2-1": 0, "thm:goal": 0}


class FlawInTheFirstLemma(ResearchScript):
    """The global review flags the first generation's lemma (the reviser then changes its statement)."""

    def _global_reviewer(self, system: str, user: str) -> dict:
        data = super()._global_reviewer(system, user)
        for c in data["critiques"]:
            c["quote"] = "The quantity $Q_{1,1}$ is bounded by the quantities it uses."
        return data


async def test_a_changed_statement_rechecks_its_direct_users_only(project):
    script = FlawInTheFirstLemma(generations=(1, 1, 1), global_verdicts=("revise", "accepted"))
    run, _ = make_run(project, script)
    result = await run_research(run)
    assert result.status == "accepted" and result.rounds[0].revision.accepted
    assert "$Q_{1,1}$ is bounded by the quantities it uses, when they are small" in result.draft
    # g2-1 uses the changed statement; g3-1 and the theorem use statements that did not change
    rechecked = {k for k, o in result.sections.items() if any(r["attempt"] == "revision" for r in o.reviews)}
    assert rechecked == {"lem:goal-g1-1", "lem:goal-g2-1"}
