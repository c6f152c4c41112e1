"""Where reviews live (``.colosseum/reviews/``) and how files there are written (atomically)."""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path


def reviews_directory(root_dir: Path) -> Path:
    return Path(root_dir) / ".colosseum" / "reviews"


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def report_stem(root_dir: Path, name: str) -> Path:
    """A fresh ``.colosseum/reviews/<time>-<name>`` (no suffix); never overwrites an earlier one."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:80]
    base = reviews_directory(root_dir) / f"{stamp}-{safe}"
    stem, suffix = base, 1
    while stem.with_suffix(".md").exists() or stem.with_suffix(".json").exists():
        suffix += 1
        stem = base.with_name(f"{base.name}-{suffix}")
    return stem
