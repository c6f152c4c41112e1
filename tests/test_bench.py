"""`colosseum bench`: the method against direct, best-of-n and self-refine at equal list-price cost,
with a scripted provider (a test double) whose answers make the method win on some problems and
lose on others; the report's numbers are checked against what was scripted."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from colosseum.app.bench import plan_bench
from colosseum.app.run_settings import RunOverrides
from colosseum.app.stops import RunRefused
from colosseum.bench.agreement import fleiss_kappa, observed_agreement, rating_table
from colosseum.bench.baselines import Baselines, MIN_THINKING_TOKENS
from colosseum.bench.problems import marked_labels, without_the_claim
from colosseum.bench.records import METHOD, Attempt
from colosseum.bench.requests import Pricing, Spend, interactive
from colosseum.catalog.store import Catalog, Entry
from colosseum.index import ProjectIndex
from colosseum.loops.inner.records import InnerLoopConfig
from colosseum.models.provider import Usage, content_chars
from colosseum.models.response_cache import CachedProvider
from colosseum.models.scripted_provider import ScriptedProvider
from colosseum.models.step import ModelStep

MAIN = r"""\documentclass{article}
\usepackage{amsthm}
\newtheorem{lemma}{Lemma}
\begin{document}
\begin{lemma}[Pairs]\label{lem:a}
% colosseum: benchmark
Among any three integers two have an even sum.
\end{lemma}
\begin{proof}
REFERENCE-SECRET-A: by pigeonhole two of them have the same parity.
\end{proof}

\begin{lemma}\label{lem:b}
Every tree on $n$ vertices has $n-1$ edges.
\end{lemma}
\begin{proof}
% colosseum: benchmark
REFERENCE-SECRET-B: induction on $n$, removing a leaf.
\end{proof}

\begin{lemma}\label{lem:c}
% colosseum: benchmark
A finite graph has an even number of vertices of odd degree.
\end{lemma}

