"""Lean's answers, kept under the paper's ``.colosseum/lean/cache/``, keyed by everything an answer
depends on: the file Lean was given, the project files it imports, the lakefile, the manifest
and the toolchain. Only complete answers are kept (never a timeout or a crash)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.core.atomic_files import write_atomically
from colosseum.core.paths import lean_cache_dir

MAX_ENTRIES = 2000


class LeanCache:
    def __init__(self, project_dir: Path, enabled: bool = True):
        self.directory = lean_cache_dir(project_dir)
        self.enabled = enabled

    def get(self, key: str) -> list[dict] | None:
        if not self.enabled:
            return None
        try:
            data = json.loads((self.directory / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        diagnostics = data.get("diagnostics") if isinstance(data, dict) else None
        return diagnostics if isinstance(diagnostics, list) else None

    def put(self, key: str, unit: str, toolchain: str, diagnostics: list[dict]) -> None:
        if not self.enabled:
            return
        record = {"schema_version": SCHEMA_VERSION, "unit": unit, "toolchain": toolchain,
                  "diagnostics": diagnostics,
                  "checked": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
        try:
            write_atomically(self.directory / f"{key}.json", json.dumps(record, ensure_ascii=False))
            self._prune()
        except OSError:
            pass  # a read-only project still gets its answers, only not kept

    def _prune(self) -> None:
        entries = list(self.directory.glob("*.json"))
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort(key=lambda p: p.stat().st_mtime)
        for path in entries[: len(entries) - MAX_ENTRIES]:
            try:
                path.unlink()
            except OSError:
                pass
