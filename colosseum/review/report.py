"""The review's Markdown report and its JSON."""

from __future__ import annotations

from pathlib import Path


def report_json(report, root_dir: Path) -> dict:
    raise NotImplementedError


def write_report(report, index) -> Path:
    raise NotImplementedError
