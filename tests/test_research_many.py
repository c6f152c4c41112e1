"""`colosseum research PATH --labels a,b`: several theorems in one process, each in a run folder of
its own, sharing one provider. Through the real CLI and the real `anthropic` SDK against the
Messages API double: with `--batch` the stages of both theorems go out together (fewer batches
than two single runs), each theorem ends as its own single-label run does, a bad label refuses
before any call (exit 2), and a dry run sums the estimates."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from colosseum.cli.main import main
from doubles.messages_api import MessagesAPIDouble
from doubles.research_script import ResearchScript, role_of
from test_research_cli import MAIN, RESULT, TOML, responder

OTHER = r"""
\begin{theorem}\label{thm:other}
Every admissible input has the property.
\end{theorem}
"""
LABELS = ("thm:goal", "thm:other")
BATCH_TOML = TOML + "[models]\nbatch_poll_s = 0\n"  # the double ends a batch by polls


@pytest.fixture
def make_two(make_project, tmp_path):
    def make(name: str) -> Path:
        return make_project(tmp_path / name, {"main.tex": MAIN, "sections/result.tex": RESULT + OTHER,
                                              "colosseum.toml": BATCH_TOML})
    return make


def research(project: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url}
    return subprocess.run([sys.executable, "-m", "colosseum", "research", str(project), *extra],
                          capture_output=True, text=True, timeout=300, env=env)


def status_line(stdout: str, label: str) -> str:
    (line,) = [line for line in stdout.splitlines() if line.startswith(label + " ")]
    return line.split()[1]


def test_two_theorems_with_batch_share_their_stages_and_end_as_their_single_runs(make_two):
    singles = {label: make_two(f"single-{n}") for n, label in enumerate(LABELS)}
    together = make_two("together")
    scripts = []  # a fresh script for each command (its counts are per run)

    def answer(body: dict):
        return responder(scripts[-1])(body)

    with MessagesAPIDouble([], responder=answer) as server:
        alone = {}
        for label, project in singles.items():
            scripts.append(ResearchScript(generations=(2, 1)))
            done = research(project, server.url, "--label", label, "--batch")
            assert done.returncode == 0, (label, done.stderr[:3000])
            alone[label] = done.stdout
        singles_creates = len(server.batch_creates)
        assert singles_creates > 0
        scripts.append(ResearchScript(generations=(2, 1)))
        sent = research(together, server.url, "--labels", ",".join(LABELS), "--batch")
        creates = server.batch_creates[singles_creates:]
        assert server.requests == []  # not one interactive call
    assert sent.returncode == 0, sent.stderr
    assert 0 < len(creates) < singles_creates  # the two theorems' stages went out together
    assert max(len(c["requests"]) for c in creates) > max(len(c["requests"]) for c in server.batch_creates[:singles_creates])
    for label in LABELS:
        assert f"{label}: accepted" in alone[label]
        assert status_line(sent.stdout, label) == "accepted"
        single_calls = int(alone[label].split(" model calls")[0].split()[-1])
        (row,) = [line for line in sent.stdout.splitlines() if line.startswith(label + " ")]
        assert int(row.split(" calls")[0].split()[-1]) == single_calls  # the same run, in company
    assert f"total: 2 theorems: 2 accepted" in sent.stdout and f"{len(creates)} batches" in sent.stdout
    # each theorem its own run folder and its own draft file, beside the theorem's file
    folders = sorted((together / ".colosseum" / "runs").iterdir())
    assert [f.name.split("-research-")[1] for f in folders] == ["thm_goal", "thm_other"]
    assert all((f / "batches.json").is_file() for f in folders)
    for label in LABELS:
        assert (together / "sections" / f"result-{label.replace(':', '-')}-skeleton.tex").is_file()


def test_a_bad_label_refuses_before_any_call(make_two):
    project = make_two("paper")
    with MessagesAPIDouble([], responder=responder(ResearchScript())) as server:
        for labels in ("thm:goal,thm:nope", "thm:goal,lem:known", ","):
            for extra in ((), ("--batch",)):
                done = research(project, server.url, "--labels", labels, *extra)
                assert done.returncode == 2 and "nothing was sent" in done.stderr, done.stderr
        assert server.requests == [] and server.batch_creates == []
    assert not (project / ".colosseum" / "runs").exists()


def test_what_labels_does_not_take_is_refused(make_two, capsys):
    project = make_two("paper")
    for extra, said in ((("--out", str(project / "new.tex")), "--labels takes no --out"),
                        (("--select-with", "m2", "--resume", "some-run"), "cannot be resumed yet"),
                        (("--resume", "some-run"), "no run 'some-run' to resume"),
                        (("--select-with", "m2", "--judges", "2", "--threshold", "3"), "cannot be more than")):
        assert main(["research", str(project), "--labels", ",".join(LABELS), *extra]) == 2
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err, err
    (project / "sections" / "result-thm-other-skeleton.tex").write_text("mine")  # one draft file exists
    assert main(["research", str(project), "--labels", ",".join(LABELS)]) == 2
    assert "never overwrites" in capsys.readouterr().err
    assert not (project / ".colosseum" / "runs").exists()


def test_a_dry_run_sums_the_theorems_estimates(make_two, capsys):
    project = make_two("paper")
    assert main(["research", str(project), "--label", "thm:goal", "--dry-run"]) == 0
    capsys.readouterr()
    assert main(["research", str(project), "--labels", ",".join(LABELS), "--dry-run", "--batch"]) == 0
    out = capsys.readouterr().out
    (goal,) = [line for line in out.splitlines() if line.startswith("thm:goal:")]
    typical = int(goal.split("about ")[1].split()[0])
    assert f"total for 2 theorems: about {2 * typical} calls" in out and "Nothing was sent" in out
    assert "one batch per stage for all" in out
    # with --select-with each theorem runs with both models, plus the judges (8 by default)
    assert main(["research", str(project), "--labels", ",".join(LABELS), "--dry-run", "--select-with", "m2"]) == 0
    out = capsys.readouterr().out
    assert f"total for 2 theorems: about {2 * (2 * typical + 8)} calls" in out
    assert not (project / ".colosseum").exists()


def test_the_exit_code_is_the_worst_runs(tmp_path):
    from types import SimpleNamespace

    from colosseum.app.research import ModelRun, ResearchOutcome
    from colosseum.app.research_many import many_research_summary
    from colosseum.app.stops import StopReason

    def outcome(label: str, status: str | None, stop: StopReason | None = None) -> ResearchOutcome:
        result = SimpleNamespace(status=status, message="", decomposition=None, run_dir=None) if status else None
        return ResearchOutcome(label, tmp_path / label, [ModelRun("m", 3, 1, 0.5)], result, None, stop)

    def code(*outcomes) -> int:
        return many_research_summary(list(outcomes), tmp_path, None)["totals"]["exit_code"]

    accepted, rejected = outcome("a", "accepted"), outcome("b", "rejected")
    refused = outcome("c", None, StopReason("refused", "the theorem now has a proof"))
    cancelled = outcome("d", None, StopReason("cancelled", "Ctrl-C"))
    assert code(accepted, accepted) == 0 and code(accepted, rejected) == 1
    assert code(rejected, refused) == 2 and code(refused, cancelled, accepted) == 130
    totals = many_research_summary([accepted, rejected], tmp_path, 4)["totals"]
    assert (totals["theorems"], totals["accepted"], totals["calls"], totals["cost_usd"], totals["batches"]) == \
        (2, 1, 6, 1.0, 4)


def test_one_theorem_in_json_says_what_the_text_says(make_two):
    project = make_two("paper")
    with MessagesAPIDouble([], responder=responder(ResearchScript(generations=(2, 1)))) as server:
        done = research(project, server.url, "--label", "thm:goal", "--format", "json")
        asked = len(server.requests)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)  # one object: the text's lines are not on stdout
    assert summary["schema_version"] == 1 and summary["label"] == "thm:goal" and summary["exit_code"] == 0
    assert summary["status"] == "accepted" and summary["stopped"] is None and summary["selection"] is None
    assert summary["draft"] == "sections/result-thm-goal-skeleton.tex" and (project / summary["draft"]).is_file()
    assert summary["obligations"]["passed"] == summary["obligations"]["total"] > 0
    assert summary["usage"]["calls"] == asked and summary["usage"]["by_model"][0]["calls"] == asked
    assert (project / summary["run"] / "run.json").is_file() and (project / summary["report"]).is_file()


def test_several_theorems_with_cross_model_selection_in_json(make_two):
    """--labels with --select-with: each theorem runs with both models and B judges A's proof;
    --format json gives each run's object of a single research in `runs`, and `totals`."""
    project = make_two("paper")
    model_a = ResearchScript(generations=(2, 1))
    model_b = ResearchScript(generations=(2, 1), judges_correct=5)
    with MessagesAPIDouble([], responder=responder(model_a, {"claude-haiku-4-5": model_b})) as server:
        done = research(project, server.url, "--labels", ",".join(LABELS), "--model", "claude-opus-4-5",
                        "--select-with", "claude-haiku-4-5", "--format", "json")
        asked = list(server.requests)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["schema_version"] == 1 and [run["label"] for run in summary["runs"]] == list(LABELS)
    judges = [r for r in asked if role_of("".join(b["text"] for b in r["system"])) == "selection_judge"]
    assert len(judges) == 2 * 8 and {r["model"] for r in judges} == {"claude-haiku-4-5"}  # 8 for each theorem
    for run in summary["runs"]:
        assert run["status"] == "accepted" and run["selection"]["chosen"] == "A" and run["draft"]
        assert [m["model"] for m in run["usage"]["by_model"]] == ["claude-opus-4-5", "claude-haiku-4-5"]
        folder = project / run["run"]
        assert (folder / "selection.json").is_file() and (folder / "model-a").is_dir() and (folder / "model-b").is_dir()
    totals = summary["totals"]
    assert totals == {**totals, "theorems": 2, "accepted": 2, "calls": len(asked), "batches": None, "exit_code": 0}


