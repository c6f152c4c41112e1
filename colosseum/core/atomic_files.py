"""Writing a file so that a reader (or a crash) sees the old text or the new one, never a torn one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from colosseum.core.paths import prepare_write


def write_atomically(path: Path, text: str, before_rename: Callable[[], None] | None = None) -> None:
    """Write ``text`` to a temporary file beside ``path``, flush it to disk, then rename it over
    ``path``; on any failure the temporary file is removed and the error raised. The temporary
    file's name starts with ``.tmp-`` and ends in ``.tmp``, so no reader globbing for its own
    files takes it for one. ``before_rename`` runs just before the rename (a test's hook)."""
    prepare_write(path)  # a first write into .colosseum/ also leaves its .gitignore
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if before_rename is not None:
            before_rename()
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
