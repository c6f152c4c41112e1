"""Probes in the loops (issue 18): the refuters of the inner loop and research's strategy falsifiers
get `run_python` in the tool-use loop (trusted folder, sandbox available), a counterexample a run
shows is a fatal critique on the claim's statement that no aggregator resolves, every run is in the
record and in the budget, a cached run replays without running anything, and the runs of a stage
go on side by side. The scripted provider issues the tool_use turns; the code runs in the real
bubblewrap sandbox unless the test is about counting or timing of the runner itself."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from pathlib import Path

import pytest

from colosseum.core.exception_groups import first_leaf
from colosseum.loops.inner.records import InnerLoopConfig
from colosseum.loops.inner.solve import ObligationContext, solve
from colosseum.models.errors import BudgetReached
from colosseum.models.provider import ToolCall
from colosseum.models.response_cache import CachedProvider
from colosseum.models.scripted_provider import ScriptedProvider
from colosseum.probe import ProbeLimits, run_python
from colosseum.probe.runner import ExecutionResult
from colosseum.probe.tool import ProbeTools
from test_sandbox import require_sandbox

STATEMENT = r"For every integer $n \ge 0$, $n^2 + n + 41$ is prime."
CONTEXT = ObligationContext("lem:euler", STATEMENT)
# the refuter's probe: n = 40 gives 41^2
PROBE = ("def prime(m):\n    return m > 1 and all(m % d for d in range(2, int(m ** 0.5) + 1))\n"
         "bad = [n for n in range(0, 60) if not prime(n * n + n + 41)]\nprint('first failure', bad[0])\n")
LIMITS = ProbeLimits()
SMALL = InnerLoopConfig(leaves=2, widths=(2, 1), k=2, final_refuters=1, plan_angles=False, seed=1)


@pytest.fixture
def sandbox():
    require_sandbox("a refuter's probe cannot run")


def tool_results(request) -> list[dict]:
    """The tool_result blocks of the transcript so far (the turns after the first question)."""
    return [block for message in request.messages[1:] if message.role == "user" and not isinstance(message.content, str)
            for block in message.content if block.get("type") == "tool_result"]


def script(runner_slot: str = "referee 1 of candidate L0", code: str = PROBE, resolve: bool = True):
    """Provers that write a proof; the refuter whose slot is ``runner_slot`` runs ``code`` (when it
    is offered the tool) and reports the counterexample its run shows; aggregators claim to have
    resolved every critique, and the resolution checker confirms every claim it is shown."""
    def answer(request):
        user = request.messages[0].content
        if request.role == "generator":
            return {"strategy": "Euler", "proof": "Check that no prime divides it. Done."}
        if request.role == "refuter":
            if runner_slot not in user or not request.tools:
                return {"critiques": []}
            results = tool_results(request)
            if not results:
                return ToolCall("toolu_1", "run_python", {"code": code})
            shown = json.loads(results[0]["content"])
            return {"critiques": [{"severity": "major", "kind": "counterexample", "quote": STATEMENT, "run": 1,
                                   "explanation": f"the run printed {shown['stdout'].strip()}: 41^2 is not prime",
                                   "repair": ""}]}
        if request.role == "resolution_checker":
            ids = [line.split("[", 1)[1].split("]", 1)[0] for line in user.splitlines() if line.startswith("- [")]
            return {"checks": [{"critique": cid, "confirmed": True, "reason": "gone"} for cid in ids]}
        ids = [line.split("[", 1)[1].split("]", 1)[0] for line in user.splitlines() if line.startswith("- [")]
        return {"proof": "Merged: no prime divides it.", "open_conflicts": [], "alternative": "",
                "resolved": [{"critique": cid, "how": "the merged proof handles n = 40"} for cid in ids] if resolve
                else []}
    return answer


def tools(run=run_python, max_tool_calls: int = 4) -> ProbeTools:
    return ProbeTools(LIMITS, max_tool_calls, run)


async def test_a_counterexample_run_in_the_sandbox_is_fatal_on_the_statement_and_survives_the_aggregator(sandbox):
    provider = ScriptedProvider(script())
    result = await solve(CONTEXT, provider, SMALL, probes=tools())
    assert result.verdict == "refuted"
    (found,) = [c for c in result.root.critiques if c.computational]
    assert found.severity == "fatal" and found.kind == "counterexample"  # the model said major: the run decides
    assert found.anchor == "statement" and found.quote == STATEMENT and found.anchored
    evidence = found.evidence
    assert evidence["code"] == PROBE and evidence["stdout"] == "first failure 40\n" and evidence["limit"] == "none"
    assert evidence["sandboxed"] and evidence["limits"]["cpu_s"] == LIMITS.cpu_s and evidence["run"] == 1
    # the aggregator claimed it resolved it; the claim was refused without a check
    aggregator = result.bundles["A1.0"]
    assert found.id in aggregator.unconfirmed and "no argument" in aggregator.unconfirmed[found.id]
    assert found.id not in aggregator.resolved
    checked = [r for r in provider.calls if r.role == "resolution_checker"]
    assert all(found.id not in r.messages[0].content for r in checked)
    (execution,) = result.executions
    assert execution["refuter"] == "L0.r0" and execution["stdout"] == "first failure 40\n"


async def test_the_tool_result_reaches_the_model_and_only_the_runs_refuter_has_two_requests(sandbox):
    provider = ScriptedProvider(script())
    await solve(CONTEXT, provider, SMALL, probes=tools())
    refuters = [r for r in provider.calls if r.role == "refuter"]
    assert all(r.tools and r.tools[0].name == "run_python" for r in refuters)
    (continued,) = [r for r in refuters if len(r.messages) > 1]
    assert json.loads(tool_results(continued)[0]["content"])["stdout"] == "first failure 40\n"
    assert "run_python" in refuters[0].messages[0].content  # the prompt says what the tool is


async def test_a_counterexample_in_a_candidate_that_does_not_reach_the_root_still_refutes():
    """The claim is false whichever proof the run was read in: the root keeps it."""
    config = InnerLoopConfig(leaves=3, widths=(3, 1), k=1, final_refuters=1, plan_angles=False, seed=5)
    fake = ExecutionResult("first failure 40\n", "", 0, 0.1, 0.1, "none", True)
    for slot in ("L0", "L1", "L2"):
        provider = ScriptedProvider(script(f"referee 1 of candidate {slot}"))
        result = await solve(CONTEXT, provider, config, probes=tools(lambda code, limits: fake))
        assert result.verdict == "refuted" and any(c.computational for c in result.root.critiques)
        assert len(result.reached_root) == 1  # k = 1: one leaf reached the root, the others not


async def test_a_run_stopped_by_a_limit_shows_no_counterexample():
    stopped = ExecutionResult("", "", None, 10.0, 10.0, "cpu", True)
    result = await solve(CONTEXT, ScriptedProvider(script(resolve=False)), SMALL,
                         probes=tools(lambda code, limits: stopped))
    (critique,) = [c for c in result.bundles["L0"].critiques]
    assert not critique.computational and critique.severity == "major"  # the model's word, as any critique
    assert result.executions[0]["limit"] == "cpu"


async def test_without_probes_no_tool_is_offered_and_the_prompt_says_so():
    provider = ScriptedProvider(script())
    result = await solve(CONTEXT, provider, SMALL)
    refuters = [r for r in provider.calls if r.role == "refuter"]
    assert refuters and all(r.tools == () and len(r.messages) == 1 for r in refuters)
    assert "no tool to run code" in refuters[0].messages[0].content
    assert result.executions == [] and result.verdict == "unrefuted"


async def test_every_request_of_a_refuters_tool_loop_is_one_call_of_the_budget():
    fake = ExecutionResult("first failure 40\n", "", 0, 0.1, 0.1, "none", True)
    provider = ScriptedProvider(script())
    result = await solve(CONTEXT, provider, SMALL, probes=tools(lambda code, limits: fake))
    assert result.usage.calls == len(provider.calls) == SMALL.planned_calls() + 1  # the run's refuter asked twice
    # a budget of exactly the planned calls: the extra request leaves none for the final refuter
    with pytest.raises(BaseExceptionGroup) as stopped:
        await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(**{**vars(SMALL), "max_calls":
                                                                             SMALL.planned_calls()}),
                    probes=tools(lambda code, limits: fake))
    assert first_leaf(stopped.value, BudgetReached) is not None


async def test_a_rerun_replays_the_runs_from_the_answer_cache_and_runs_the_sandbox_zero_times(tmp_path, sandbox):
    ran = []

    def counted(code, limits):
        ran.append(code)
        return run_python(code, limits)

    first_provider = ScriptedProvider(script())
    first = await solve(CONTEXT, CachedProvider(first_provider, tmp_path), SMALL, probes=tools(counted))
    assert len(ran) == 1 and first.verdict == "refuted"
    again_provider = ScriptedProvider(script())
    cached = CachedProvider(again_provider, tmp_path)
    again = await solve(CONTEXT, cached, SMALL, probes=tools(counted))
    assert len(ran) == 1 and again_provider.calls == []  # nothing ran, nothing was asked
    assert cached.hits == len(first_provider.calls)
    assert again.verdict == "refuted"
    (execution,) = again.executions
    assert execution["replayed"] and execution["code"] == PROBE and execution["stdout"] == "first failure 40\n"
    (found,) = [c for c in again.root.critiques if c.computational]
    assert found.evidence["stdout"] == "first failure 40\n"


async def test_the_refuters_runs_go_on_side_by_side():
    """Both leaves' refuters run code; each run waits until the other has started: serialized
    runs would never both start (the wait's bound only keeps a broken build from hanging)."""
    started, both = [], threading.Event()
    lock = threading.Lock()

    def meet(code, limits):
        with lock:
            started.append(code)
            if len(started) == 2:
                both.set()
        met = both.wait(timeout=60)
        return ExecutionResult(f"met {met}\n", "", 0, 0.0, 0.0, "none", True)

    def answer(request):
        if request.role == "refuter" and request.tools and not tool_results(request):
            return ToolCall("toolu_1", "run_python", {"code": "print(1)"})
        if request.role == "refuter":
            return {"critiques": []}
        return script()(request)

    result = await solve(CONTEXT, ScriptedProvider(answer), InnerLoopConfig(**{**vars(SMALL), "final_refuters": 0}),
                         probes=tools(meet))
    assert [e["stdout"] for e in result.executions] == ["met True\n", "met True\n"]


def test_a_cached_tool_turn_without_its_results_is_asked_again(tmp_path):
    """A run that died between the model's tool call and the tool's result left no result to
    replay: the call is asked again, so its tool runs, rather than replayed with nothing."""
    from colosseum.models.provider import Message, ModelRequest, Tool
    from colosseum.models.tool_loop import answer_with_tools
    from colosseum.models.step import ModelStep

    def answer(request):
        return {"ok": True} if len(request.messages) > 1 else ToolCall("t", "run", {})

    request = ModelRequest("s", (Message("user", "q"),), schema={"type": "object"}, role="x",
                           tools=(Tool("run", "d", {}),))
    inner = ScriptedProvider(answer)
    asyncio.run(CachedProvider(inner, tmp_path).complete(request))  # the tool call, and no result recorded
    ran = []
    loop = asyncio.run(answer_with_tools(ModelStep(CachedProvider(inner, tmp_path)), request,
                                         lambda call: ran.append(call) or "done", 4))
    assert ran and loop.outcome.data == {"ok": True} and len(inner.calls) == 3


# ---- solve through the application layer: trust, exit code, the run's record ----------------------
PAPER = r"""\documentclass{article}
\newtheorem{lemma}{Lemma}
\begin{document}
% colosseum: obligation
\begin{lemma}\label{lem:euler}
For every integer $n \ge 0$, $n^2 + n + 41$ is prime.
\end{lemma}
\end{document}
"""


@pytest.fixture
def paper(tmp_path, monkeypatch):
    """A project with one obligation; no trust from the environment or the user's config."""
    monkeypatch.delenv("COLOSSEUM_TRUST", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    folder = tmp_path / "paper"
    folder.mkdir()
    (folder / "main.tex").write_text(PAPER)
    (folder / "colosseum.toml").write_text("[solve]\nleaves = 2\nwidths = [2, 1]\nk = 2\nfinal_refuters = 1\n"
                                           "plan_angles = false\n")
    return folder


def solve_in_app(folder: Path, provider, trust: bool):
    """plan_solve and the run, as the CLI does it, with ``provider`` in place of the configured one."""
    from colosseum.app.project import open_plain
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.solve import SolveRun, plan_solve
    from colosseum.loops.inner.run_record import RunRecorder, run_directory

    index = open_plain(folder)
    plan = plan_solve(index, "lem:euler", RunOverrides(use_cache=False, trust=trust))
    recorder = RunRecorder(run_directory(folder, "lem:euler"), "lem:euler", plan.config, "scripted", None,
                           lambda: 0, plan.context, "", plan.probes.record())
    return plan, asyncio.run(SolveRun(plan, provider, "scripted", recorder).run(lambda *a: None))


def test_a_trusted_solve_whose_refuter_shows_a_counterexample_is_refuted_with_exit_3(paper, sandbox):
    provider = ScriptedProvider(script())
    plan, outcome = solve_in_app(paper, provider, trust=True)
    assert plan.probe_tools is not None and plan.probe_tools.limits == probe_limits_of(plan)
    assert outcome.verdict == "refuted" and outcome.exit_code == 3
    record = json.loads((outcome.directory / "run.json").read_text())
    assert record["verdict"] == "refuted" and record["probes"]["offered"] is True
    (execution,) = record["executions"]
    assert execution["code"] == PROBE and execution["stdout"] == "first failure 40\n" and execution["limit"] == "none"
    root = record["bundles"]["A1.0"]["critiques"]
    (found,) = [c for c in root if c["evidence"]]
    assert found["severity"] == "fatal" and found["anchor"] == "statement" and "n^2 + n + 41" in found["quote"]
    report = (outcome.directory / "report.md").read_text()
    assert "counterexample found by execution" in report and "1 run(s) of run_python" in report


def probe_limits_of(plan):
    from colosseum.probe import probe_limits

    return probe_limits(plan.index.config)


def test_an_untrusted_solve_offers_no_tool_and_records_why(paper):
    provider = ScriptedProvider(script())
    plan, outcome = solve_in_app(paper, provider, trust=False)
    assert plan.probe_tools is None and "not trusted, so no probe is run" in plan.probes.reason
    assert all(r.tools == () for r in provider.calls) and outcome.verdict == "unrefuted"
    record = json.loads((outcome.directory / "run.json").read_text())
    assert record["probes"] == {"offered": False, "reason": plan.probes.reason} and record["executions"] == []


def test_probes_are_off_in_batch_mode_and_where_bubblewrap_cannot_run(paper, monkeypatch):
    from colosseum.app.project import open_plain
    from colosseum.probe import tool

    index = open_plain(paper)
    assert "batch mode" in tool.probe_tools_for(index.config, True, batch=True).reason
    monkeypatch.setattr(tool, "sandbox_problem", lambda: "bubblewrap (bwrap) is not installed, so probes are off")
    decision = tool.probe_tools_for(index.config, True)
    assert decision.tools is None and "bwrap" in decision.reason


def test_the_solve_dry_run_says_once_why_the_refuters_run_no_code(paper, capsys):
    from colosseum.cli.main import main

    code = main(["solve", str(paper), "--label", "lem:euler", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0 and out.count("refuters run no code: the folder is not trusted") == 1


# ---- research: the strategy falsifiers run the cards' falsifiable tests ----------------------------
RESEARCH_CONTEXT = ObligationContext("thm:goal", "Every admissible input has the property.",
                                     assumable="[lem:known] A fact.")
# the falsifier's run of card E0's test: the bound fails at n = 2
CARD_TEST = "for n in (1, 2):\n    print(n, 2 ** n, '<=', n + 1, 2 ** n <= n + 1)\n"


def falsifying_script(code: str = CARD_TEST):
    """The research double, except that card E0's falsifier runs ``code`` when offered the tool and
    reports the failed test its run shows; the gate rebuts every fatal critique, the checker confirms
    every rebuttal, and the strategy aggregators claim every critique resolved."""
    from doubles.research_script import ResearchScript

    research = ResearchScript(gate_rebuts=True, rebuttals_hold=True, strategy_resolves=True)

    def answer(request):
        if request.role == "strategy_falsifier" and request.tools and "### Card E0 " in request.messages[0].content:
            results = tool_results(request)
            if not results:
                return ToolCall("toolu_card", "run_python", {"code": code})
            shown = json.loads(results[0]["content"])["stdout"]
            return {"critiques": [{"severity": "major", "kind": "counterexample", "target": "check n = 1 and n = 2",
                                   "explanation": f"the bound fails at n = 2: {shown.splitlines()[-1]}", "run": 1}]}
        return research(request)
    return answer


async def explore_and_gate(provider, probes):
    from colosseum.loops.research.exploration import explore
    from colosseum.loops.research.readiness import readiness_gate
    from colosseum.loops.research.records import ResearchConfig

    config = ResearchConfig(exploration_widths=(4, 2, 1), k=4, seed=5)
    exploration = await explore(RESEARCH_CONTEXT, provider, config, seed=5, probes=probes)
    return exploration, await readiness_gate(RESEARCH_CONTEXT, exploration, provider)


async def test_a_card_refuted_by_running_its_test_says_so_to_the_gate_and_is_never_ready(sandbox, tmp_path):
    from colosseum.models.budget import Budget
    from colosseum.models.metered import MeteredProvider

    inner = ScriptedProvider(falsifying_script())
    provider = MeteredProvider(inner, Budget.of_started_calls(None))
    exploration, verdict = await explore_and_gate(provider, tools())
    (execution,) = exploration.executions
    assert execution["card"] == "E0" and execution["stdout"].endswith("2 4 <= 3 False\n") and execution["sandboxed"]
    (refuted,) = exploration.refuted_by_execution()
    assert refuted.severity == "fatal" and refuted.evidence["code"] == CARD_TEST and refuted.origin == "E0"
    # the falsifiers were handed the card's tests and the tool
    falsifiers = [r for r in inner.calls if r.role == "strategy_falsifier"]
    assert all(r.tools and r.tools[0].name == "run_python" for r in falsifiers)
    assert "falsifiable tests: (1) check n = 1 and n = 2 by hand. Run them with the tool" in \
        falsifiers[0].messages[0].content
    # the aggregators claimed it resolved: refused, so it reached the root
    assert refuted.id in {c.id for c in exploration.surviving_critiques}
    (gate,) = [r for r in inner.calls if r.role == "readiness_gate"]
    shown = gate.messages[0].content.split('name="cards refuted by execution">', 1)[1].split("</document-", 1)[0]
    assert f"Card E0 was refuted by execution [{refuted.id}]" in shown and "2 4 <= 3 False" in shown
    # the gate rebutted every fatal critique and the checker would confirm each: not this one
    assert not verdict.ready and refuted.id in {c["id"] for c in verdict.standing_critiques}
    checked = [r for r in inner.calls if r.role == "rebuttal_checker"]
    assert all(refuted.id not in r.messages[0].content for r in checked)
    # each request of the falsifier's tool loop is one call of the run's budget
    assert provider.usage.calls == len(inner.calls) == len(falsifiers) + 4 + 3 + 1 + len(checked)
    assert len(falsifiers) == 4 + 1  # E0's falsifier asked twice
    # the run's folder records every execution of the exploration
    from colosseum.loops.research.records import ResearchConfig
    from colosseum.loops.research.run_log import ResearchRecorder

    ResearchRecorder(tmp_path, "thm:goal", "scripted", ResearchConfig()).exploration(1, exploration)
    recorded = json.loads((tmp_path / "explore-1.json").read_text())
    assert [e["stdout"] for e in recorded["executions"]] == [execution["stdout"]]
    assert "1 card(s) refuted by a run" in (tmp_path / "explore-1.md").read_text()


async def test_without_probes_the_falsifiers_get_the_tests_but_no_tool():
    inner = ScriptedProvider(falsifying_script())
    exploration, _ = await explore_and_gate(inner, None)
    falsifiers = [r for r in inner.calls if r.role == "strategy_falsifier"]
    assert len(falsifiers) == 4 and all(r.tools == () for r in falsifiers)
    assert "falsifiable tests: (1) check n = 1 and n = 2 by hand. You have no tool" in falsifiers[0].messages[0].content
    assert exploration.executions == [] and exploration.refuted_by_execution() == []
    (gate,) = [r for r in inner.calls if r.role == "readiness_gate"]
    assert "(no test was run)" in gate.messages[0].content


def test_the_editors_trust_reaches_the_run_settings():
    from colosseum.app.run_settings import RunOverrides

    assert RunOverrides.from_editor_options({"trusted": True}).editor_trusted is True
    assert RunOverrides.from_editor_options({"trusted": "yes"}).editor_trusted is None  # only a boolean counts
    assert RunOverrides.from_editor_options({}).editor_trusted is None


def test_the_research_dry_run_says_the_falsifiers_run_the_tests_when_trusted(paper, capsys, sandbox):
    from colosseum.cli.main import main

    code = main(["research", str(paper), "--label", "lem:euler", "--dry-run", "--trust"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Probes: falsifiers run the cards' falsifiable tests and refuters may run Python in the sandbox" in out
    assert "run no code" not in err
    code = main(["research", str(paper), "--label", "lem:euler", "--dry-run"])
    assert code == 0 and capsys.readouterr().err.count("falsifiers and refuters run no code: the folder is not "
                                                        "trusted") == 1


def test_solve_trust_end_to_end_the_refuters_run_reaches_the_api_and_the_verdict_is_refuted(paper, sandbox):
    """The real CLI and the real Anthropic SDK against the Messages-API double: every refuter runs the
    probe through the tool-use loop, the code runs in the sandbox, and the counterexample decides."""
    import os
    import subprocess
    import sys

    from doubles.messages_api import MessagesAPIDouble, tool_answer
    from test_probe_cli import run_python_call

    def respond(body: dict):
        answer = next(t for t in body["tools"] if t["name"] == "answer")
        required = set(answer["input_schema"]["required"])
        if "strategy" in required:
            return tool_answer({"strategy": "Euler", "proof": "Check that no prime divides it. Done."})
        if "critiques" in required:
            if len(body["messages"]) == 1:
                return run_python_call(PROBE, "toolu_euler")
            shown = json.loads(body["messages"][2]["content"][0]["content"])
            return tool_answer({"critiques": [{"severity": "major", "kind": "counterexample", "quote": STATEMENT,
                                               "explanation": f"the run printed {shown['stdout'].strip()}",
                                               "repair": "", "run": 1}]})
        return tool_answer({"proof": "Merged.", "alternative": "", "open_conflicts": [],
                            "resolved": [{"critique": "L0.r0.0", "how": "n = 40 is handled"}]})

    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test"}
    with MessagesAPIDouble([], responder=respond) as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        done = subprocess.run([sys.executable, "-m", "colosseum", "solve", str(paper), "--label", "lem:euler",
                               "--format", "json", "--trust"], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 3, done.stderr
    summary = json.loads(done.stdout)
    assert summary["verdict"] == "refuted"
    found = [c for c in summary["critiques"] if c["evidence"]]
    assert found and all(c["severity"] == "fatal" and c["anchor"] == "statement" for c in found)
    assert found[0]["evidence"]["stdout"] == "first failure 40\n"
    refuters = [r for r in server.requests if any(t["name"] == "run_python" for t in r["tools"])]
    assert len(refuters) == 2 * 3  # two leaves and one final refuter, two requests each
    record = json.loads((paper / summary["run"] / "run.json").read_text())
    assert len(record["executions"]) == 3 and record["probes"]["offered"] is True
    assert summary["usage"]["calls"] == len(server.requests) == SMALL.planned_calls() + 3


def test_a_provider_that_runs_no_tools_gets_no_tool_rather_than_failing_every_refutation():
    from colosseum.probe.tool import ProbeDecision

    decision = ProbeDecision(tools(), "")
    provider = ScriptedProvider(script())
    assert decision.for_provider(provider) is decision
    provider.supports_tools = False
    provider.name = "openai-compatible"
    off = decision.for_provider(provider)
    assert off.tools is None and "openai-compatible" in off.reason and "does not run tools" in off.reason


def test_the_solve_estimate_counts_every_refuters_tool_loop_when_probes_are_on(paper, sandbox):
    from colosseum.app.project import open_plain
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.solve import plan_solve

    index = open_plain(paper)
    off = plan_solve(index, "lem:euler", RunOverrides(trust=False)).estimate()
    on = plan_solve(index, "lem:euler", RunOverrides(trust=True)).estimate()
    assert off.calls == on.calls == SMALL.planned_calls()  # no refuter need call the tool
    assert on.maximum_calls == off.maximum_calls + 3 * (8 - 1)  # 3 refuters, [probe] max_tool_calls 8
    assert "refuters may run Python in the sandbox: up to 8 model request(s) each" in on.calls_described


async def test_a_research_run_hands_the_tool_to_its_falsifiers_and_its_sections_refuters(make_project, tmp_path):
    """The pipeline's wiring: every falsifier and every refuter of a section is offered run_python,
    and every run is in the run folder (the runner here only counts: the sandbox is tested above)."""
    from colosseum.index import ProjectIndex
    from colosseum.loops.research.pipeline import ResearchRun, run_research
    from colosseum.loops.research.records import ResearchConfig
    from colosseum.loops.research.review_adapter import ReviewLayer
    from colosseum.loops.research.run_log import ResearchRecorder
    from colosseum.models.budget import Budget
    from colosseum.models.metered import MeteredProvider
    from doubles.research_script import ResearchScript
    from test_research_pipeline import MAIN, RESULT

    project = make_project(tmp_path / "paper", {"main.tex": MAIN, "sections/result.tex": RESULT})
    research = ResearchScript()

    def answer(request):
        if request.tools and not tool_results(request):
            return ToolCall("toolu_1", "run_python", {"code": f"print({request.role!r})"})
        return research(request)

    ran = []
    fake = lambda code, limits: ran.append(code) or ExecutionResult("ok\n", "", 0, 0.0, 0.0, "none", True)  # noqa: E731
    config = ResearchConfig(exploration_widths=(2, 1), seed=3, rounds=1)
    provider = MeteredProvider(ScriptedProvider(answer), Budget.of_started_calls(None))
    folder = project / ".colosseum" / "runs" / "test-run"
    run = ResearchRun(ProjectIndex.open(project), "thm:goal", provider, config,
                      InnerLoopConfig(leaves=2, widths=(2, 1), seed=1, plan_angles=False),
                      ReviewLayer(provider, reviewers=2), None, None, ResearchRecorder(folder, "thm:goal", "scripted",
                                                                                         config), probes=tools(fake))
    result = await run_research(run)
    assert result.decomposition is not None, result.message
    asked = Counter(r.role for r in provider.inner.calls if r.tools)
    assert asked["strategy_falsifier"] == 2 * 2 and asked["refuter"] >= 2 * 3  # two requests each
    assert Counter(ran) == {"print('strategy_falsifier')": 2, "print('refuter')": asked["refuter"] // 2}
    assert len(json.loads((folder / "explore-1.json").read_text())["executions"]) == 2
    sections = sorted((folder / "sections").glob("*/run.json"))
    assert sections and all(json.loads(s.read_text())["probes"]["offered"] for s in sections)
    assert sum(len(json.loads(s.read_text())["executions"]) for s in sections) == asked["refuter"] // 2


def test_the_retry_after_a_failed_local_review_offers_its_refuters_run_python(paper, monkeypatch, sandbox):
    """The editor's retry (colosseum.retryClaim) is an inner loop as a solve is: in a trusted folder
    its refuters are offered run_python, the run's record says so, and the counterexample its run
    shows refutes the retry's draft."""
    from colosseum.app.project import open_plain
    from colosseum.app.run_settings import RunOverrides, RunSettings
    from colosseum.app.solve import start_retry
    from colosseum.loops.review.records import ClaimReview, ReviewCritique

    provider = ScriptedProvider(script())
    monkeypatch.setattr(RunSettings, "provider", lambda self, *a, **k: (provider, "scripted"))
    index = open_plain(paper)
    failed = ClaimReview("lem:euler", "failed", ["n = 40 is not checked"],
                         [ReviewCritique("c1", "fatal", "gap", "the case n = 40 is not checked", STATEMENT)],
                         "key", "Check that no prime divides it.", STATEMENT)
    retry = start_retry(index, "lem:euler", RunOverrides(use_cache=False, trust=True))
    outcome = asyncio.run(retry.run(failed, lambda *a: None))
    refuters = [r for r in provider.calls if r.role == "refuter"]
    assert refuters and all([t.name for t in r.tools] == ["run_python"] for r in refuters)
    assert outcome.result.verdict == "refuted"  # the refuter's run showed n = 40
    record = json.loads((outcome.directory / "run.json").read_text())
    assert record["probes"]["offered"] is True
    (execution,) = record["executions"]
    assert execution["stdout"] == "first failure 40\n" and not execution.get("replayed")
