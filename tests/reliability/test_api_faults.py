"""API faults through the real ``anthropic`` SDK against the local Messages-API double: a 200
answer whose JSON is cut off, one candidate whose answer still breaks its schema after the repair,
one call that exhausts its retries, and a response that never comes. Each ends with a clear line
and an exit code, or drops only the candidate it concerns and says so; nothing prints a traceback.
Timeouts are asserted by the attempts the double counted, never by wall time."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doubles.messages_api import MessagesAPIDouble, error, tool_answer

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "example-project"
CUT_OFF = (200, b'{"id": "msg_double", "type": "message", "role": "assistant", "content": [{"type": "tool_u', {})
FAST_RETRIES = "\n[models]\nmax_attempts = 2\n"


@pytest.fixture
def project(tmp_path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "paper")
    return tmp_path / "paper"


def configure(project: Path, toml: str) -> None:
    path = project / "colosseum.toml"
    path.write_text(path.read_text(encoding="utf-8") + toml, encoding="utf-8")


def colosseum(project: Path, url: str, *command: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url}
    return subprocess.run([sys.executable, "-m", "colosseum", command[0], str(project), *command[1:]],
                          capture_output=True, text=True, timeout=180, env=env)


def solve_answers(*, broken_prover: str = "", overloaded_referee: str = ""):
    """Good answers for every role, except the prover or referee named by its slot."""
    def answer(body: dict):
        required = set(body["tools"][0]["input_schema"]["required"])
        prompt = body["messages"][0]["content"]
        if "strategy" in required:
            if broken_prover and f"({broken_prover})" in prompt:
                return tool_answer({"strategy": "none"})  # no proof, before and after the repair
            return tool_answer({"strategy": "witness trees", "proof": "By the witness-tree argument, it holds."})
        if "critiques" in required:
            if overloaded_referee and f"({overloaded_referee})" in prompt:
                return error(529, "overloaded_error", "Overloaded", retry_after=0)
            return tool_answer({"critiques": []})
        if "angles" in required:
            return tool_answer({"angles": [{"angle": "witness trees", "why": "."}, {"angle": "a count", "why": "."}]})
        return tool_answer({"proof": "Merged: by the witness-tree argument it holds.", "alternative": "",
                            "resolved": [], "open_conflicts": []})
    return answer


def latest_run(project: Path) -> dict:
    runs = sorted((project / ".colosseum" / "runs").iterdir())
    return json.loads((runs[-1] / "run.json").read_text(encoding="utf-8"))


# ---- a 200 answer whose JSON body is cut off ------------------------------------------------------
def test_a_cut_off_answer_ends_solve_with_one_line_and_exit_code_1(project):
    configure(project, FAST_RETRIES)
    with MessagesAPIDouble([], responder=lambda body: CUT_OFF) as server:
        done = colosseum(project, server.url, "solve", "--label", "lem:resampling")
        asked = len(server.requests)
    assert "Traceback" not in done.stderr and "ExceptionGroup" not in done.stderr, done.stderr
    assert done.returncode == 1
    assert asked == 2 + 16 * 2  # the angle plan, then each generation tried max_attempts times, then dropped
    assert "16 of 16 candidates dropped" in done.stderr and "cut off or not JSON" in done.stderr
    record = latest_run(project)
    assert record["status"] == "incomplete" and len(record["dropped"]) == 16


def test_a_cut_off_answer_ends_review_with_one_line_and_exit_code_1(project):
    configure(project, FAST_RETRIES)
    with MessagesAPIDouble([], responder=lambda body: CUT_OFF) as server:
        done = colosseum(project, server.url, "review")
    assert "Traceback" not in done.stderr and "ExceptionGroup" not in done.stderr, done.stderr
    assert done.returncode == 1 and "cut off or not JSON" in done.stderr


# ---- one candidate dropped, the run completes -----------------------------------------------------
def test_a_candidate_that_breaks_its_schema_after_the_repair_is_dropped_and_said(project):
    with MessagesAPIDouble([], responder=solve_answers(broken_prover="prover 3 of 16")) as server:
        done = colosseum(project, server.url, "solve", "--label", "lem:resampling")
        asked = len(server.requests)
    assert done.returncode == 0, done.stderr
    assert asked == 49 + 1 - 1  # the repair was asked, the dropped candidate's refutation was not
    assert "1 of 16 candidates dropped" in done.stderr and "malformed structured answer" in done.stderr
    record = latest_run(project)
    assert record["status"] == "done"
    assert [(d["candidate"], d["stage"]) for d in record["dropped"]] == [("L2", "generation")]
    assert "L2" not in record["bundles"] and all("L2" not in g["drew"] for g in record["groups"][0])


def test_a_refutation_that_exhausts_its_retries_drops_its_candidate(project):
    configure(project, FAST_RETRIES)
    referee = "referee 1 of candidate L5"
    with MessagesAPIDouble([], responder=solve_answers(overloaded_referee=referee)) as server:
        done = colosseum(project, server.url, "solve", "--label", "lem:resampling")
        refused = [r for r in server.requests if f"({referee})" in r["messages"][0]["content"]]
    assert done.returncode == 0, done.stderr
    assert len(refused) == 2  # max_attempts
    assert "1 of 16 candidates dropped" in done.stderr and "HTTP 529" in done.stderr
    record = latest_run(project)
    assert [(d["candidate"], d["stage"]) for d in record["dropped"]] == [("L5", "refutation")]
    assert "L5" not in record["bundles"] and all("L5" not in g["drew"] for g in record["groups"][0])


# ---- the per-call timeout and attempts are settings -----------------------------------------------
def test_a_stalled_response_ends_after_the_configured_timeout_times_attempts(monkeypatch):
    from colosseum.models.configured import configured_provider
    from colosseum.models.provider import Message, ModelRequest, ProviderError

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    never = ("sleep", 4.0, tool_answer({"proof": "late"}))
    with MessagesAPIDouble([], responder=lambda body: never) as server:
        provider, _model = configured_provider({"base_url": server.url, "request_timeout_s": 1, "max_attempts": 2},
                                               None)
        request = ModelRequest("system", (Message("user", "prove it"),), schema=None, role="generator")
        with pytest.raises(ProviderError) as failed:
            asyncio.run(provider.complete(request))
        asked = len(server.requests)
    assert asked == 2 and failed.value.attempts == 2 and "timed out" in str(failed.value)


def test_the_defaults_suit_interactive_use():
    from colosseum.settings.tables import ModelsSettings

    assert ModelsSettings().request_timeout_s == 300 and ModelsSettings().max_attempts == 4
