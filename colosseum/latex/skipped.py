"""The scanner's reading of text that TeX does not read as commands here: verbatim-like
environments, ``\\verb`` and its kin (``\\lstinline``, ``\\Verb``, ``\\mintinline``), ``\\iffalse``
blocks, and what follows ``\\endinput``. They never yield labels or references.

Functions over the scan's state (colosseum.latex.state), called by the scanner's dispatch
(colosseum.latex.scanner), which also reads the last line before an ``\\endinput``.
"""

from __future__ import annotations

import re

from colosseum.latex.braces import UNBOUNDED
from colosseum.latex.arguments import read_group, read_optional, read_star
from colosseum.latex.events import Event
from colosseum.latex.state import ScanState, report_error
from colosseum.core.lazy_regex import lazy_regex

_CONDITIONAL_TOKEN = lazy_regex(r"(?<!\\)\\(if[A-Za-z@]*|fi|else)(?![A-Za-z@])|(?<!\\)%")
_NEWIF = lazy_regex(r"\\newif\s*\\(if[A-Za-z@]+)")
_AFTER_NEWIF = lazy_regex(r"\\newif\s*$")
_TEX_CONDITIONALS = frozenset((
    "if", "ifcat", "ifnum", "ifdim", "ifodd", "ifvmode", "ifhmode", "ifmmode", "ifinner", "ifvoid",
    "ifhbox", "ifvbox", "ifx", "ifeof", "iftrue", "iffalse", "ifcase", "ifdefined", "ifcsname",
    "iffontchar", "ifincsname", "ifpdfprimitive", "ifpdfabsnum", "ifpdfabsdim", "ifabsnum", "ifabsdim",
))


def _balanced_close(text: str, open_pos: int) -> int:
    """The '}' closing the '{' at ``open_pos`` on its line, counting braces only; -1 if none."""
    depth = 0
    line_end = text.find("\n", open_pos)
    for pos in range(open_pos, len(text) if line_end == -1 else line_end):
        if text[pos] == "{":
            depth += 1
        elif text[pos] == "}":
            depth -= 1
            if depth == 0:
                return pos
    return -1


def skip_verbatim(state: ScanState, env: str, start: int, body: int) -> int:
    """A verbatim-like environment whose body starts at ``body``: skipped up to its \\end."""
    text = state.text
    closing = "\\end{" + env + "}"
    end = text.find(closing, body)
    state.events.append(Event("begin", start, body, env, extra="verbatim"))
    if end == -1:
        report_error(state, start, body, "unterminated-environment",
                     f"\\begin{{{env}}} is never closed: the rest of the file is read as verbatim")
        state.skips.append((start, UNBOUNDED))
        return len(text)
    state.skips.append((start, end + len(closing)))
    state.events.append(Event("end", end, end + len(closing), env))
    return end + len(closing)


def read_verb(state: ScanState, name: str, start: int, after: int) -> int:
    """``\\verb|code|`` and its kin: skipped to the closing delimiter on the same line."""
    text = state.text
    pos = after
    while pos < len(text) and text[pos] in " \t":
        pos += 1  # TeX skips spaces after a control word: "\\verb |x|" is delimited by |
    _, pos = read_star(text, pos)
    if pos >= len(text):
        return pos
    delim = text[pos]
    if name != "verb" and delim == "[":  # \lstinline[style], \Verb[opts], \mintinline[opts]
        opt = read_optional(state, pos)
        pos = opt[2] if opt else pos
        delim = text[pos] if pos < len(text) else ""
    if name == "mintinline":  # \mintinline{lang}{code} or \mintinline{lang}|code|
        language = read_group(state, pos, command=name)
        if language is None:
            return pos
        pos = language[2]
        delim = text[pos] if pos < len(text) else ""
    if delim == "{" and name == "mintinline":
        close = _balanced_close(text, pos)  # minted's braced code may hold balanced braces
    elif delim == "{":
        close = text.find("}", pos + 1)
    elif delim and not delim.isspace():
        close = text.find(delim, pos + 1)
    else:
        return pos
    line_end = text.find("\n", pos)
    if close == -1 or (line_end != -1 and close > line_end):
        return pos + 1
    return close + 1


def read_iffalse(state: ScanState, name: str, start: int, after: int) -> int:
    """Skip to the matching \\fi (or past an \\else, whose branch TeX does read). Only real
    conditionals nest: \\iff or \\ifthenelse inside commented-out maths are not \\if's."""
    text = state.text
    conditionals = _TEX_CONDITIONALS | set(_NEWIF.findall(text)) if "\\newif" in text else _TEX_CONDITIONALS
    depth = 1
    pos = after
    while True:
        m = _CONDITIONAL_TOKEN.search(text, pos)
        if m is None:
            state.skips.append((start, UNBOUNDED))
            return len(text)
        pos = m.end()
        if m.group() == "%":
            nl = text.find("\n", pos)
            if nl == -1:
                state.skips.append((start, UNBOUNDED))
                return len(text)
            pos = nl + 1
            continue
        word = m.group(1)
        if word == "fi":
            depth -= 1
            if depth == 0:
                state.skips.append((start, pos))
                return pos
        elif word == "else" and depth == 1:
            state.skips.append((start, pos))
            return pos  # the \\else branch is read; its \\fi is then harmless
        elif word in conditionals:
            depth += 1


def endinput_line_end(state: ScanState, start: int, after: int) -> int | None:
    """Where the file ends for an ``\\endinput`` at ``start``: TeX reads the rest of the line
    (the scanner reads it up to the offset returned), then nothing more of the file. None when it
    does not end the file: inside a conditional, which the scanner cannot decide
    (``\\ifdefined\\loaded\\endinput\\fi`` guards a file against being read twice, and the file is
    read on), in a wrapper's expansion, or on the last line."""
    if state.depth:
        return None
    state.endinput = True  # whether it counts depends on all the text before it
    line_end = state.text.find("\n", after)
    if line_end == -1 or _in_conditional(state.text, start):
        return None
    return line_end


def _in_conditional(text: str, pos: int) -> bool:
    """Whether a TeX conditional is open at ``pos`` (counted from the file's start)."""
    conditionals = _TEX_CONDITIONALS | set(_NEWIF.findall(text)) if "\\newif" in text else _TEX_CONDITIONALS
    depth = 0
    at = 0
    while True:
        m = _CONDITIONAL_TOKEN.search(text, at, pos)
        if m is None:
            return depth > 0
        at = m.end()
        word = m.group(1)
        if word is None:  # a comment
            at = text.find("\n", at, pos)
            if at == -1:
                return depth > 0
        elif word == "fi":
            depth = max(depth - 1, 0)
        elif word in conditionals and not _AFTER_NEWIF.search(text, max(m.start() - 12, 0), m.start()):
            depth += 1
