"""What every command writes to the terminal: its messages and progress bar on stderr, and the
project opened through the application layer."""

from __future__ import annotations

import json
import sys

from colosseum.core.schema_version import SCHEMA_VERSION


def print_json(data: dict) -> None:
    """One JSON object on stdout, ``schema_version`` first: every ``--format json`` output goes
    through here, so a reader can tell which shape it reads."""
    print(json.dumps({"schema_version": SCHEMA_VERSION, **data}, indent=2, ensure_ascii=False))


def say(message: str) -> None:
    print(f"colosseum: {message}", file=sys.stderr)


def price_phrase(upper_cost_usd: float | None, model: str, scope: str = "") -> str:
    """What a dry run says of the money: the upper bound at the model's list price, or that no
    price is known (``scope`` says what the bound covers, e.g. " for the typical run")."""
    if upper_cost_usd is None:
        return f"; no price known for {model} (set [models] prices)"
    return f"; at most about ${upper_cost_usd:.2f} at {model}'s list price{scope} (less with prompt caching)"


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
