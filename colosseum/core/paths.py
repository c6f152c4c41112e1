"""Every place under a project's ``.colosseum/`` folder, named once. The folder holds what runs
leave behind (runs, reviews, caches); the walk over the project skips it."""

from __future__ import annotations

from pathlib import Path

STATE_DIR_NAME = ".colosseum"


def state_dir(root_dir: Path) -> Path:
    """``.colosseum/`` of the project rooted at ``root_dir``."""
    return Path(root_dir) / STATE_DIR_NAME


def runs_dir(root_dir: Path) -> Path:
    """``.colosseum/runs/``: one folder per solve, retry or research run."""
    return state_dir(root_dir) / "runs"


def reviews_dir(root_dir: Path) -> Path:
    """``.colosseum/reviews/``: review reports and the dismissed critiques."""
    return state_dir(root_dir) / "reviews"


def local_reviews_dir(root_dir: Path) -> Path:
    """``.colosseum/reviews/local/``: the cache of local reviews, keyed by what each one read."""
    return reviews_dir(root_dir) / "local"


def answer_cache_dir(root_dir: Path) -> Path:
    """``.colosseum/cache/``: the model answers already received (the response cache)."""
    return state_dir(root_dir) / "cache"


def lean_cache_dir(root_dir: Path) -> Path:
    """``.colosseum/lean/cache/``: Lean's answers."""
    return state_dir(root_dir) / "lean" / "cache"


def dependency_graph_page(root_dir: Path) -> Path:
    """``.colosseum/dependency-graph.html``: the page the editor's "Show dependency graph" opens."""
    return state_dir(root_dir) / "dependency-graph.html"
