"""Every place under a project's ``.colosseum/`` folder, named once. The folder holds what runs
leave behind (runs, reviews, caches); the walk over the project skips it. The first write into it
also writes its ``.gitignore`` (``ensure_state_dir``): all of it is local to one machine."""

from __future__ import annotations

from pathlib import Path

STATE_DIR_NAME = ".colosseum"
GITIGNORE_NAME = ".gitignore"
# what the first write into the state folder leaves there: git then ignores the whole folder
# (this file included), whatever the project's own .gitignore says
STATE_GITIGNORE = """\
# Written by Colosseum the first time it wrote to this folder. Everything in .colosseum/ is local
# to this machine: runs, reviews, the caches of model answers and of Lean, the dependency graph
# page. Do not commit it; a co-author's tool makes its own.
#
# What is shared with co-authors lives outside this folder and is committed as usual:
# - the knowledge catalog (knowledge/, or [catalog] path in colosseum.toml);
# - colosseum.toml;
# - accepted drafts: they are proofs in the .tex files themselves (an accepted draft has no
#   marker; a line "% colosseum: draft <run-id>" marks a proof no person has reviewed yet).
*
"""


def state_dir(root_dir: Path) -> Path:
    """``.colosseum/`` of the project rooted at ``root_dir``."""
    return Path(root_dir) / STATE_DIR_NAME


def runs_dir(root_dir: Path) -> Path:
    """``.colosseum/runs/``: one folder per solve, retry or research run."""
    return state_dir(root_dir) / "runs"


def bench_dir(root_dir: Path) -> Path:
    """``.colosseum/bench/``: one folder per benchmark run, named by its time."""
    return state_dir(root_dir) / "bench"


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


def ensure_state_dir(root_dir: Path) -> Path:
    """``.colosseum/`` of the project, made when missing, with its ``.gitignore`` (written once:
    an author's edit of it is kept)."""
    folder = state_dir(root_dir)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with open(folder / GITIGNORE_NAME, "x", encoding="utf-8") as handle:  # "x": never over another's
            handle.write(STATE_GITIGNORE)
    except FileExistsError:
        pass
    return folder


def prepare_write(path: Path) -> None:
    """Before a file is written at ``path``: when it lies in a project's state folder, that
    folder exists and holds its ``.gitignore`` (so every writer gets it, whichever writes first)."""
    for parent in Path(path).parents:
        if parent.name == STATE_DIR_NAME:
            if not (parent / GITIGNORE_NAME).exists():
                ensure_state_dir(parent.parent)
            return
