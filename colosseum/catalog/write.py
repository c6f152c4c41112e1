"""Changing catalog entries safely: read-modify-write under a lock on the catalog folder (an
editor and a terminal writing at once lose nothing), and atomic replacement (write a temporary
file, fsync, rename: a process killed mid-write leaves the old entry or the new one, never a torn
file). The temporary files end in ``.tmp`` so that no reader mistakes them for entries."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path

from colosseum.core import atomic_files

LOCK_NAME = ".colosseum-catalog.lock"


@contextlib.contextmanager
def catalog_lock(directory: Path, timeout: float = 30.0):
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / LOCK_NAME, "a+") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the catalog in {directory} stayed locked for {timeout:.0f} s")
                time.sleep(0.01)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_atomically(path: Path, text: str) -> None:
    atomic_files.write_atomically(path, text, before_rename=_pause_for_the_kill_test)


def _pause_for_the_kill_test() -> None:
    pause = os.environ.get("COLOSSEUM_TEST_PAUSE_BEFORE_RENAME")  # lets the kill test strike here
    if pause:
        time.sleep(float(pause))


def update_front_matter(path: Path, fields: dict[str, str | None]) -> str:
    """The entry's text with top-level front-matter fields set (a value is a YAML scalar, written
    single-quoted) or removed (None); the body and every other line stay as the author wrote them."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if not lines or lines[0] != "---":
        raise ValueError(f"{path} is not a catalog entry (no front matter)")
    end = next((i for i in range(1, len(lines)) if lines[i] == "---"), None)
    if end is None:
        raise ValueError(f"{path}: the front matter has no closing --- line")
    header = lines[1:end]
    for key, value in fields.items():
        index = next((i for i, line in enumerate(header) if line.startswith(f"{key}:")), None)
        if index is not None:  # drop the field and any indented continuation lines
            stop = index + 1
            while stop < len(header) and (header[stop].startswith((" ", "\t")) or not header[stop].strip()):
                stop += 1
            del header[index:stop]
        if value is not None:
            quoted = "'" + value.replace("'", "''") + "'"
            header.insert(index if index is not None else len(header), f"{key}: {quoted}")
    return "\n".join(["---", *header, *lines[end:]])


def set_fields(path: Path, fields: dict[str, str | None]) -> None:
    """Read, change and replace one entry, under the catalog lock."""
    with catalog_lock(path.parent):
        write_atomically(path, update_front_matter(path, fields))
