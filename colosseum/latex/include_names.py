"""File names of includes written with the author's macros: ``\\input{\\chapdir/one}`` after
``\\newcommand{\\chapdir}{chapters}``.

Only a macro defined as plain text (no commands, no braces) in the including file or the root is
expanded: enough for the path macros papers and theses use, and never a guess. A name that stays
unexpanded is said as such, not as a missing file."""

from __future__ import annotations

import re

from colosseum.core.lazy_regex import lazy_regex

_MACRO = lazy_regex(r"\\([A-Za-z@]+)\s*")
MAX_EXPANSIONS = 20  # a macro defined through itself must not loop


def _plain_definition(name: str, texts: list[str]) -> str | None:
    escaped = re.escape(name)
    pattern = re.compile(r"\\(?:(?:(?:re)?newcommand|providecommand)\*?\s*\{?\s*\\" + escaped + r"\s*\}?"
                         r"|[gex]?def\s*\\" + escaped + r")\s*\{([^{}\\%]*)\}")
    for text in texts:
        if "\\" + name not in text:
            continue
        found = [m.group(1) for m in pattern.finditer(text) if not _commented(text, m.start())]
        if found:
            return found[-1].strip()
    return None


def _commented(text: str, at: int) -> bool:
    line_start = text.rfind("\n", 0, at) + 1
    return bool(re.search(r"(?<!\\)%", text[line_start:at]))


def expand_include_name(value: str, texts: list[str]) -> tuple[str, list[str]]:
    """``value`` with its plain-text macros expanded, and the names that could not be."""
    unknown: list[str] = []
    for _ in range(MAX_EXPANSIONS):
        m = _MACRO.search(value)
        if m is None:
            return value, unknown
        body = _plain_definition(m.group(1), texts)
        if body is None:
            unknown.append(m.group(1))
            return value, unknown
        value = value[:m.start()] + body + value[m.end():]
    return value, unknown or [m.group(1)]
