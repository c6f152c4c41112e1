"""The Lean check against a real Lean 4 toolchain (no double): run where Lean's own `lake` is on
PATH, skipped with the reason elsewhere. To run them: install elan (https://lean-lang.org/install),
then `python -m pytest tests/test_lean_real.py` (the first run downloads the toolchain named in
example-project/lean/lean-toolchain and builds the example's Lean project). Set
COLOSSEUM_SKIP_REAL_LEAN=1 to skip them even with Lean installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from colosseum.index import ProjectIndex
from colosseum.lean import check_lean, claim_results, lean_diagnostics
from colosseum.lean.results import STANDARD_AXIOMS

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"


def why_not_real_lean() -> str | None:
    """None when Lean's own `lake` is on PATH; else why these tests are skipped. (The test double
    answers `lake --version` as the double it is, so it never counts.)"""
    if os.environ.get("COLOSSEUM_SKIP_REAL_LEAN"):
        return "COLOSSEUM_SKIP_REAL_LEAN is set"
    lake = shutil.which("lake")
    if lake is None:
        return "needs a real Lean 4 toolchain: `lake` is not on PATH (install Lean with elan)"
    try:
        # in the example's Lean project: elan installs its toolchain on first use (minutes)
        version = subprocess.run([lake, "--version"], capture_output=True, text=True, timeout=int(TIME_LIMIT),
                                 cwd=EXAMPLE / "lean").stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return f"`lake --version` failed: {exc}"
    if "Lake version" not in version:
        return f"the `lake` on PATH is not Lean's Lake ({version.strip()[:80]!r})"
    return None


TIME_LIMIT = "1800"  # the first check installs the toolchain and builds the example's Lean project
REASON = why_not_real_lean()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


@pytest.fixture
def project(tmp_path) -> Path:
    work = tmp_path / "paper"
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns(".colosseum", ".lake"))
    (work / "colosseum.toml").write_text((work / "colosseum.toml").read_text() + f"\n[lean]\ntime_limit = {TIME_LIMIT}\n")
    return work


def test_the_example_lemma_is_checked_by_lean(project):
    run = subprocess.run([sys.executable, "-m", "colosseum", "lean", str(project), "--format", "json", "--trust"],
                         capture_output=True, text=True, timeout=3600)
    assert run.returncode == 0, run.stderr
    (claim,) = json.loads(run.stdout)["claims"]
    assert claim["id"] == "lem:degree-arith" and claim["status"] == "formal" and claim["dag_status"] == "formal"
    assert set(claim["declarations"][0]["axioms"]) <= set(STANDARD_AXIOMS)


def test_lean_finds_sorry_missing_names_and_inline_errors(project):
    basic = project / "lean" / "ExampleProject" / "Basic.lean"
    basic.write_text(basic.read_text().replace(
        "end ExampleProject", "theorem unfinished (n : Nat) : n + 0 = n := by\n  sorry\n\nend ExampleProject"))
    section = project / "sections" / "local-structure.tex"
    section.write_text(section.read_text().replace(
        "Combining \\cref", "\\begin{lemma}\\label{lem:unfinished}\\lean{ExampleProject.unfinished}\\leanok\n"
        "  Adding zero.\n\\end{lemma}\n\\begin{lemma}\\label{lem:nowhere}\\lean{ExampleProject.nowhere}\n"
        "  Nowhere.\n\\end{lemma}\n\\begin{lstlisting}[language=Lean]\nexample : 1 + 1 = 2 := rfl\n"
        "example : 1 + 1 = 3 := by decide\n\\end{lstlisting}\n\nCombining \\cref", 1))
    index = ProjectIndex.open(project)
    report = check_lean(index)
    assert report.problem is None, report.problem
    assert report.decls["ExampleProject.edge_degree_bound"].status == "ok"
    assert report.decls["ExampleProject.unfinished"].status == "sorry"
    assert report.decls["ExampleProject.nowhere"].status == "missing"
    # formalized statement, sorry proof; its \leanok (no proof of its own) claims the proof: an error there
    assert {r.id: r.status for r in claim_results(index, report)}["lem:unfinished"] == "statement"
    assert any(d.severity == "error" and "lem:unfinished" in d.message for d in lean_diagnostics(index, report))
    lines = section.read_text().splitlines()
    inline = [d for d in lean_diagnostics(index, report) if d.code == "colosseum/lean-inline" and d.severity == "error"]
    assert inline and all("1 + 1 = 3" in lines[d.range.start.line] for d in inline)
