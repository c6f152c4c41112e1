"""Dismissed critiques, remembered in ``dismissed.json`` under ``core.paths.reviews_dir`` by the hash of the
quoted text and the kind (``records.critique_key``): a dismissal holds while that text is
unchanged and lapses by itself when the text changes (a new quote has a new key).

A dismissal also remembers the severity the author saw: it covers that severity and milder ones,
never a more severe critique of the same words (dismissing a minor remark must not silence a
later fatal flaw). Dismissing a merged critique records every member's key."""

from __future__ import annotations

import json
import time
from pathlib import Path

from colosseum.core.atomic_files import write_atomically
from colosseum.loops.review.records import RANK, ReviewCritique
from colosseum.loops.review.storage import reviews_directory

STORE_NAME = "dismissed.json"


class DismissalStore:
    def __init__(self, root_dir: Path):
        self.path = reviews_directory(root_dir) / STORE_NAME
        self._entries: dict[str, dict] | None = None

    def entries(self) -> dict[str, dict]:
        if self._entries is None:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}  # absent or unreadable: nothing dismissed (never a crash)
            self._entries = {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}
        return self._entries

    def is_dismissed(self, critique: ReviewCritique) -> bool:
        entry = self.entries().get(critique.key)
        if entry is None:
            return False
        # an entry without a severity (written before severities were kept) covers every severity
        covered = RANK.get(entry.get("severity"), RANK["fatal"])
        return RANK.get(critique.severity, RANK["major"]) >= covered

    def dismiss(self, critique: ReviewCritique, note: str = "") -> str:
        """Every key of the critique (a merged one has its members'), at the severity shown."""
        entries = dict(self.entries())
        when = time.strftime("%Y-%m-%dT%H:%M:%S")
        for key in critique.all_keys:
            entries[key] = {"kind": critique.kind, "quote": critique.quote, "message": critique.message,
                            "severity": critique.severity, "dismissed_at": when, "note": note}
        self._save(entries)
        return critique.key

    def dismiss_key(self, key: str, kind: str = "", quote: str = "", message: str = "",
                    severity: str = "fatal") -> None:
        entries = dict(self.entries())
        entries[key] = {"kind": kind, "quote": quote, "message": message, "severity": severity,
                        "dismissed_at": time.strftime("%Y-%m-%dT%H:%M:%S"), "note": ""}
        self._save(entries)

    def restore(self, key: str) -> bool:
        entries = dict(self.entries())
        if entries.pop(key, None) is None:
            return False
        self._save(entries)
        return True

    def apply(self, critiques: list[ReviewCritique]) -> int:
        """Mark the dismissed ones; returns how many."""
        count = 0
        for c in critiques:
            c.dismissed = self.is_dismissed(c)
            count += c.dismissed
        return count

    def _save(self, entries: dict) -> None:
        write_atomically(self.path, json.dumps(entries, indent=2, ensure_ascii=False, sort_keys=True))
        self._entries = entries
