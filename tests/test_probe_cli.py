"""`colosseum probe` end to end (issue 18): the real CLI and the real Anthropic SDK against the local
Messages-API double, which scripts a `run_python` tool_use and then the prober's answer; the code runs
for real in the sandbox, and its output must come back to the double as the tool_result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from doubles.messages_api import MessagesAPIDouble, tool_answer
from test_sandbox import require_sandbox
from catalog_files import written_entry

PAPER = r"""\documentclass{article}
\newtheorem{lemma}{Lemma}
\begin{document}
\begin{lemma}\label{lem:euler}
For every integer $n \ge 0$, $n^2 + n + 41$ is prime.
\end{lemma}
\end{document}
"""
# the model's probe: finds n = 40, where n^2 + n + 41 = 41^2
PROBE = ("def prime(m):\n    return m > 1 and all(m % d for d in range(2, int(m ** 0.5) + 1))\n"
         "bad = [n for n in range(0, 60) if not prime(n * n + n + 41)]\nprint('first failure', bad[0])\n")
COUNTEREXAMPLE = {"verdict": "counterexample", "cases_checked": 41, "range": {"n": [0, 40]},
                  "counterexample": {"case": "n = 40: 1681 = 41^2", "code": PROBE}, "explanation": "n = 40 fails."}
CONSISTENT = {"verdict": "consistent", "cases_checked": 40, "range": {"n": [0, 39]},
              "counterexample": {"case": "", "code": ""}, "explanation": "Prime for every n <= 39."}


@pytest.fixture
def sandbox():
    require_sandbox("a probe cannot run")


def run_python_call(code: str, call_id: str = "toolu_probe") -> tuple[int, dict, dict]:
    """The model's turn that calls run_python (stop_reason tool_use), as the API sends it."""
    return 200, {"id": "msg_tool", "type": "message", "role": "assistant", "model": "claude-double",
                 "content": [{"type": "text", "text": "Let me check small n."},
                             {"type": "tool_use", "id": call_id, "name": "run_python", "input": {"code": code}}],
                 "stop_reason": "tool_use", "stop_sequence": None,
                 "usage": {"input_tokens": 50, "output_tokens": 30}}, {}


def project(tmp_path: Path, toml: str = "") -> Path:
    folder = tmp_path / "paper"
    folder.mkdir()
    (folder / "main.tex").write_text(PAPER)
    if toml:
        (folder / "colosseum.toml").write_text(toml)
    return folder


