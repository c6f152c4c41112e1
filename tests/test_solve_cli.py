"""`colosseum solve` end to end: the real CLI and the real Anthropic SDK, with a local
Messages-API double standing in for the API (ANTHROPIC_BASE_URL)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from colosseum.models.prompts import load_prompt
from doubles.messages_api import MessagesAPIDouble, tool_answer
from catalog_files import written_entry

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"


def answer_by_role(body: dict):
    required = set(body["tools"][0]["input_schema"]["required"])
    prompt = body["messages"][-1]["content"]
    if "strategy" in required:
        return tool_answer({"strategy": "witness trees", "proof": "By the witness-tree argument, the bound holds."},
                           input_tokens=300, cache_read=2000)
    if "critiques" in required:
        # minor: the run ends "unrefuted" (a major one would make it "refuted", tests/test_solve_verdict.py)
        return tool_answer({"critiques": [{"severity": "minor", "kind": "gap", "quote": "the bound holds",
                                           "explanation": "the expectation bound needs the LLL condition",
                                           "repair": "cite thm:moser-tardos"}]})
    if "angles" in required:
        return tool_answer({"angles": [{"angle": "witness trees", "why": "Moser-Tardos"},
                                       {"angle": "a direct count of resampling steps", "why": "it is elementary"}]})
    if "checks" in required:
        return tool_answer({"checks": []})
    assert "Candidate" in prompt
    return tool_answer({"proof": "Merged: by the witness-tree argument the bound holds.", "alternative": "",
                        "resolved": [], "open_conflicts": []})


def run(project: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url}
    return subprocess.run([sys.executable, "-m", "colosseum", "solve", str(project), "--label", "lem:resampling",
                           *extra], capture_output=True, text=True, timeout=120, env=env)


def test_solve_writes_an_auditable_run_and_a_rerun_costs_nothing(tmp_path):
    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    with MessagesAPIDouble([], responder=answer_by_role) as server:
        first = run(project, server.url)
        assert first.returncode == 0, first.stderr
        assert first.stdout.startswith("verdict: unrefuted")
        assert "witness-tree argument" in first.stdout and "critique(s) survived" in first.stdout
        assert len(server.requests) == 49
        second = run(project, server.url)
        assert second.returncode == 0, second.stderr
        assert len(server.requests) == 49  # every answer came from the response cache
    runs = sorted((project / ".colosseum" / "runs").iterdir())
    assert len(runs) == 2
    record = json.loads((runs[0] / "run.json").read_text())
    assert record["usage"]["calls"] == 49 and record["usage"]["cache_read_tokens"] == 16 * 2000
    assert [len(level) for level in record["groups"]] == [8, 5, 1]
    roles = ("angle_planner", "generator", "refuter", "resolution_checker", "aggregator")
    assert record["prompts"] == {role: load_prompt(role).version for role in roles}
    assert record["catalog"]["entries"][0] == "resampling-by-direct-count" and record["catalog"]["tokens"] > 0
    assert json.loads((runs[1] / "run.json").read_text())["usage"]["response_cache_hits"] == 49
    assert "Surviving critiques" in (runs[0] / "report.md").read_text()
    # the curator wrote the proof as a model-reviewed observation, and the second run added its
    # evidence to the same entry instead of writing a duplicate
    from colosseum.catalog.store import read_entry

    path = written_entry(project / "knowledge", "proof-of-lem-resampling")
    assert f"written to the catalog: {path.stem}" in first.stdout
    entry, problems = read_entry(path)
    assert problems == [] and entry.kind == "observation"
    assert [e["artifact"] for e in entry.data["evidence"]] == [f".colosseum/runs/{r.name}/report.md" for r in runs]
    # the provers may assume what does not depend on the obligation, never what does
    system = server.requests[0]["system"][0]["text"]
    assert "[thm:lll]" in system and "[thm:main]" not in system and "[cor:simple]" not in system
    assert all(r["system"][0]["cache_control"] == {"type": "ephemeral"} for r in server.requests)


def test_dry_run_and_budget_spend_nothing(tmp_path):
    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    with MessagesAPIDouble([], responder=answer_by_role) as server:
        dry = run(project, server.url, "--dry-run")
        over = run(project, server.url, "--max-calls", "20")
        assert server.requests == []
    assert dry.returncode == 0 and "49 model calls planned, at most 63 (" in dry.stdout and "Nothing was sent" in dry.stdout
    assert over.returncode == 1 and "budget is 20" in over.stderr


def test_an_unreachable_api_is_a_clear_message(tmp_path):
    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    with MessagesAPIDouble([], responder=lambda body: (400, {"type": "error", "error": {
            "type": "invalid_request_error", "message": "model not found"}}, {})) as server:
        failed = run(project, server.url)
    assert failed.returncode == 1 and "model not found" in failed.stderr and "Traceback" not in failed.stderr


def test_an_openai_compatible_server_can_be_the_model(tmp_path):
    from doubles.messages_api import ChatCompletionsDouble, chat_answer

    def by_role(body):
        required = set(body["response_format"]["json_schema"]["schema"]["required"])
        if "strategy" in required:
            return chat_answer(json.dumps({"strategy": "local", "proof": "A local model's proof."}))
        if "critiques" in required:
            return chat_answer(json.dumps({"critiques": []}))
        if "angles" in required:
            return chat_answer(json.dumps({"angles": [{"angle": "one way", "why": "."}, {"angle": "another", "why": "."}]}))
        return chat_answer(json.dumps({"proof": "Merged locally.", "alternative": "", "resolved": [],
                                       "open_conflicts": []}))

    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    with ChatCompletionsDouble([], responder=by_role) as server:
        (project / "colosseum.toml").write_text(
            f'root = "main.tex"\n[models]\nprovider = "openai-compatible"\nmodel = "local-7b"\n'
            f'base_url = "{server.url}"\n')
        done = subprocess.run([sys.executable, "-m", "colosseum", "solve", str(project), "--label", "lem:resampling"],
                              capture_output=True, text=True, timeout=120,
                              env={k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC")})
    assert done.returncode == 0, done.stderr
    assert "Merged locally." in done.stdout and len(server.requests) == 49
    assert server.requests[0]["model"] == "local-7b"
