"""`colosseum research PATH --labels a,b`: several theorems in one process, each in a run folder of
its own, sharing one provider. Through the real CLI and the real `anthropic` SDK against the
Messages API double: with `--batch` the stages of both theorems go out together (fewer batches
than two single runs), each theorem ends as its own single-label run does, a bad label refuses
before any call (exit 2), and a dry run sums the estimates."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from colosseum.cli.main import main
from doubles.messages_api import MessagesAPIDouble
from doubles.research_script import ResearchScript
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
