"""Shared fixtures for the engine tests.

``make_project(tmp_path, files)`` writes a small LaTeX project inline and returns its directory:

    def test_x(make_project, tmp_path):
        root = make_project(tmp_path, {"main.tex": r'''
            \\documentclass{article}
            ...
        '''})

Values are ``str`` (written as UTF-8, after ``textwrap.dedent`` and with one leading newline
removed, so that indented triple-quoted strings can be used) or ``bytes`` (written verbatim).
Sub-directories are created as needed.
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from pathlib import Path

import pytest

# the user-level config dir (trust, read-only paths, the consent to send a paper) of every command and
# server the tests start: a fresh one, never the real ~/.config of whoever runs them
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="colosseum-tests-config-")


def _make_project(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    root = Path(tmp_path)
    root.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
            continue
        text = textwrap.dedent(content)
        if text.startswith("\n"):
            text = text[1:]
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def make_project():
    """``make_project(tmp_path, {relative path: content}) -> Path`` (the project directory)."""
    return _make_project


# The time each group of tests takes, printed at the end of every run (CI's budget is counted per
# group: each issue says how many minutes its tests add). A file belongs to the first group whose
# prefix its name starts with; the rest is the index and its checks.
TIME_GROUPS = (
    ("editors (Neovim, VS Code)", ("test_neovim", "test_vscode")),
    ("language server", ("test_server_", "test_document_sync", "test_editor_options")),
    ("Lean", ("test_lean_",)),
    ("model loops (solve, review, research)", ("test_inner_loop", "test_review_", "test_research_", "test_model_",
                                               "test_anthropic", "test_other_providers", "test_solve_", "test_bench", "test_batch")),
    ("catalog", ("test_catalog",)),
    ("probes (sandbox)", ("test_sandbox", "test_probe")),
    ("packaging and architecture", ("test_packaging", "test_boundaries", "test_architecture", "test_app_layer")),
    ("settings", ("test_config_", "test_settings_")),
)
_group_seconds: dict[str, float] = {}


def _time_group(nodeid: str) -> str:
    name = Path(nodeid.split("::", 1)[0]).name
    return next((group for group, prefixes in TIME_GROUPS if name.startswith(prefixes)), "index, checks and CLI")


def pytest_runtest_logreport(report) -> None:
    group = _time_group(report.nodeid)
    _group_seconds[group] = _group_seconds.get(group, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter) -> None:
    if not _group_seconds:
        return
    terminalreporter.section("time per group")
    for group, seconds in sorted(_group_seconds.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{seconds:8.1f} s  {group}")
