"""The engine never imports the protocol libraries; import names say what they are."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import colosseum

ROOT = Path(__file__).resolve().parents[1]


def test_engine_imports_no_lsp_library():
    modules = [m.name for m in pkgutil.walk_packages(colosseum.__path__, "colosseum.")]
    assert "colosseum.index.project_index" in modules
    code = ("import importlib, sys\n"
            f"for name in {modules!r}:\n"
            "    if name != 'colosseum.__main__':\n"
            "        importlib.import_module(name)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'colosseum_lsp'))\n"
            "print(','.join(bad))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ""


def test_no_top_level_server_module():
    assert not (ROOT / "server" / "__init__.py").exists()
    run = subprocess.run([sys.executable, "-c", "import server"], capture_output=True, text=True, cwd="/")
    assert run.returncode != 0


def test_source_files_stay_small():
    too_long = [str(p.relative_to(ROOT)) for base in ("colosseum", "server") for p in (ROOT / base).rglob("*.py")
                if len(p.read_text().splitlines()) > 560]
    assert too_long == []
