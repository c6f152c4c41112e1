"""`colosseum lean PATH` end to end: the real CLI, the real leanclient, the scripted `lake serve`
double on PATH (tests/doubles/lake_serve.py)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path


from colosseum.catalog.store import read_entry
from doubles.lake_serve import alive, install, read_log

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
FINE = {"declarations": {"ExampleProject.edge_degree_bound": {"module": "ExampleProject.Basic", "axioms": ["propext"]}}}


def paper(tmp_path: Path) -> Path:
    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".colosseum", "*.pdf", "*.aux", "*.log"))
    return project


def env_with(tmp_path: Path, script: dict | None) -> dict:
    """PATH with the double as `lake` (or with no `lake` at all), HOME without ~/.elan."""
    path = "/usr/bin:/bin"
    if script is not None:
        path = f"{install(tmp_path / 'double', dict(script, log=str(tmp_path / 'double' / 'log.jsonl')))}:{path}"
    return {**os.environ, "PATH": path, "HOME": str(tmp_path / "home"), "COLOSSEUM_TRUST": "1"}  # trusted: lake runs


def run(project: Path, env: dict, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "colosseum", "lean", str(project), *extra], capture_output=True,
                          text=True, timeout=120, env=env)


def test_a_formalized_lemma_is_checked_recorded_and_cached(tmp_path):
    project, env = paper(tmp_path), env_with(tmp_path, FINE)
    first = run(project, env)
    assert first.returncode == 0, first.stderr
    assert "sections/local-structure.tex:32: lem:degree-arith: formal" in first.stdout
    assert "checked by Lean: no sorry, axioms: propext" in first.stdout
    assert "Lean [" not in first.stderr  # the progress line goes only to a terminal (tests/test_cli_output.py)
    assert "1 formal, 0 with the statement only, 0 failed, 0 unchecked; 2 file(s): 2 checked by Lean, 0 from the cache" in first.stderr
    (entry_file,) = (project / "knowledge").glob("lean-check-of-*.md")
    entry, problems = read_entry(entry_file)
    assert problems == [] and entry.data["strength"] == "formal"
    assert [e["type"] for e in entry.data["evidence"]] == ["formal"]
    assert entry.data["evidence"][0]["artifact"] == "ExampleProject.edge_degree_bound"
    recorded = entry_file.read_text()
    second = run(project, env, "--format", "json")
    assert second.returncode == 0, second.stderr
    data = json.loads(second.stdout)
    assert [(f["name"], f["status"]) for f in data["files"]] == [("ExampleProject/Basic.lean", "cached"),
                                                                  ("inline Lean of main.tex", "cached")]
    assert data["diagnostics"] == []  # the paper's listing is fine
    (claim,) = data["claims"]
    assert claim["id"] == "lem:degree-arith" and claim["status"] == "formal" and claim["dag_status"] == "formal"
    assert claim["declarations"][0]["line"] == 15 and claim["declarations"][0]["source"].endswith("Basic.lean")
    assert entry_file.read_text() == recorded  # the same check is not recorded twice
    assert len([e for e in read_log(tmp_path / "double" / "log.jsonl") if e.get("event") == "start"]) == 1


def test_a_leanok_whose_proof_uses_sorry_fails(tmp_path):
    project = paper(tmp_path)
    script = {"declarations": {"ExampleProject.edge_degree_bound": {"module": "ExampleProject.Basic",
                                                                    "axioms": ["propext", "sorryAx"]}}}
    result = run(project, env_with(tmp_path, script), "--format", "json", "--no-catalog")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    (claim,) = data["claims"]
    # the statement is formalized, the proof is not: the proof's \leanok is what fails
    assert claim["status"] == "statement" and claim["dag_status"] == "proved"
    assert claim["leanok_statement"] is True and claim["leanok_proof"] is True
    (error,) = [d for d in data["diagnostics"] if d["severity"] == "error"]
    assert error["code"] == "colosseum/lean-check-failed" and error["source"] == "colosseum-lean"
    assert error["file"] == "sections/local-structure.tex" and error["line"] == 38  # the proof's \leanok
    assert "uses `sorry`" in error["message"]
    assert list((project / "knowledge").glob("lean-check-of-*.md")) == []


def test_without_lake_it_says_so_once_and_exits_3(tmp_path):
    project = paper(tmp_path)
    result = run(project, env_with(tmp_path, None))
    assert result.returncode == 3, result.stderr
    assert result.stderr.count("`lake` is not on PATH") == 1 and "elan" in result.stderr
    assert "lem:degree-arith: unchecked" in result.stdout


def test_bad_arguments(tmp_path):
    env = env_with(tmp_path, FINE)
    assert run(paper(tmp_path), env, "--time-limit", "0").returncode == 2
    missing = run(tmp_path / "nowhere", env)
    assert missing.returncode == 2 and "no such file or directory" in missing.stderr


def test_ctrl_c_cancels_and_stops_lake_serve(tmp_path):
    project = paper(tmp_path)
    log = tmp_path / "double" / "log.jsonl"
    env = env_with(tmp_path, {"modules": {"ExampleProject.Basic": {"hang": True}}})
    process = subprocess.Popen([sys.executable, "-m", "colosseum", "lean", str(project)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):  # until the double is working on the file (bounded)
            if any(e.get("method") == "textDocument/didOpen" for e in read_log(log)):
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "cancelled" in err
    (start,) = [e for e in read_log(log) if e.get("event") == "start"]
    assert not alive(start["pid"])
