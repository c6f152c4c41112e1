"""Reading colosseum.toml against the schema: where each table and key is written (tomllib gives
no positions), and the problems of each table and key, on their lines."""

from __future__ import annotations

import re
from dataclasses import dataclass

from colosseum.settings.schema import TABLE_CLASSES, rules
from colosseum.core.lazy_regex import lazy_regex

UNKNOWN_KEY = "config-unknown-key"


@dataclass(slots=True)
class ConfigProblem:
    key: str
    message: str
    line: int = 0  # 0-based line in colosseum.toml, 0 when unknown
    severity: str = "error"
    code: str = "config-error"  # the diagnostic code, without the `colosseum/` prefix


# a key's dotted parts: bare (A-Za-z0-9_-) or quoted; used on the text before a `=` or inside `[...]`
_PART = lazy_regex(r"""\s*(?:([A-Za-z0-9_-]+)|"((?:[^"\\]|\\.)*)"|'([^']*)')\s*""")
_HEADER = lazy_regex(r"\s*\[\[?([^\]]*)\]\]?")


def _dotted(text: str) -> tuple[str, ...] | None:
    parts, pos = [], 0
    while True:
        m = _PART.match(text, pos)
        if m is None or m.end() == pos:
            return None
        parts.append(next(g for g in m.groups() if g is not None))
        pos = m.end()
        if pos == len(text):
            return tuple(parts)
        if text[pos] != ".":
            return None
        pos += 1


def _scan(line: str, opened: str) -> tuple[str, int, str]:
    """(the line without its comment, the change in bracket depth outside strings, the delimiter
    of a string left open at its end); ``opened`` is the delimiter of one the line starts inside."""
    code, depth, i = [], 0, 0
    while i < len(line):
        if opened:
            end = line.find(opened, i)
            if end < 0:
                return "".join(code), depth, opened
            code.append(line[i:end + len(opened)])
            i, opened = end + len(opened), ""
            continue
        c = line[i]
        if c == "#":
            break
        if line.startswith(('"""', "'''"), i):
            opened = line[i:i + 3]
            code.append(opened)
            i += 3
            continue
        if c in "\"'":
            end = i + 1
            while end < len(line) and line[end] != c:
                end += 2 if c == '"' and line[end] == "\\" else 1
            code.append(line[i:end + 1])
            i = end + 1
            continue
        depth += (c in "[{") - (c in "]}")
        code.append(c)
        i += 1
    return "".join(code), depth, opened


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """(table, ..., key) -> the 0-based line where it is first written: table headers, keys and
    every prefix of a dotted key. The inside of values that span lines (arrays, strings) is skipped."""
    lines: dict[tuple[str, ...], int] = {}
    opened, depth = "", 0
    table: tuple[str, ...] = ()
    for number, raw in enumerate(text.splitlines()):
        at_top = not opened and depth == 0
        code, delta, opened = _scan(raw, opened)
        if not at_top:
            depth = max(0, depth + delta)
            continue
        if code.lstrip().startswith("["):  # a table header: its brackets open no value
            header = _HEADER.match(code)
            path = _dotted(header.group(1)) if header else None
            if path is not None:
                table = path
                _record(lines, path, number)
        elif "=" in code:
            depth = max(0, delta)
            path = _dotted(code.split("=", 1)[0])
            if path is not None:
                _record(lines, table + path, number)
    return lines


def _record(lines: dict, path: tuple[str, ...], number: int) -> None:
    for end in range(1, len(path) + 1):
        lines.setdefault(path[:end], number)


def closest(name: str, candidates) -> str | None:
    import difflib  # only when a name is unknown: a cold `check` of a correct project never pays for it

    found = difflib.get_close_matches(name, list(candidates), n=1)
    return found[0] if found else None


def unknown_key(key: str, name: str, candidates, kind: str) -> ConfigProblem:
    guess = closest(name, candidates)
    hint = f": did you mean `{guess}`?" if guess else f" (known: {', '.join(sorted(candidates))})"
    return ConfigProblem(key, f"unknown {kind} `{key}`{hint}", severity="warning", code=UNKNOWN_KEY)


def check_keys(raw: dict) -> list[ConfigProblem]:
    """A problem per unknown table or key and per value its rule refuses (without lines)."""
    problems: list[ConfigProblem] = []
    top = rules(None)
    for name, value in raw.items():
        if name in top:
            if not top[name].check(value):
                problems.append(ConfigProblem(name, f"`{name}` must be {top[name].what}, got {value!r}"))
        elif name not in TABLE_CLASSES:
            kind = "table" if isinstance(value, dict) else "key"
            problems.append(unknown_key(name, name, [*top, *TABLE_CLASSES], kind))
        elif not isinstance(value, dict):
            problems.append(ConfigProblem(name, f"`{name}` must be a table ([{name}])"))
        else:
            problems += _check_table(name, value)
    return problems


def _check_table(table: str, section: dict) -> list[ConfigProblem]:
    problems: list[ConfigProblem] = []
    known = rules(table)
    for key, value in section.items():
        name = f"{table}.{key}"
        if key not in known:
            problems.append(unknown_key(name, key, known, "key"))
        elif not known[key].check(value):
            problems.append(ConfigProblem(name, f"`{name}` must be {known[key].what}, got {value!r}"))
    widths, leaves = section.get("widths"), section.get("leaves")
    if (table == "solve" and known["widths"].check(widths) and known["leaves"].check(leaves)
            and widths[0] != leaves):
        problems.append(ConfigProblem("solve.widths", f"`solve.widths` must start with `solve.leaves` ({leaves})"))
    return problems


def place(problems: list[ConfigProblem], text: str) -> None:
    """Put each problem on the line of its key (the nearest written prefix of it)."""
    lines = key_lines(text)
    for problem in problems:
        if problem.line or not problem.key:
            continue
        path = tuple(problem.key.split("."))
        while path and path not in lines:
            path = path[:-1]
        problem.line = lines.get(path, 0)