def run(folder: Path, url: str, *extra: str, trusted: bool = True) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "COLOSSEUM_TRUST"}
    env.update({"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url, "HOME": str(folder.parent / "home")})
    if trusted:
        env["COLOSSEUM_TRUST"] = "1"
    return subprocess.run([sys.executable, "-m", "colosseum", "probe", str(folder), "--label", "lem:euler", *extra],
                          capture_output=True, text=True, timeout=300, env=env)


def test_a_tool_call_runs_in_the_sandbox_and_its_output_returns_as_the_tool_result(tmp_path, sandbox):
    folder = project(tmp_path)
    with MessagesAPIDouble([run_python_call(PROBE), tool_answer(COUNTEREXAMPLE)]) as server:
        done = run(folder, server.url, "--format", "json")
    assert done.returncode == 3, done.stderr  # a counterexample
    report = json.loads(done.stdout)
    assert report["verdict"] == "counterexample" and report["executions"] == 1 and report["requests"] == 2
    first, second = server.requests
    assert [t["name"] for t in first["tools"]] == ["run_python", "answer"]
    assert first["tool_choice"] == {"type": "any"}  # may run code or answer
    assert "n^2 + n + 41" in first["messages"][0]["content"]
    # the second request continues the transcript: the model's turn, then the tool's result
    assistant, result_turn = second["messages"][1], second["messages"][2]
    assert assistant["role"] == "assistant" and assistant["content"][1]["id"] == "toolu_probe"
    (result,) = result_turn["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_probe"
    shown = json.loads(result["content"])
    assert shown["stdout"] == "first failure 40\n" and shown["exit_code"] == 0 and shown["limit"] == "none"
    record = json.loads((Path(report["run"]) / "run.json").read_text())
    assert record["verdict"] == "counterexample" and record["label"] == "lem:euler"
    (execution,) = record["executions"]
    assert execution["code"] == PROBE and execution["stdout"] == "first failure 40\n" and execution["sandboxed"]
    assert record["limits"]["cpu_s"] > 0 and Path(report["run"]).name.endswith("probe-lem_euler")
    # the counterexample is computation evidence against the claim, in an observation of its own
    from colosseum.catalog.store import read_entry

    assert report["catalog_entry"].startswith("counterexample-to-lem-euler")  # a writer's suffix may follow
    entry, problems = read_entry(folder / "knowledge" / f"{report['catalog_entry']}.md")
    assert problems == [] and entry.data["strength"] == "computation" and "counterexample" in entry.data["tags"]
    (item,) = entry.data["evidence"]
    assert item["verdict"] == "counterexample" and item["counterexample"] == "n = 40: 1681 = 41^2"
    assert item["range"] == {"n": [0, 40]}


def test_a_consistent_verdict_exits_zero_and_says_the_range(tmp_path, sandbox):
    folder = project(tmp_path)
    with MessagesAPIDouble([run_python_call("print(sum(range(10)))"), tool_answer(CONSISTENT)]) as server:
        done = run(folder, server.url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("lem:euler: consistent (1 run(s), 2 request(s))")
    assert "checked: {'n': [0, 39]} (40 case(s))" in done.stdout
    assert json.loads(server.requests[1]["messages"][2]["content"][0]["content"])["stdout"] == "45\n"
    # the verdict is computation evidence in the catalog, with the range it checked
    from colosseum.catalog.store import read_entry

    path = written_entry(folder / "knowledge", "probe-of-lem-euler")
    assert f"written to the catalog: {path.stem} (computation evidence, not a proof)" in done.stdout
    entry, problems = read_entry(path)
    assert problems == [] and entry.kind == "observation" and entry.data["strength"] == "computation"
    (item,) = entry.data["evidence"]
    assert item["type"] == "computation" and item["range"] == {"n": [0, 39]}
    assert item["artifact"].startswith(".colosseum/runs/") and item["artifact"].endswith("probe-lem_euler/run.json")
    assert entry.data["scope"] == "0 <= n <= 39"


def test_the_loop_stops_at_max_tool_calls_and_the_last_request_must_answer(tmp_path, sandbox):
    folder = project(tmp_path, "[probe]\nmax_tool_calls = 3\n")

    def always_run(body: dict):  # a model that would run code for ever, unless made to answer
        if body["tool_choice"] == {"type": "tool", "name": "answer"}:
            return tool_answer(CONSISTENT)
        return run_python_call("print(1)", f"toolu_{len(body['messages'])}")

    with MessagesAPIDouble([], responder=always_run) as server:
        done = run(folder, server.url, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert len(server.requests) == 3 and json.loads(done.stdout)["executions"] == 2
    assert [r["tool_choice"]["type"] for r in server.requests] == ["any", "any", "tool"]
    assert [t["name"] for t in server.requests[-1]["tools"]] == ["run_python", "answer"]  # its transcript names them


def test_an_untrusted_folder_exits_2_and_runs_nothing(tmp_path):
    folder = project(tmp_path)
    with MessagesAPIDouble([run_python_call(PROBE), tool_answer(COUNTEREXAMPLE)]) as server:
        done = run(folder, server.url, trusted=False)
    assert done.returncode == 2
    assert "not trusted, so no probe is run" in done.stderr and "--trust" in done.stderr
    assert server.requests == [] and not (folder / ".colosseum" / "runs").exists()


def test_an_unknown_label_is_bad_input(tmp_path):
    folder = project(tmp_path)
    env = {**os.environ, "COLOSSEUM_TRUST": "1", "HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "colosseum", "probe", str(folder), "--label", "lem:none"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2 and "no claim labelled 'lem:none'" in done.stderr


def test_the_dry_run_calls_nothing(tmp_path):
    folder = project(tmp_path)
    with MessagesAPIDouble([]) as server:
        done = run(folder, server.url, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "probe lem:euler: the prober in at most 8 model request(s)" in done.stdout
    assert server.requests == []


def test_the_dry_run_of_an_untrusted_folder_gives_the_plan_and_says_a_run_needs_trust(tmp_path):
    # a dry run executes nothing, so trust is not needed for it: it was refused (exit 2) while
    # solve's and research's dry runs gave their plans and said what trust would change
    folder = project(tmp_path)
    with MessagesAPIDouble([]) as server:
        done = run(folder, server.url, "--dry-run", trusted=False)
    assert done.returncode == 0, done.stderr
    assert "probe lem:euler: the prober in at most 8 model request(s)" in done.stdout
    assert "a run would not start: the folder is not trusted" in done.stdout and "--trust" in done.stdout
    assert server.requests == [] and not (folder / ".colosseum" / "runs").exists()


def test_without_bubblewrap_the_probe_says_why_and_exits_1(tmp_path):
    folder = project(tmp_path)
    (tmp_path / "bin").mkdir()  # a PATH with no bwrap on it
    env = {**os.environ, "COLOSSEUM_TRUST": "1", "HOME": str(tmp_path / "home"), "PATH": str(tmp_path / "bin"),
           "ANTHROPIC_API_KEY": "sk-test"}
    with MessagesAPIDouble([run_python_call(PROBE), tool_answer(COUNTEREXAMPLE)]) as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        done = subprocess.run([sys.executable, "-m", "colosseum", "probe", str(folder), "--label", "lem:euler"],
                              capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 1
    assert "bubblewrap (bwrap) is not installed, so probes are off" in done.stderr
    assert server.requests == []


def test_each_request_of_the_loop_is_one_call_of_the_budget():
    import asyncio

    from colosseum.app.probe import RUN_PYTHON
    from colosseum.models.anthropic_provider import AnthropicProvider
    from colosseum.models.budget import Budget
    from colosseum.models.errors import BudgetReached
    from colosseum.models.step import ModelStep
    from colosseum.models.tool_loop import answer_with_tools

    ran = []  # the tool runner here only counts: the sandbox is not what this test is about
    with MessagesAPIDouble([run_python_call("print(2)"), run_python_call("print(3)", "toolu_2"),
                            tool_answer(CONSISTENT)]) as server:
        provider = AnthropicProvider(base_url=server.url, api_key="sk-test")
        step = ModelStep(provider, budget=Budget.of_started_calls(2))
        request = step.request("prober", {"label": "L", "claim": "c", "notation": "", "max_runs": 5},
                               tools=(RUN_PYTHON,))
        with pytest.raises(BudgetReached):
            asyncio.run(answer_with_tools(step, request, lambda call: ran.append(call) or "ok", max_calls=8))
    assert len(server.requests) == 2 and len(ran) == 2  # the third request was refused before it was sent


def test_a_probe_stopped_by_a_limit_says_which_in_its_tool_result_and_the_loop_goes_on(tmp_path, sandbox):
    folder = project(tmp_path, "[probe]\ncpu_s = 1\n")
    script = [run_python_call("while True:\n    pass\n"), run_python_call("print('after')", "toolu_2"),
              tool_answer({**CONSISTENT, "verdict": "inconclusive", "range": {}})]
    with MessagesAPIDouble(script) as server:
        done = run(folder, server.url, "--format", "json")
    assert done.returncode == 1, done.stderr  # inconclusive
    stopped = json.loads(server.requests[1]["messages"][2]["content"][0]["content"])
    assert stopped["limit"] == "cpu" and stopped["exit_code"] != 0
    assert json.loads(server.requests[2]["messages"][4]["content"][0]["content"])["stdout"] == "after\n"
    record = json.loads((Path(json.loads(done.stdout)["run"]) / "run.json").read_text())
    assert [e["limit"] for e in record["executions"]] == ["cpu", "none"] and record["limits"]["cpu_s"] == 1


def test_an_answer_given_beside_a_tool_call_waits_for_the_tool_results():
    from colosseum.models.provider import ToolCall
    from colosseum.models.tool_loop import _results

    blocks = ({"type": "text", "text": "x"}, {"type": "tool_use", "id": "a", "name": "run_python", "input": {}},
              {"type": "tool_use", "id": "b", "name": "answer", "input": {}})
    results = _results(blocks, (ToolCall("a", "run_python", {}),), ["ran"])
    assert [(r["tool_use_id"], r["content"]) for r in results] == [
        ("a", "ran"), ("b", "Not taken: answer once the tool results are in.")]  # the API wants a result for each


def test_a_malformed_answer_is_repaired_by_the_answer_tool_alone(tmp_path, sandbox):
    folder = project(tmp_path)
    with MessagesAPIDouble([tool_answer({"verdict": "maybe"}), tool_answer(CONSISTENT)]) as server:
        done = run(folder, server.url, "--no-catalog")
    assert done.returncode == 0, done.stderr
    assert server.requests[0]["tool_choice"] == {"type": "any"}
    assert server.requests[1]["tool_choice"] == {"type": "tool", "name": "answer"}  # not another run
    assert not (folder / "knowledge").exists()  # --no-catalog


def test_a_rerun_replays_from_the_answer_cache_and_runs_nothing(tmp_path, sandbox):
    """As solve's refuters do: the second probe asks the model nothing and runs no code; the run's
    record has the execution, marked replayed, with the output the first run gave."""
    folder = project(tmp_path)
    with MessagesAPIDouble([run_python_call(PROBE), tool_answer(COUNTEREXAMPLE)]) as server:
        first = run(folder, server.url, "--format", "json", "--no-catalog")
        asked = len(server.requests)
        again = run(folder, server.url, "--format", "json", "--no-catalog")
        assert asked == 2 and len(server.requests) == asked  # the rerun sent nothing
        server.script.extend([run_python_call(PROBE), tool_answer(COUNTEREXAMPLE)])
        fresh = run(folder, server.url, "--format", "json", "--no-catalog", "--no-cache")
        assert len(server.requests) == 2 * asked  # --no-cache asks again, and runs the code again
    assert first.returncode == again.returncode == 3, again.stderr
    report = json.loads(again.stdout)
    assert report["verdict"] == "counterexample" and report["executions"] == 1
    (execution,) = json.loads((Path(report["run"]) / "run.json").read_text())["executions"]
    assert execution["replayed"] and execution["stdout"] == "first failure 40\n"  # nothing ran in the sandbox
    for ran in (first, fresh):
        (execution,) = json.loads((Path(json.loads(ran.stdout)["run"]) / "run.json").read_text())["executions"]
        assert not execution.get("replayed") and execution["stdout"] == "first failure 40\n"


def test_a_statement_kept_in_lean_is_not_probed(tmp_path):
    # infinity-cosmos: `probe --label defn:simplex-category --dry-run` (an \inputleannode) planned
    # 8 requests for a claim whose statement, as the prober would get it, is empty
    from colosseum.app.probe import probe_setup
    from colosseum.app.stops import RunRefused
    from colosseum.index import ProjectIndex

    folder = tmp_path / "paper"
    folder.mkdir()
    (folder / "main.tex").write_text("\\documentclass{article}\n\\newcommand{\\inputleannode}[1]{}\n"
                                     "\\begin{document}\n\\inputleannode{defn:simplex}\n\\end{document}\n")
    with pytest.raises(RunRefused, match=r"`defn:simplex` is stated in Lean \(\\inputleannode\): the paper gives "
                                         "the prober no statement to check"):
        probe_setup(ProjectIndex.open(folder), "defn:simplex")
