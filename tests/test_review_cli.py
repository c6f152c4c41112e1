"""`colosseum review` end to end: the real CLI and the real Anthropic SDK against the local
Messages-API double (messages and count_tokens)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from colosseum.core.schema_version import SCHEMA_VERSION
from doubles.messages_api import MessagesAPIDouble, tool_answer

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
GAP = {"severity": "major", "kind": "gap", "file": "sections/local-structure.tex", "line": 3,
       "quote": "every edge of $H$ meets at most $k(\\Delta-1)$ other edges", "message": "e is counted", "repair": ""}
INVENTED = {"severity": "minor", "kind": "other", "file": "main.tex", "line": 1, "quote": "a sentence nowhere",
            "message": "unfounded", "repair": ""}
FATAL = {**GAP, "severity": "fatal", "kind": "missing-case", "message": "a fatal flaw"}


def responder(global_critiques: list[dict], local: dict | None = None):
    def answer(body: dict):
        properties = body["tools"][0]["input_schema"]["properties"]
        if "withdrawn" in properties:
            return tool_answer({"verdict": "accepted", "reasons": [], "critiques": [], "withdrawn": []})
        if properties["verdict"]["enum"] == ["passed", "failed"]:
            return tool_answer(local or {"verdict": "passed", "reasons": ["fine"], "critiques": []})
        return tool_answer({"verdict": "revise", "reasons": ["see critiques"], "critiques": global_critiques},
                           input_tokens=500, output_tokens=50)
    return answer


def run(project: Path, url: str, *extra: str, key: str | None = "sk-test", cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANTHROPIC_BASE_URL": url}
    env.pop("ANTHROPIC_API_KEY", None)
    if key is not None:
        env["ANTHROPIC_API_KEY"] = key
    return subprocess.run([sys.executable, "-m", "colosseum", "review", str(project), *extra], capture_output=True,
                          text=True, timeout=120, env=env, cwd=cwd)


@pytest.fixture
def project(tmp_path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "paper")
    return tmp_path / "paper"


def test_json_output_report_cost_and_a_rerun_served_from_the_cache(project):
    with MessagesAPIDouble([], responder=responder([GAP, INVENTED])) as server:
        done = run(project, server.url, "--format", "json")
        assert done.returncode == 0, done.stderr
        assert len(server.requests) == 3 and len(server.count_requests) == 1  # 3 reviewers; the size was counted
        again = run(project, server.url, "--format", "json")
        assert again.returncode == 0 and len(server.requests) == 3  # unchanged: every answer from the cache
    data = json.loads(done.stdout)
    assert set(data) == {"schema_version", "verdict", "critiques", "usage"} and data["verdict"] == "revise"
    gap, invented = data["critiques"]  # the three identical gaps merged into one; the invented one kept
    assert gap == {"file": "sections/local-structure.tex", "line": 17, "severity": "major", "kind": "gap",
                   "message": "e is counted", "quote": GAP["quote"], "anchored": True}
    assert invented["anchored"] is False and invented["line"] is None and invented["file"] is None
    assert data["usage"]["calls"] == 3 and data["usage"]["input_tokens"] == 1500
    assert json.loads(again.stdout)["usage"]["response_cache_hits"] == 3
    assert "3 model calls" in done.stderr and "1 token counts" in done.stderr and "reviewing" not in done.stderr  # progress: only to a terminal
    reports = sorted((project / ".colosseum" / "reviews").glob("*-global.md"))
    assert len(reports) == 2 and "# Global review: revise" in reports[0].read_text()
    record = json.loads(reports[0].with_suffix(".json").read_text())
    assert record["all_critiques"][0]["reviewers"] == ["reviewer 1", "reviewer 2", "reviewer 3"]
    assert record["schema_version"] == 1


def test_a_rejected_document_exits_non_zero_and_the_budget_and_dry_run_spend_nothing(project):
    with MessagesAPIDouble([], responder=responder([FATAL])) as server:
        rejected = run(project, server.url, "--reviewers", "2")
        assert rejected.returncode == 3 and "verdict: rejected" in rejected.stdout and len(server.requests) == 2
        over = run(project, server.url, "--max-calls", "2", "--no-cache")
        dry = run(project, server.url, "--dry-run")
        assert len(server.requests) == 2  # neither sent a message
    assert over.returncode == 1 and "needs 3 model calls; the budget is 2" in over.stderr
    assert dry.returncode == 0 and "counted by the API's token counter" in dry.stdout
    assert "No model call was made" in dry.stdout and "3 model calls" in dry.stdout


def test_a_dry_run_without_an_api_key_gives_a_labelled_character_estimate(project):
    with MessagesAPIDouble([], responder=responder([])) as server:
        counted = run(project, server.url, "--dry-run")
        estimated = run(project, server.url, "--dry-run", key=None)
        refused = run(project, server.url, key=None)
        assert server.requests == [] and len(server.count_requests) == 1  # only the keyed dry run counted
    assert estimated.returncode == 0, estimated.stderr
    assert "character-based estimate" in estimated.stdout and "No model call was made" in estimated.stdout
    assert "no API key" in estimated.stderr
    assert (estimated.stdout + estimated.stderr).count("no API key") == 1  # said once, not again on stdout
    tokens = [int(re.search(r"the document is ([\d,]+) tokens", r.stdout).group(1).replace(",", ""))
              for r in (counted, estimated)]
    assert tokens[1] > 1000 and "3 model calls" in estimated.stdout  # the estimate is of the same request
    assert refused.returncode == 2 and "no API key" in refused.stderr  # a real review still needs the key
    # a command line has no `api_key` to pass (the Python API's argument): the message named it
    assert "api_key" not in estimated.stderr + refused.stderr


def test_a_local_review_by_label_is_incremental_and_fails_on_a_concrete_critique(project):
    failing = {"verdict": "failed", "reasons": ["double count"], "critiques": [
        {"severity": "major", "kind": "gap", "quote": "Summing over the $k$ vertices of $e$", "message": "twice",
         "repair": ""}]}
    with MessagesAPIDouble([], responder=responder([], failing)) as server:
        first = run(project, server.url, "--label", "lem:edge-degree", "--format", "json")
        second = run(project, server.url, "--label", "lem:edge-degree", "--format", "json")
        assert len(server.requests) == 1  # the second was served by the local review cache
        fresh = run(project, server.url, "--label", "lem:edge-degree", "--format", "json", "--no-cache")
        assert len(server.requests) == 2  # --no-cache asks again, past both caches
        missing = run(project, server.url, "--label", "lem:nowhere")
        no_proof = run(project, server.url, "--label", "lem:resampling")
        assert len(server.requests) == 2  # nothing to review costs no call
    assert first.returncode == second.returncode == fresh.returncode == 3
    one, two = json.loads(first.stdout), json.loads(second.stdout)
    assert one["schema_version"] == SCHEMA_VERSION
    assert one["verdict"] == "failed" and not one["cached"] and two["cached"] and not json.loads(fresh.stdout)["cached"]
    assert no_proof.returncode == 2 and "nothing to review: `lem:resampling` has no proof" in no_proof.stderr
    assert one["critiques"][0]["file"] == "sections/local-structure.tex" and one["critiques"][0]["line"] == 24
    assert missing.returncode == 2 and "no claim or section `lem:nowhere`" in missing.stderr


def test_an_unreachable_model_is_a_clear_message(project):
    with MessagesAPIDouble([], responder=lambda body: (400, {"type": "error", "error": {
            "type": "invalid_request_error", "message": "model not found"}}, {})) as server:
        failed = run(project, server.url)
    assert failed.returncode == 1 and "model not found" in failed.stderr and "Traceback" not in failed.stderr


def test_a_document_past_the_window_is_split_with_counts_from_the_api(project):
    with (project / "colosseum.toml").open("a") as toml:
        toml.write("\n[review]\nreviewers = 2\ncontext_tokens = 8000\noutput_tokens = 1000\n")
    with MessagesAPIDouble([], responder=responder([GAP])) as server:
        done = run(project, server.url, "--format", "json")
        assert done.returncode == 0, done.stderr
        syntheses = [b for b in server.requests if "withdrawn" in b["tools"][0]["input_schema"]["properties"]]
        reviews = len(server.requests) - len(syntheses)
        assert len(syntheses) == 2 and reviews >= 4 and reviews % 2 == 0  # 2 reviewers over >= 2 parts
        assert len(server.count_requests) > reviews // 2  # the whole, each unit and statement, each part
        assert all("max_tokens" not in body for body in server.count_requests)
    report = next((project / ".colosseum" / "reviews").glob("*-global.md")).read_text()
    assert "## Read in parts" in report and "counted by the API's token counter" in report
    data = json.loads(done.stdout)
    assert data["critiques"][0]["line"] == 17 and data["usage"]["token_counts"] == len(server.count_requests)


def test_the_report_named_is_one_the_user_can_open_from_where_they_ran_it(project, tmp_path):
    # cosmos, reviewed from another folder: "report in .colosseum/reviews/…-global.md" was relative
    # to the project, not to where the command ran
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with MessagesAPIDouble([], responder=responder([])) as server:
        done = run(project, server.url, cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    named = done.stderr.rstrip().rsplit("; report in ", 1)[1]
    (report,) = (project / ".colosseum" / "reviews").glob("*-global.md")
    assert (elsewhere / named).resolve() == report.resolve()
