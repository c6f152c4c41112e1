"""Where reviews live (``core.paths.reviews_dir``: ``.colosseum/reviews/``) and what a new report is called."""

from __future__ import annotations

import re
import time
from pathlib import Path

from colosseum.core.paths import reviews_dir


def reviews_directory(root_dir: Path) -> Path:
    return reviews_dir(root_dir)


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
