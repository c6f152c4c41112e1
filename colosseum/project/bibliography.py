"""Reading a project's .bib files: each entry's key, type and fields, where it starts, and what
could not be read. A tolerant reader of its own (no dependency): it never raises, skips
``@string``, ``@comment`` and ``@preamble``, reads braced and quoted values, and reports an entry
it cannot finish instead of guessing past it (colosseum.checks.citations turns that into a finding).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from colosseum.core.lazy_regex import lazy_regex

_SKIPPED = frozenset({"string", "comment", "preamble"})
_ENTRY_START = lazy_regex(r"@\s*([A-Za-z][\w-]*)\s*([{(])")
_FIELD_NAME = lazy_regex(r"\s*([A-Za-z][\w:.+-]*)\s*=\s*")
_KEY = lazy_regex(r"\s*([^\s,{}()=\"#%'~\\]+)\s*,?")


@dataclass(frozen=True, slots=True)
class BibEntry:
    """One entry of a .bib file."""

    key: str
    entry_type: str  # article, book, ... (lowercased)
    fields: dict[str, str]  # field name (lowercased) -> its value, braces and quotes removed
    start: int  # offsets of the key in the .bib text
    end: int


@dataclass(slots=True)
class BibFile:
    """A .bib file and the entries read from it."""

    entries: list[BibEntry] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)  # (offset, what could not be read)


def read_bib(text: str) -> BibFile:
    """Every entry of a .bib text, and where it could not be read."""
    out = BibFile()
    pos = 0
    while True:
        m = _ENTRY_START.search(text, pos)
        if m is None:
            return out
        kind, close = m.group(1).lower(), "}" if m.group(2) == "{" else ")"
        if kind in _SKIPPED:
            pos = _skip_balanced(text, m.end(), close)
            continue
        pos = _read_entry(text, m, kind, close, out)


def _skip_balanced(text: str, pos: int, close: str) -> int:
    depth = 1
    opener = "{" if close == "}" else "("
    while pos < len(text):
        ch = text[pos]
        if ch == opener:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return pos + 1
        pos += 1
    return len(text) + 1  # not closed


def _read_entry(text: str, m: re.Match, kind: str, close: str, out: BibFile) -> int:
    key_match = _KEY.match(text, m.end())
    if key_match is None:
        out.problems.append((m.start(), f"@{kind} entry without a key"))
        return m.end()
    key, pos = key_match.group(1), key_match.end()
    fields: dict[str, str] = {}
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos < len(text) and text[pos] == close:
            out.entries.append(BibEntry(key, kind, fields, key_match.start(1), key_match.end(1)))
            return pos + 1
        name = _FIELD_NAME.match(text, pos)
        if name is None:
            out.problems.append((key_match.start(1), f"entry `{key}` could not be read to its end "
                                 f"(near line {text.count(chr(10), 0, pos) + 1})"))
            # still defines its key: BibTeX reads the key before it fails on the fields
            out.entries.append(BibEntry(key, kind, fields, key_match.start(1), key_match.end(1)))
            nxt = text.find("@", pos)
            return len(text) if nxt < 0 else nxt
        value, pos = _read_value(text, name.end())
        if value is None:
            out.problems.append((key_match.start(1), f"entry `{key}`: the value of `{name.group(1)}` is not closed"))
            out.entries.append(BibEntry(key, kind, fields, key_match.start(1), key_match.end(1)))
            return len(text)
        fields[name.group(1).lower()] = value


def _read_value(text: str, pos: int) -> tuple[str | None, int]:
    """A field's value: braced, quoted, a number or @string name, joined with ``#``."""
    parts = []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return None, pos
        ch = text[pos]
        if ch == "{":
            end = _skip_balanced(text, pos + 1, "}")
            if end > len(text) or text[end - 1] != "}":
                return None, end
            parts.append(text[pos + 1:end - 1])
            pos = end
        elif ch == '"':
            end, depth = pos + 1, 0
            while end < len(text) and not (text[end] == '"' and depth == 0):
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                end += 1
            if end >= len(text):
                return None, end
            parts.append(text[pos + 1:end])
            pos = end + 1
        else:
            word = re.match(r"[^\s,#})]+", text[pos:])
            if word is None:
                return None, pos
            parts.append(word.group(0))
            pos += word.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos < len(text) and text[pos] == "#":
            pos += 1
            continue
        return " ".join(" ".join(p.replace("{", "").replace("}", "").split()) for p in parts), pos
