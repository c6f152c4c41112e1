"""The engine never imports the protocol libraries; import names say what they are."""

from __future__ import annotations

import ast
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


MAX_FUNCTION_LINES = 80


def _function_lengths(path: Path):
    """(line, name, length) of every function and method in a file, nested ones included."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.lineno, node.name, node.end_lineno - node.lineno + 1


def test_functions_stay_short():
    """Issue #13: functions, not files, are the unit to keep small (tests aside)."""
    files = [p for base in ("colosseum", "server", "bench", "editor-clients") for p in (ROOT / base).rglob("*.py")
             if "node_modules" not in p.relative_to(ROOT).parts] + [ROOT / "setup.py"]
    assert len(files) > 100 and (ROOT / "setup.py").is_file()
    too_long = [f"{path.relative_to(ROOT)}:{line} {name} ({length})"
                for path in sorted(files) for line, name, length in _function_lengths(path)
                if length > MAX_FUNCTION_LINES]
    assert too_long == [], f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(too_long)
