"""example-project/ is a real paper: it compiles, and `colosseum check` finds what is really there."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "example-project"


@pytest.mark.skipif(shutil.which("latexmk") is None, reason="latexmk is not installed (CI installs texlive)")
def test_compiles_with_latexmk_without_undefined_references(tmp_path):
    work = tmp_path / "example-project"
    shutil.copytree(EXAMPLE, work)
    run = subprocess.run(["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
                         cwd=work, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:]
    assert (work / "main.pdf").stat().st_size > 10_000
    log = (work / "main.log").read_text(errors="replace")
    assert "undefined" not in log.lower()


def test_shipped_style_file_is_the_one_in_the_example():
    assert (ROOT / "colosseum" / "data" / "colosseum.sty").read_bytes() == (EXAMPLE / "colosseum.sty").read_bytes()


def test_check_reports_the_obligations_and_what_depends_on_them():
    run = subprocess.run([sys.executable, "-m", "colosseum", "check", str(EXAMPLE), "--format", "json"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr  # findings, but no errors
    found = json.loads(run.stdout)["diagnostics"]
    conditional = {d["message"].split("`")[1] for d in found if d["code"] == "colosseum/depends-on-open-obligation"}
    assert conditional == {"thm:main", "cor:simple", "cor:regular"}
    unused = [d for d in found if d["code"] == "colosseum/unused-label"]
    assert [d["message"].split("`")[1] for d in unused] == ["rem:non-uniform"]
    assert not [d for d in found if d["severity"] == "error"]


def test_obligations_in_solve_order():
    run = subprocess.run([sys.executable, "-m", "colosseum", "obligations", str(EXAMPLE), "--format", "json"],
                         capture_output=True, text=True, timeout=120)
    plan = json.loads(run.stdout)["obligations"]
    assert {item["id"] for item in plan} == {"lem:resampling", "lem:regular-numeric"}
    assert all(item["status"] == "obligation" for item in plan)
