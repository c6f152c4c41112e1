"""Renaming a label reaches the knowledge catalog: the project's entries that link to the label
(``links.labels``, ``target.label``) name it under its new name wherever they mention it.

Only places are computed here; the editor applies them as part of the rename's one edit, so
nothing is written unless the author accepts it. The starter catalog shipped with the tool is
never edited."""

from __future__ import annotations

import re
from pathlib import Path

from colosseum.catalog.store import Catalog
from colosseum.core.structure import Position, Range


def _mentions_pattern(label: str) -> re.Pattern:
    # a whole label: not part of a longer one (`lem:a` in `lem:ab` or `xlem:a`); a full stop
    # right after it ends a sentence unless a word follows
    return re.compile(r"(?<![\w:./\-])" + re.escape(label) + r"(?![\w:/\-]|\.\w)")


def links_to(entry, label: str) -> bool:
    target = entry.data.get("target") if isinstance(entry.data.get("target"), dict) else {}
    return label in (entry.links.get("labels") or []) or target.get("label") == label


def catalog_label_places(catalog: Catalog, label: str) -> dict[Path, list[Range]]:
    """Per project entry file that links to ``label``: every mention of it (UTF-16 columns)."""
    pattern = _mentions_pattern(label)
    out: dict[Path, list[Range]] = {}
    for entry in catalog.entries.values():
        if entry.layer != "project" or not links_to(entry, label):
            continue
        try:
            text = entry.file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        places = []
        for number, line in enumerate(text.splitlines()):
            for m in pattern.finditer(line):
                start = len(line[:m.start()].encode("utf-16-le")) // 2
                places.append(Range(Position(number, start), Position(number, start + len(label.encode("utf-16-le")) // 2)))
        if places:
            out[entry.file] = places
    return out