def test_several_theorems_stopped_by_their_budget_resume_together(make_two):
    """--labels with --resume RUN_A,RUN_B: each run goes on in its own folder for the theorem its
    record names; what was answered before comes from the cache (never asked again)."""
    project = make_two("paper")
    with MessagesAPIDouble([], responder=responder(ResearchScript(generations=(2, 1)))) as server:
        stopped = research(project, server.url, "--labels", ",".join(LABELS), "--max-calls", "6", "--format", "json")
        before = {json.dumps([r["system"], r["messages"]], sort_keys=True) for r in server.requests}
    assert stopped.returncode == 1, stopped.stderr
    first = json.loads(stopped.stdout)
    assert [run["status"] for run in first["runs"]] == ["budget-stopped"] * 2
    folders = [project / run["run"] for run in first["runs"]]
    with MessagesAPIDouble([], responder=responder(ResearchScript(generations=(2, 1)))) as server:
        wrong = research(project, server.url, "--labels", "thm:other", "--resume", folders[0].name)
        assert wrong.returncode == 2 and "not among the labels" in wrong.stderr and server.requests == []
        resumed = research(project, server.url, "--labels", ",".join(LABELS), "--format", "json",
                           "--resume", ",".join(f.name for f in reversed(folders)))
        asked = {json.dumps([r["system"], r["messages"]], sort_keys=True) for r in server.requests}
    assert resumed.returncode == 0, resumed.stderr
    again = json.loads(resumed.stdout)
    assert [run["run"] for run in again["runs"]] == [run["run"] for run in first["runs"]]  # the same folders
    assert [run["status"] for run in again["runs"]] == ["accepted"] * 2
    assert again["totals"]["response_cache_hits"] > 0 and not asked & before  # nothing asked twice
    assert sorted((project / ".colosseum" / "runs").iterdir()) == sorted(folders)


def test_cross_model_selection_of_several_theorems_with_batch_counts_both_models_batches(make_two):
    project = make_two("paper")
    model_a = ResearchScript(generations=(2, 1))
    model_b = ResearchScript(generations=(2, 1), judges_correct=5)
    with MessagesAPIDouble([], responder=responder(model_a, {"claude-haiku-4-5": model_b})) as server:
        done = research(project, server.url, "--labels", ",".join(LABELS), "--model", "claude-opus-4-5",
                        "--select-with", "claude-haiku-4-5", "--batch", "--format", "json")
        assert server.requests == []  # not one interactive call: model B's runs batch too
        models = [{item["params"]["model"] for item in create["requests"]} for create in server.batch_creates]
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert [run["status"] for run in summary["runs"]] == ["accepted"] * 2
    assert summary["totals"]["batches"] == len(models)  # model A's batches and model B's
    assert {"claude-opus-4-5"} in models and {"claude-haiku-4-5"} in models
