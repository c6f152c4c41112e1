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

import textwrap
from pathlib import Path

import pytest


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
