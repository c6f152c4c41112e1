"""What every command writes to the terminal: its messages and progress bar on stderr, and the
project opened through the application layer."""

from __future__ import annotations

import sys


def say(message: str) -> None:
    print(f"colosseum: {message}", file=sys.stderr)


def progress_bar(stage: str, done: int, total: int) -> None:
    width = 24
    filled = width * done // max(1, total)
    print(f"\r{stage:28} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end="", file=sys.stderr, flush=True)


def open_project(path: str):
    """The project's index for a command that asks a model, or None once it said why it cannot open."""
    from colosseum.app.project import ProjectNotOpened, open_for_run

    try:
        return open_for_run(path, say)
    except ProjectNotOpened as exc:
        say(str(exc))
        return None
