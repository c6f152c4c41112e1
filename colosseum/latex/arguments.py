"""Reading the arguments of a LaTeX command: brace groups, optional [...] arguments, stars,
with comments skipped and runaway arguments reported, never raised.

What only looks at the text takes the text; what may report an error or keep a skipped region
takes the scan's state (colosseum.latex.state)."""

from __future__ import annotations

import re
from sys import intern

from colosseum.latex.state import ScanState, report_error
from colosseum.core.lazy_regex import lazy_regex

_GROUP_TOKEN = lazy_regex(r"\\.|[{}%\[\]]", re.S)
_BLANK_LINE = lazy_regex(r"\n[ \t]*\n")
_CONTROL_SEQUENCE = lazy_regex(r"\\(?:[A-Za-z@]+|.)", re.S)
MAX_SHORT_ARGUMENT = 4000  # a \label or \ref argument longer than this is a runaway
MAX_LONG_ARGUMENT = 200_000  # a macro body or section title


def skip_space(text: str, pos: int) -> int:
    """Skip spaces, one line break at a time (a blank line ends the search) and comments."""
    n = len(text)
    while pos < n:
        c = text[pos]
        if c == " " or c == "\t" or c == "\r":
            pos += 1
        elif c == "\n":
            nxt = pos + 1
            while nxt < n and text[nxt] in " \t\r":
                nxt += 1
            if nxt < n and text[nxt] == "\n":
                return pos  # a paragraph break: no more arguments
            pos = nxt
        elif c == "%":
            end = text.find("\n", pos)
            if end == -1:
                return n
            pos = end
        else:
            return pos
    return pos


def match_group(text: str, open_pos: int, limit: int, close: str = "}") -> int:
    """Offset of the closer matching the opener at ``open_pos``; -1 when unbalanced."""
    end_limit = min(len(text), open_pos + limit)
    if close == "}":  # the common case, a short plain argument such as a label: one find
        quick = text.find("}", open_pos + 1, end_limit)
        if quick != -1:
            inner = text[open_pos + 1:quick]
            if "{" not in inner and "%" not in inner and "\\" not in inner:
                return quick
    depth = 0
    pos = open_pos + 1
    search = _GROUP_TOKEN.search
    while True:
        m = search(text, pos, end_limit)
        if m is None:
            return -1
        tok = m.group()
        pos = m.end()
        if tok == "{":
            depth += 1
        elif tok == "}":
            if depth == 0:
                return m.start() if close == "}" else -1
            depth -= 1
        elif tok == "]":
            if depth == 0 and close == "]":
                return m.start()
        elif tok == "%":
            nl = text.find("\n", pos)
            if nl == -1:
                return -1
            pos = nl + 1


def after_optional(text: str) -> str:
    """``text`` without the ``[...]`` it opens with (a theorem's title: ``[Hall {[1935]}]``, ended
    as LaTeX ends it, by the first ``]`` outside braces); ``text`` itself when it opens with none."""
    start = skip_space(text, 0)
    if not text.startswith("[", start):
        return text
    close = match_group(text, start, MAX_LONG_ARGUMENT, "]")
    return text if close < 0 else text[close + 1:]


def read_group(state: ScanState, pos: int, limit: int = MAX_SHORT_ARGUMENT,
               command: str = "") -> tuple[int, int, int] | None:
    """Read ``{...}`` at ``pos`` (after spaces): (inner start, inner end, offset after). A group
    that does not close is reported and kept as a skipped region."""
    text = state.text
    p = skip_space(text, pos)
    if p >= len(text) or text[p] != "{":
        return None
    close = match_group(text, p, limit)
    if close == -1 or (limit == MAX_SHORT_ARGUMENT and _BLANK_LINE.search(text, p, close)):
        # how this reads depends on text far ahead (a brace typed later closes it)
        state.skips.append((p, p + limit))  # not clipped: text appended later counts too
        report_error(state, pos - len(command) - 1 if command else p, p + 1, "unbalanced-brace",
                     f"the argument of \\{command} never closes: a '{{' without its '}}'"
                     if command else "a '{' without its '}'")
        return None
    return p + 1, close, close + 1


def read_optional(state: ScanState, pos: int) -> tuple[int, int, int] | None:
    """Read ``[...]`` at ``pos`` (after spaces): (inner start, inner end, offset after)."""
    text = state.text
    p = skip_space(text, pos)
    if p >= len(text) or text[p] != "[":
        return None
    close = match_group(text, p, MAX_SHORT_ARGUMENT, close="]")
    if close == -1:
        state.skips.append((p, p + MAX_SHORT_ARGUMENT))
        return None
    return p + 1, close, close + 1


def read_star(text: str, pos: int) -> tuple[bool, int]:
    if pos < len(text) and text[pos] == "*":
        return True, pos + 1
    return False, pos


def read_token_or_group(state: ScanState, pos: int, command: str) -> tuple[int, int, int] | None:
    """A mandatory argument: a brace group, or a single control sequence or character."""
    group = read_group(state, pos, MAX_LONG_ARGUMENT, command)
    if group is not None:
        return group
    text = state.text
    p = skip_space(text, pos)
    if p >= len(text) or text[p] in "}%":
        return None
    if text[p] == "\\":
        m = _CONTROL_SEQUENCE.match(text, p)
        end = m.end() if m else p + 1
        return p, end, end
    return p, p + 1, p + 1


def label_items(text: str, s: int, e: int, split: bool) -> list[tuple[str, int, int]]:
    """The label names in text[s:e] as TeX reads them, with their source ranges: a comment runs
    to the end of its line and swallows the line break and the next line's indentation, any run
    of spaces, tabs and line breaks is one space, and a list is cut at its commas."""
    raw = text[s:e]
    if "%" not in raw:  # no comment: every character stays where it is
        if not split:
            return _items_in_place(raw, s, [raw])
        return _items_in_place(raw, s, raw.split(","))
    # general case: keep, for every kept character, where it came from
    chars: list[str] = []
    where: list[int] = []
    i = 0
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == "%" and (i == 0 or raw[i - 1] != "\\"):
            nl = raw.find("\n", i)
            if nl == -1:
                break
            i = nl + 1
            while i < n and raw[i] in " \t":
                i += 1
            continue
        chars.append(c)
        where.append(s + i)
        i += 1
    cleaned = "".join(chars)
    pieces = cleaned.split(",") if split else [cleaned]
    out = []
    offset = 0
    for piece in pieces:
        stripped = piece.strip()
        if stripped:
            lead = len(piece) - len(piece.lstrip())
            first = offset + lead
            last = first + len(stripped) - 1
            value = " ".join(stripped.split()) if _needs_space_fix(stripped) else stripped
            out.append((intern(value), where[first], where[last] + 1))
        offset += len(piece) + 1
    return out


def _items_in_place(raw: str, s: int, pieces: list[str]) -> list[tuple[str, int, int]]:
    """``label_items`` for text with no comment: ``pieces`` are ``raw`` (at offset ``s``) cut
    at its commas, or ``raw`` whole."""
    out = []
    offset = s
    for piece in pieces:
        stripped = piece.strip()
        if stripped:
            start = offset + len(piece) - len(piece.lstrip())
            # interned: a label's name and every reference to it are one string, not one each
            value = " ".join(stripped.split()) if _needs_space_fix(stripped) else stripped
            out.append((intern(value), start, start + len(stripped)))
        offset += len(piece) + 1
    return out


def _needs_space_fix(value: str) -> bool:
    return "\n" in value or "\t" in value or "  " in value or "\r" in value