\begin{lemma}\label{lem:unmarked}
Not a problem of the bench.
\end{lemma}
\end{document}
"""
TOML = '[models]\nmodel = "scripted"\nprices = { input = 3, output = 15 }\n[bench]\ngraders = 3\n'
INNER = InnerLoopConfig(leaves=4, refuters_per_candidate=1, widths=(4, 1), k=4, final_refuters=1, plan_angles=False)
# the graders' three grades of each kind of answer on each problem: the method wins on lem:a and
# lem:b and loses on lem:c, where direct is right
GRADES = {
    ("METHOD", "lem:a"): ["correct"] * 3, ("METHOD", "lem:b"): ["correct", "correct", "minor_gaps"],
    ("METHOD", "lem:c"): ["wrong"] * 3,
    ("DIRECT", "lem:a"): ["wrong"] * 3, ("DIRECT", "lem:b"): ["wrong", "wrong", "correct"],
    ("DIRECT", "lem:c"): ["correct"] * 3,
    ("SAMPLE", "lem:a"): ["minor_gaps"] * 3, ("SAMPLE", "lem:b"): ["wrong"] * 3,
    ("SAMPLE", "lem:c"): ["wrong", "correct", "minor_gaps"],
}
EXPECTED = {"method": (2, 0, 1, 0), "direct": (1, 0, 2, 0), "best-of-n": (0, 1, 1, 1), "self-refine": (0, 0, 3, 0)}
OBLIGATION = re.compile(r"(lem:\w+): ")
ANSWER = re.compile(r"(METHOD|DIRECT|SAMPLE|DRAFT|REVISED)\d* (lem:\w+)")


def text_of(request) -> str:
    return request.system + "\n".join(m.content if isinstance(m.content, str) else json.dumps(list(m.content))
                                      for m in request.messages)


def answer(request):
    user = request.messages[-1].content
    label = OBLIGATION.search(user).group(1)
    slot = re.search(r"\((.*?)\) ", user.rsplit("</document-", 1)[-1]).group(1)
    role = request.role
    if role == "generator":
        return {"strategy": "parity", "proof": f"candidate for {label}"}
    if role == "refuter":
        return {"critiques": []}
    if role == "aggregator":
        return {"proof": f"METHOD {label}", "alternative": "", "resolved": [], "open_conflicts": []}
    if role == "bench_direct":
        if slot.startswith("attempt"):
            return {"proof": f"SAMPLE{slot.split()[1]} {label}"}
        return {"proof": f"DRAFT {label}" if "draft" in slot else f"DIRECT {label}"}
    if role == "bench_self_critique":
        return {"problems": [{"severity": "major", "quote": label, "explanation": "a gap"}]}
    if role == "bench_reviser":
        return {"proof": f"REVISED{slot.split()[1]} {label}"}
    if role == "bench_selector":
        return {"choice": 2, "reason": "the second is cleaner"}
    if role == "bench_grader":
        kind, graded = ANSWER.search(user).groups()
        grader = int(slot.split()[1]) - 1
        return {"grade": GRADES.get((kind, graded), ["wrong"] * 3)[grader], "reason": f"{kind} on {graded}"}
    raise AssertionError(f"unexpected role {role}")


def method_of(request) -> str:
    """Which row of the report a scripted call belongs to (the grading apart)."""
    if request.role in ("generator", "refuter", "aggregator"):
        return "method"
    if request.role == "bench_grader":
        return "grading"
    slot = text_of(request)
    if request.role in ("bench_self_critique", "bench_reviser") or "a first draft" in slot:
        return "self-refine"
    if request.role == "bench_selector" or "independent attempts" in slot:
        return "best-of-n"
    return "direct"


def scripted_usage(request) -> Usage:
    """The double's own accounting (colosseum.models.scripted_provider)."""
    prompt = len(request.system) + sum(content_chars(m.content) for m in request.messages)
    return Usage(prompt // 4 + 1, len(json.dumps(answer(request), sort_keys=True)) // 4 + 1, calls=1)


@pytest.fixture
def project(make_project, tmp_path):
    return make_project(tmp_path / "paper", {"main.tex": MAIN, "colosseum.toml": TOML})


def bench(project: Path, provider, labels=None, config=INNER):
    plan = plan_bench(ProjectIndex.open(project), labels, RunOverrides())
    plan.config = config
    import asyncio

    return asyncio.run(plan.run(lambda stage, done, total: None, provider))


def test_the_report_says_what_was_scripted_and_a_rerun_costs_nothing(project):
    scripted = ScriptedProvider(answer)
    provider = CachedProvider(scripted, project / ".colosseum" / "cache")
    outcome = bench(project, provider)
    assert outcome.stop is None and outcome.exit_code == 0
    data = json.loads((outcome.directory / "report.json").read_text())
    assert data["schema_version"] and [p["label"] for p in data["problems"]] == ["lem:a", "lem:b", "lem:c"]
    for name, (correct, minor, wrong, split) in EXPECTED.items():
        s = data["methods"][name]
        assert (s["correct"], s["minor_gaps"], s["wrong"], s["split"]) == (correct, minor, wrong, split), name
        assert s["accuracy"] == pytest.approx(correct / 3)
    # the method wins on lem:a and lem:b, loses on lem:c
    rows = {p["label"]: p["rows"] for p in data["problems"]}
    assert [rows[x]["method"]["grade"] for x in ("lem:a", "lem:b", "lem:c")] == ["correct", "correct", "wrong"]
    assert rows["lem:c"]["direct"]["grade"] == "correct"
    # every row's calls, tokens and cost are the scripted calls' own
    pricing = Pricing("scripted", {"input": 3, "output": 15})
    spent: dict[tuple[str, str], Usage] = {}
    for request in scripted.calls:
        key = (method_of(request), OBLIGATION.search(request.messages[-1].content).group(1))
        spent[key] = spent.get(key, Usage()) + scripted_usage(request)
    for label, by_method in rows.items():
        for name, row in by_method.items():
            usage = spent[(name, label)]
            assert (row["calls"], row["input_tokens"], row["output_tokens"]) == \
                (usage.calls, usage.input_tokens, usage.output_tokens), (name, label)
            assert row["cost_usd"] == pytest.approx(pricing.cost(usage), abs=1e-6)
            if name != METHOD:  # equal budget: never past the method's cost and its tolerance
                assert row["budget_usd"] == pytest.approx(by_method["method"]["cost_usd"], abs=1e-6)
                assert row["cost_usd"] <= row["budget_usd"] * 1.1 + 1e-9
    assert len(scripted.calls) == data["calls_made"]
    # best-of-n drew several samples and took the one its selector chose; self-refine revised
    assert all(r["best-of-n"]["detail"]["n"] >= 2 and r["best-of-n"]["answer"].startswith("SAMPLE2")
               for r in rows.values())
    assert any(r["self-refine"]["detail"]["rounds"] >= 1 for r in rows.values())
    # the graders: raw agreement and kappa of the scripted table (hand-computed: 29/36 and 478/730)
    assert data["agreement"]["raw_percent"] == pytest.approx(100 * 29 / 36, abs=0.01)
    assert data["agreement"]["fleiss_kappa"] == pytest.approx(478 / 730, abs=1e-4)
    assert {(d["method"], d["label"]) for d in data["disagreements"]} == \
        {("method", "lem:b"), ("direct", "lem:b"), ("best-of-n", "lem:c")}
    markdown = (outcome.directory / "report.md").read_text()
    assert "| method | 66.7% |" in markdown and "Disagreements" in markdown and "lem:c" in markdown
    assert (outcome.directory / "accuracy.png").stat().st_size > 0
    assert (outcome.directory / "accuracy.svg").read_text().lstrip().startswith("<?xml")

    calls = len(scripted.calls)
    again = bench(project, provider)
    assert len(scripted.calls) == calls  # a rerun with the same settings makes no model call
    second = json.loads((again.directory / "report.json").read_text())
    assert again.directory != outcome.directory and second["calls_made"] == 0

    def numbers(report):
        return [{m: {k: v for k, v in r.items() if k not in ("seconds", "calls_made", "cache_hits")}
                 for m, r in p["rows"].items()} for p in report["problems"]]

    assert numbers(second) == numbers(data)


def test_the_reference_proof_never_reaches_a_solver(project):
    scripted = ScriptedProvider(answer)
    bench(project, scripted)
    solvers = [r for r in scripted.calls if r.role != "bench_grader"]
    graders = [r for r in scripted.calls if r.role == "bench_grader"]
    assert solvers and graders
    assert not [r.role for r in solvers if "REFERENCE-SECRET" in text_of(r)]
    # the graders compare with it; a claim without a proof is judged alone
    assert all("REFERENCE-SECRET-A" in text_of(r) for r in graders if "lem:a: " in r.messages[-1].content)
    assert all("has no proof of this claim" in text_of(r) for r in graders if "lem:c: " in r.messages[-1].content)
    assert not [r for r in scripted.calls if "colosseum: benchmark" in text_of(r)]  # the marker is the bench's own
    # the results a problem does not depend on are assumable, as in solve (statements only)
    generator = next(r for r in solvers if r.role == "generator" and "lem:b: " in r.messages[-1].content)
    assert "Among any three integers" in generator.system


def test_the_marker_and_the_labels_choose_the_problems(project):
    index = ProjectIndex.open(project)
    assert marked_labels(index) == ["lem:a", "lem:b", "lem:c"]
    plan = plan_bench(index, ["lem:unmarked"], RunOverrides())
    assert [p.label for p in plan.problems] == ["lem:unmarked"] and not plan.problems[0].has_reference
    with pytest.raises(RunRefused, match="lem:nope"):
        plan_bench(index, ["lem:nope"], RunOverrides())


def test_the_bench_table_and_the_command_line_set_the_graders(make_project, tmp_path):
    from colosseum.app.bench import BenchOverrides

    root = make_project(tmp_path / "p", {"main.tex": MAIN, "colosseum.toml": TOML.replace("graders = 3", (
        'graders = 5\ngrader_model = "claude-opus-4-5"\nmax_thinking_tokens = 2048'))})
    index = ProjectIndex.open(root)
    assert not index.config.problems
    plan = plan_bench(index, None, RunOverrides())
    assert (plan.bench.graders, plan.bench.grader_model, plan.bench.max_thinking_tokens) == (5, "claude-opus-4-5", 2048)
    assert plan_bench(index, None, RunOverrides(), BenchOverrides(graders=2)).bench.graders == 2


def test_a_run_without_a_list_price_is_refused(make_project, tmp_path):
    root = make_project(tmp_path / "p", {"main.tex": MAIN, "colosseum.toml": '[models]\nmodel = "scripted"\n'})
    with pytest.raises(RunRefused, match="list price"):
        plan_bench(ProjectIndex.open(root), None, RunOverrides())


def test_a_method_that_would_exceed_its_budget_stops_and_is_scored_as_it_stands(project):
    scripted = ScriptedProvider(answer)
    outcome = bench(project, scripted, labels=["lem:a"], config=InnerLoopConfig(
        leaves=2, widths=(2, 1), k=2, final_refuters=1, plan_angles=False, max_calls=3))
    data = outcome.data
    row = data["problems"][0]["rows"]
    assert row["method"]["stopped"] and row["method"]["calls"] == 0 and row["method"]["grade"] == "wrong"
    # nothing spent: the baselines' budget covers no call
    assert all(row[m]["calls"] == 0 and row[m]["stopped"] for m in ("direct", "best-of-n", "self-refine"))
    assert [r.role for r in scripted.calls] == []  # an empty answer is wrong without a grader call


def test_the_catalog_entries_that_state_the_claim_are_left_out():
    def entry(entry_id, title, statement, labels=()):
        return Entry(entry_id, "literature", title, "active", Path(f"{entry_id}.md"),
                     {"statement": statement, "links": {"labels": list(labels)}})

    catalog = Catalog({e.id: e for e in (
        entry("linked", "Something", "Another fact.", labels=["lem:a"]),
        entry("same", "Parity", "Among any three integers two have an even sum, as is well known."),
        entry("titled", "Pairs of integers", "Unrelated words here."),
        entry("other", "Handshake", "The sum of the degrees of a graph is twice its number of edges."))}, [])
    kept = without_the_claim(catalog, "lem:a", "\\label{lem:a}\n% colosseum: benchmark\n"
                             "Among any three integers two have an even sum.", "Pairs")
    assert sorted(kept.entries) == ["other"]


def test_equal_budget_arithmetic():
    pricing = Pricing("claude-sonnet-4-5")  # $3 and $15 per million tokens
    step = ModelStep(None)
    baselines = Baselines(interactive(None), pricing, step, max_thinking_tokens=32_000)
    problem = plan_problem()

    def method(input_tokens, output_tokens, calls=10):
        return Attempt(METHOD, "lem:a", Spend(Usage(input_tokens, output_tokens, calls=calls)))

    def direct_for(m):
        row = Attempt("direct", "lem:a", budget_usd=pricing.cost(m.spend.usage))
        return row, baselines.direct_request(problem, row, m)

    # thinking as many tokens as the method wrote
    row, request = direct_for(method(100_000, 5_000))
    assert request.thinking_tokens == 5_000
    # never more than the most it may think
    assert direct_for(method(1_000_000, 60_000))[1].thinking_tokens == 32_000
    # a method that wrote little but read much: the thinking is what it wrote, the cost far below
    row, request = direct_for(method(400_000, 800))
    assert request.thinking_tokens == 0 and 800 < MIN_THINKING_TOKENS
    # a budget the output price caps: the call with its thinking fits the budget and its tolerance
    m = method(0, 20_000, calls=1)  # its one answer is as long as all it wrote: little room to think
    row, request = direct_for(m)
    assert MIN_THINKING_TOKENS <= request.thinking_tokens < 20_000
    estimate = pricing.estimate(request, request.thinking_tokens + 20_000)
    assert estimate <= row.budget_usd * 1.1 + 1e-9
    # best-of-n: n samples at the first one's cost, and the selection, fit the budget; n + 1 would not
    row = Attempt("best-of-n", "lem:a", Spend(Usage(2_000, 1_000, calls=1)), budget_usd=0.2)
    n = baselines.samples_affordable(problem, row, "x" * 4000)
    each = pricing.cost(row.spend.usage)

    def selection(k):
        tokens = pricing.estimate(baselines.selector(problem, []), 300)
        return tokens + pricing.cost(Usage(input_tokens=k * 1001))

    assert n * each + selection(n) <= 0.2 < (n + 1) * each + selection(n + 1)


def plan_problem():
    from colosseum.bench.problems import Problem
    from colosseum.loops.inner.solve import ObligationContext

    return Problem("lem:a", "A claim.", "", ObligationContext("lem:a", "A claim."))


def test_fleiss_kappa_of_a_hand_computed_table():
    # Fleiss (1971) as worked in the literature: 10 subjects, 14 raters, 5 categories
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    assert observed_agreement(table) == pytest.approx(0.378, abs=1e-3)
    assert fleiss_kappa(table) == pytest.approx(0.210, abs=1e-3)
    # the grades as the bench rates them: unanimous everywhere on one grade leaves kappa undefined
    assert rating_table([["correct", "wrong", "wrong"], ["correct"] * 3]) == [[1, 0, 2], [3, 0, 0]]
    assert fleiss_kappa(rating_table([["wrong"] * 3, ["wrong"] * 3])) is None


def test_direct_thinks_through_the_messages_api_and_a_cached_answer_keeps_its_first_usage(tmp_path):
    """The model layer's part: extended thinking in the Anthropic arguments (the forced answer tool
    becomes `auto`, which thinking requires), in the answer cache's key only when asked for, and a
    cached answer's usage as first billed, so a rerun prices the same budgets."""
    import asyncio
    from dataclasses import replace

    from colosseum.models.anthropic_provider import AnthropicProvider
    from colosseum.models.response_cache import request_key

    request = ModelStep(None).request("bench_direct", {"slot": "one", "obligation": "x: y", "assumable": "",
                                                       "notation": "", "catalog": ""})
    thinking = replace(request, thinking_tokens=4096)
    arguments = AnthropicProvider(client=object())._arguments(thinking, [{"role": "user", "content": "q"}])
    assert arguments["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert arguments["max_tokens"] == 4096 + request.max_tokens and arguments["tool_choice"] == {"type": "auto"}
    plain = AnthropicProvider(client=object())._arguments(request, [{"role": "user", "content": "q"}])
    assert "thinking" not in plain and plain["tool_choice"]["type"] == "tool"
    assert request_key("p", "m", thinking) != request_key("p", "m", request)

    scripted = ScriptedProvider(lambda r: {"proof": "P"})
    cached = CachedProvider(scripted, tmp_path / "cache")
    first = asyncio.run(cached.complete(request))
    again = asyncio.run(cached.complete(request))
    assert again.cached and again.usage.calls == 0 and len(scripted.calls) == 1
    assert again.first_usage == first.usage


CLI_TOML = """[models]
model = "claude-sonnet-4-5"
[solve]
leaves = 2
widths = [2, 1]
k = 2
final_refuters = 1
plan_angles = false
"""


def api_answer(body: dict):
    """The Messages API double's answers, by the answer tool's required fields."""
    from doubles.messages_api import tool_answer

    required = set(body["tools"][-1]["input_schema"]["required"])
    if "strategy" in required:
        return tool_answer({"strategy": "parity", "proof": "a candidate"})
    if "critiques" in required:
        return tool_answer({"critiques": []})
    if "open_conflicts" in required:
        return tool_answer({"proof": "the merged proof", "alternative": "", "resolved": [], "open_conflicts": []})
    if "problems" in required:
        return tool_answer({"problems": []})
    if "choice" in required:
        return tool_answer({"choice": 1, "reason": "first"})
    if "grade" in required:
        return tool_answer({"grade": "correct", "reason": "fine"})
    return tool_answer({"proof": "a proof"})


def test_the_command_writes_the_report_and_a_rerun_asks_nothing(make_project, tmp_path):
    import os
    import subprocess
    import sys

    from doubles.messages_api import MessagesAPIDouble

    root = make_project(tmp_path / "p", {"main.tex": MAIN, "colosseum.toml": CLI_TOML})
    with MessagesAPIDouble([], responder=api_answer) as server:
        env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": server.url}

        def run(*extra):
            return subprocess.run([sys.executable, "-m", "colosseum", "bench", str(root), *extra],
                                  capture_output=True, text=True, timeout=120, env=env)

        dry = run("--dry-run")
        assert dry.returncode == 0 and "Nothing was sent" in dry.stdout and "lem:c: no proof" in dry.stdout
        assert server.requests == []
        # a total, as solve and research dry runs give one: the method, the three baselines and the graders
        total = float(re.search(r"at most about \$([\d,.]+) at .* for the whole bench", dry.stdout).group(1))
        one = run("--dry-run", "--labels", "lem:a", "--graders", "1")
        alone = float(re.search(r"at most about \$([\d,.]+)", one.stdout).group(1))
        assert 0 < alone < total  # three problems and three graders cost more than one problem and one grader
        first = run("--labels", "lem:a", "--graders", "2")
        assert first.returncode == 0, first.stderr
        assert "method" in first.stdout and "report written to" in first.stdout
        asked = len(server.requests)
        assert asked > 0
        second = run("--labels", "lem:a", "--graders", "2", "--format", "json")
        assert second.returncode == 0, second.stderr
        assert len(server.requests) == asked and json.loads(second.stdout)["calls_made"] == 0
        refused = run("--labels", "lem:nope")
        assert refused.returncode == 2 and "lem:nope" in refused.stderr
    reports = sorted((root / ".colosseum" / "bench").iterdir())
    assert len(reports) == 2 and all((r / "report.md").is_file() and (r / "report.json").is_file() for r in reports)


def test_without_matplotlib_the_report_names_the_extra_and_is_still_written(project, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    outcome = bench(project, ScriptedProvider(answer), labels=["lem:a"])
    markdown = (outcome.directory / "report.md").read_text()
    assert "No plot: the benchmark's plots need the extra: pip install 'colosseum-latex[bench]'." in markdown
    assert (outcome.directory / "report.json").is_file() and not (outcome.directory / "accuracy.png").exists()


def test_a_failed_grader_call_leaves_fewer_grades_and_exit_1(project):
    from colosseum.models.provider import ProviderError

    def flaky(request):
        user = request.messages[-1].content
        if request.role == "bench_grader" and "METHOD lem:a" in user and "(grader 3 of 3)" in user:
            return ProviderError("scripted", "overloaded", status=529)
        return answer(request)

    outcome = bench(project, ScriptedProvider(flaky), labels=["lem:a"])
    row = outcome.data["problems"][0]["rows"]["method"]
    assert row["grader_failures"] == 1 and len(row["grades"]) == 2 and row["grade"] == "correct"
    assert outcome.data["grading"]["failed_calls"] == 1 and outcome.exit_code == 1


def test_every_baseline_and_grader_request_goes_through_the_stage_runner(project):
    """The seam a batch executor plugs into: each stage's requests, by id, in one call."""
    import asyncio

    scripted = ScriptedProvider(answer)
    stages: list[tuple[str, list[str]]] = []
    interactive_stage = interactive(scripted)

    async def recording(stage, requests):
        stages.append((stage, sorted(requests)))
        return await interactive_stage(stage, requests)

    plan = plan_bench(ProjectIndex.open(project), ["lem:a", "lem:c"], RunOverrides())
    plan.config = INNER
    asyncio.run(plan.run(lambda *a: None, scripted, run_stage=recording))
    names = [name for name, _ in stages]
    assert {"best-of-n: first sample", "best-of-n: samples", "best-of-n: selection", "self-refine: draft",
            "self-refine: critique 1", "grading"} <= set(names)
    assert names[-1] == "grading"
    through_stages = sum(len(ids) for _, ids in stages)
    assert through_stages == sum(r.role.startswith("bench_") for r in scripted.calls)
    assert ["direct/lem:a", "direct/lem:c"] in [ids for name, ids in stages if name == "direct"]


def test_self_refine_decides_the_same_from_the_cache(tmp_path):
    """A rerun estimates each round from what the answers cost when first asked, so it asks
    nothing: a long critique makes the next round dear, whether it came now or from the cache."""
    import asyncio

    def script(request):
        if request.role == "bench_self_critique":
            return {"problems": [{"severity": "major", "quote": "P", "explanation": "x" * 2000}]}
        return {"proof": "P" * 40}

    pricing = Pricing("claude-sonnet-4-5")
    problem = plan_problem()
    for step in range(1, 12):
        budget = 0.004 * step
        method = Attempt(METHOD, "lem:a", Spend(Usage(int(budget / 3e-6), 40, calls=10)))
        scripted = ScriptedProvider(script)
        cached = CachedProvider(scripted, tmp_path / f"cache{step}")
        rounds = []
        for _ in range(2):
            baselines = Baselines(interactive(cached), pricing, ModelStep(None))
            [row] = asyncio.run(baselines.self_refine([(problem, method)]))
            rounds.append((row.detail["rounds"], row.spend.usage.calls))
        calls = sum(1 for _ in scripted.calls)
        assert rounds[0] == rounds[1] and calls == rounds[0][1], (budget, rounds, calls)


def test_bench_with_batch_sends_each_stage_as_a_batch_and_a_rerun_asks_nothing(make_project, tmp_path):
    """`bench --batch`: every call goes out through the Message Batches API (the double's batch
    endpoints, through the real SDK), none interactively, and the answers serve a rerun."""
    import os
    import subprocess
    import sys

    from doubles.messages_api import MessagesAPIDouble

    root = make_project(tmp_path / "p", {"main.tex": MAIN, "colosseum.toml": CLI_TOML})
    with MessagesAPIDouble([], responder=api_answer) as server:
        env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": server.url}

        def run(*extra):
            return subprocess.run([sys.executable, "-m", "colosseum", "bench", str(root), "--labels", "lem:a",
                                   "--graders", "2", *extra], capture_output=True, text=True, timeout=300, env=env)

        dry = run("--dry-run", "--batch")
        assert dry.returncode == 0 and "one batch" in dry.stdout and server.batch_creates == []
        first = run("--batch", "--format", "json")
        assert first.returncode == 0, first.stderr
        assert server.requests == [] and len(server.batch_creates) >= 3  # the method's stages, baselines, graders
        batched = sum(len(b["requests"]) for b in server.batch_creates)
        assert json.loads(first.stdout)["calls_made"] == batched
        (folder,) = (root / ".colosseum" / "bench").iterdir()
        assert (folder / "batches.json").is_file()  # what --resume would fetch instead of sending again
        again = run("--format", "json")
        assert again.returncode == 0 and json.loads(again.stdout)["calls_made"] == 0 and server.requests == []
        missing = run("--batch", "--resume", "no-such-run")
        assert missing.returncode == 2 and "no bench run `no-such-run`" in missing.stderr
