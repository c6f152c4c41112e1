"""`colosseum solve` says what its run concluded: the verdict (unrefuted, refuted, incomplete) in
its JSON and text output, in its exit code, in run.json and the report, and in what the curator
writes to the catalog. The real CLI and the real Anthropic SDK, with a scripted Messages-API double
whose refuters decide the verdict."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from doubles.messages_api import MessagesAPIDouble, error, tool_answer
from catalog_files import written_entry

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
LABEL = "lem:resampling"


def scripted(severity: str, aggregator_fails: bool = False):
    """Provers that write one proof, refuters that all find the same anchored flaw of ``severity``,
    aggregators that merge and resolve nothing (or fail with a request the API refuses)."""
    def answer(body: dict):
        required = set(body["tools"][0]["input_schema"]["required"])
        if "strategy" in required:
            return tool_answer({"strategy": "witness trees", "proof": "By the witness-tree argument, the bound holds."})
        if "critiques" in required:
            return tool_answer({"critiques": [{"severity": severity, "kind": "gap", "quote": "the bound holds",
                                               "explanation": "the expectation bound needs the LLL condition",
                                               "repair": "cite thm:moser-tardos"}]})
        if aggregator_fails:
            return error(400, "invalid_request_error", "the aggregator's request was refused")
        if "angles" in required:
            return tool_answer({"angles": [{"angle": "witness trees", "why": "Moser-Tardos"},
                                           {"angle": "entropy compression", "why": "counts the runs"}]})
        return tool_answer({"proof": "Merged: by the witness-tree argument the bound holds.", "alternative": "",
                            "resolved": [], "open_conflicts": []})
    return answer


def copy_example(tmp_path: Path) -> Path:
    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    return project


def solve(project: Path, url: str, *extra: str, label: str = LABEL, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url}
    return subprocess.run([sys.executable, "-m", "colosseum", "solve", str(project), "--label", label, *extra],
                          capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def only_run(project: Path) -> Path:
    (run,) = (project / ".colosseum" / "runs").iterdir()
    return run


def test_a_surviving_major_flaw_is_refuted_exit_3_and_no_proof_enters_the_catalog(tmp_path):
    project = copy_example(tmp_path)
    with MessagesAPIDouble([], responder=scripted("major")) as server:
        done = solve(project, server.url, "--format", "json")
    assert done.returncode == 3, done.stderr
    summary = json.loads(done.stdout)  # one object, nothing else on stdout
    assert summary["verdict"] == "refuted" and summary["label"] == LABEL
    assert summary["critiques"] and all(c["severity"] == "major" for c in summary["critiques"])
    run = only_run(project)
    record = json.loads((run / "run.json").read_text())
    assert record["verdict"] == "refuted" and record["schema_version"] == summary["schema_version"]
    assert "## Verdict\n\n**refuted**" in (run / "report.md").read_text()
    assert not list((project / "knowledge").glob("proof-of-*.md"))


def test_a_surviving_fatal_flaw_records_failed_routes_only(tmp_path):
    project = copy_example(tmp_path)
    with MessagesAPIDouble([], responder=scripted("fatal")) as server:
        done = solve(project, server.url)
    assert done.returncode == 3, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("verdict: refuted") and "fatal or major critique(s) survived" in first
    knowledge = project / "knowledge"
    assert not list(knowledge.glob("proof-of-*.md"))
    assert list(knowledge.glob("failed-lem-resampling-*.md"))


def test_only_minor_flaws_is_unrefuted_exit_0_with_a_model_reviewed_proof(tmp_path):
    from colosseum.catalog.store import read_entry

    project = copy_example(tmp_path)
    with MessagesAPIDouble([], responder=scripted("minor")) as server:
        done = solve(project, server.url, "--format", "json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    run = only_run(project)
    assert list(summary) == ["schema_version", "label", "verdict", "proof", "critiques", "run", "stopped", "usage",
                             "computation"]
    assert isinstance(summary["schema_version"], int) and summary["verdict"] == "unrefuted"
    # the proof exactly as it would be inserted: a draft, marked with the run that wrote it
    assert summary["proof"] == (f"\\begin{{proof}} % colosseum: draft {run.name}\n"
                                "Merged: by the witness-tree argument the bound holds.\n\\end{proof}")
    assert summary["critiques"][0] == {"severity": "minor", "kind": "gap", "quote": "the bound holds",
                                       "anchored": True, "text": "the expectation bound needs the LLL condition",
                                       "anchor": "proof", "evidence": None}
    assert summary["run"] == f".colosseum/runs/{run.name}" and summary["stopped"] is None
    assert summary["usage"]["calls"] == len(server.requests) and summary["usage"]["input_tokens"] > 0
    assert set(summary["usage"]) == {"calls", "input_tokens", "output_tokens", "response_cache_hits", "cost_usd"}
    assert json.loads((run / "run.json").read_text())["verdict"] == "unrefuted"
    entry, problems = read_entry(written_entry(project / "knowledge", "proof-of-lem-resampling"))
    assert problems == []  # reviewed_by and reviewer are in the catalog's schema
    (evidence,) = entry.data["evidence"]
    assert evidence["type"] == "proof" and evidence["reviewed_by"] == "model"
    assert run.name in evidence["reviewer"]


def test_a_failed_required_call_is_incomplete_exit_1(tmp_path):
    project = copy_example(tmp_path)
    with MessagesAPIDouble([], responder=scripted("minor", aggregator_fails=True)) as server:
        done = solve(project, server.url, "--format", "json")
        text = solve(copy_example(tmp_path / "again"), server.url)
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    assert summary["verdict"] == "incomplete" and summary["proof"] is None
    assert summary["stopped"]["kind"] in ("incomplete", "model-unreachable")
    assert json.loads((only_run(project) / "run.json").read_text())["verdict"] == "incomplete"
    assert not list((project / "knowledge").glob("proof-of-*.md"))
    assert text.returncode == 1 and text.stdout.startswith("verdict: incomplete")


def test_a_claim_that_is_no_obligation_is_bad_input_exit_2(tmp_path):
    project = copy_example(tmp_path)
    with MessagesAPIDouble([], responder=scripted("minor")) as server:
        runs = [solve(project, server.url, *extra, label="lem:edge-degree") for extra in ((), ("--dry-run",))]
        missing = solve(project, server.url, "--dry-run", label="lem:nowhere")
        assert server.requests == []
    for refused in runs:
        assert refused.returncode == 2 and "`lem:edge-degree` is not an obligation" in refused.stderr
        assert refused.stdout == ""
    assert missing.returncode == 2 and "no claim `lem:nowhere`" in missing.stderr


def test_each_way_a_solve_ends_has_its_exit_code():
    from colosseum.app.solve import SolveOutcome
    from colosseum.app.stops import StopReason
    from colosseum.loops.inner.records import Bundle, Candidate, Critique, InnerLoopConfig, SolveResult
    from colosseum.models import Usage

    def finished(*severities: str) -> SolveResult:
        critiques = [Critique(f"c{i}", s, "gap", "q", "why") for i, s in enumerate(severities)]
        root = Bundle("root", 3, Candidate("root", "By counting."), critiques)
        return SolveResult(root, {"root": root}, [], [], Usage(), seed=1)

    def outcome(result=None, stop=None) -> SolveOutcome:
        return SolveOutcome("lem:x", "", "m", InnerLoopConfig(), Path("runs/r1"), result, stop)

    ends = {"unrefuted": outcome(finished("minor", "minor")), "refuted": outcome(finished("minor", "major")),
            "budget": outcome(stop=StopReason("budget-reached")), "failed": outcome(stop=StopReason("incomplete")),
            "cancelled": outcome(stop=StopReason("cancelled")), "refused": outcome(stop=StopReason("refused"))}
    assert {name: (o.verdict, o.exit_code) for name, o in ends.items()} == {
        "unrefuted": ("unrefuted", 0), "refuted": ("refuted", 3), "budget": ("incomplete", 1),
        "failed": ("incomplete", 1), "cancelled": ("incomplete", 130), "refused": ("incomplete", 2)}
    assert ends["refuted"].proof_environment == "\\begin{proof} % colosseum: draft r1\nBy counting.\n\\end{proof}"
    assert ends["budget"].proof_environment is None


def test_the_run_folder_printed_is_one_the_user_can_open_from_where_they_ran_it(tmp_path):
    # carleson, solved from another folder: "run written to .colosseum/runs/…", a path relative to
    # the project, which does not exist where the command ran
    project = copy_example(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with MessagesAPIDouble([], responder=scripted("minor")) as server:
        done = solve(project, server.url, cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    printed = done.stdout.rstrip().rsplit("run written to ", 1)[1]
    assert (elsewhere / printed).resolve() == only_run(project).resolve()
