"""Opening a project for a command: the index, with the claims Lean checked before (from the
cache, Lean is not run)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from colosseum.core.paths import lean_cache_dir
from colosseum.index import ProjectError, ProjectIndex
from colosseum.project.files import named_root, root_in_reach

Notice = Callable[[str], None]


class ProjectNotOpened(Exception):
    """The path names no project that can be read; the message says why."""


def formal_from_cache(index, notice: Notice) -> None:
    """Claims whose Lean check passed before (cached by `colosseum lean`) show as formal; Lean is
    not run here, and a Lean setup that cannot be read changes nothing (``notice`` says so)."""
    if not lean_cache_dir(index.root_dir).is_dir():
        return  # nothing was ever checked here: not even the Lean bridge is imported
    try:
        from colosseum.lean import apply_cached_results  # the Lean bridge is heavy: only when a cache exists

        apply_cached_results(index)
    except Exception as exc:  # noqa: BLE001 - the check must report the paper whatever Lean's state
        notice(f"Lean results not read ({exc})")


def project_path(path: str | Path, notice: Notice) -> Path:
    """The project a path belongs to: a part naming its root (``% !TEX root``) leads to that root,
    as long as the two are in one project folder (``root_in_reach``). A root named outside is not
    followed: the index reports it (colosseum/path-outside-project) and reads the part as its own
    root."""
    part, seen = Path(path), set()
    while part.is_file() and part.resolve() not in seen:
        seen.add(part.resolve())
        named = named_root(part)
        if named is None or not root_in_reach(part, named):
            break
        part = named
    if part.resolve() != Path(path).resolve():
        # named as the user named the part: an absolute path stays absolute ("../../../tmp/p/main.tex"
        # was relative to wherever the command ran)
        named_as = str(part.resolve()) if Path(path).is_absolute() else os.path.relpath(part)
        notice(f"{path} is part of {named_as}: reading that project")
        return part
    return Path(path)


def open_for_run(path: str | Path, notice: Notice, for_edits: bool = True) -> ProjectIndex:
    """The project's index for a command, with the claims Lean checked before trusted as formal;
    raises ProjectNotOpened with the reason when it cannot be read. ``for_edits=False``: for one
    report, never updated (ProjectIndex.open)."""
    try:
        index = ProjectIndex.open(project_path(path, notice), for_edits=for_edits)
    except ProjectError as exc:
        raise ProjectNotOpened(str(exc)) from exc
    formal_from_cache(index, notice)
    return index


def open_plain(path: str | Path) -> ProjectIndex:
    """The project's index as the files say, nothing from Lean's cache (``lean``, ``knowledge add``)."""
    try:
        return ProjectIndex.open(path)
    except ProjectError as exc:
        raise ProjectNotOpened(str(exc)) from exc
