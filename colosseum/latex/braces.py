"""Balanced braces of a file's plain text, checked by the scanner as it goes.

Every '{' of the plain text must close before the file ends and before the ``\\end`` of an
environment begun outside it; the command arguments the scanner's handlers read are balanced
already, and comments, verbatim, ``\\verb`` and ``\\iffalse`` never reach this check. A group
that spans lines is kept as a skipped region: an incremental rescan (colosseum.latex.incremental)
never starts or stops inside one, so it always starts with no group open, as a full scan would.

The groups open are kept in the scan's state (``ScanState.braces``: [offset of the '{',
environments begun inside it]; None checks nothing, as in a wrapper's expansion).
"""

from __future__ import annotations

import re
from bisect import insort
from operator import attrgetter

from colosseum.latex.events import Event
from colosseum.latex.state import ScanState, report_error

UNBOUNDED = 1 << 60  # end of a skipped region that runs to the end of the file, whatever is appended
_START = attrgetter("start")


def _possessive_works() -> bool:
    """Python 3.11.0-3.11.4 (Debian 12 ships 3.11.2) evaluate some possessive loops wrongly:
    this one must stop before a group that does not close."""
    return re.search(r"(?:a|\{(?:b)*+\})++", "a{bb").group() == "a"


def _balanced_run(possessive: bool | None = None) -> re.Pattern[str]:
    """A stretch of plain text whose groups all close on the line they open, nested up to three
    deep (almost all of a paper's braces: \\frac{a}{x^{2}}), matched in one step; else a single
    brace. Plain text between commands holds no comment and no \\\\, so \\. is an escape such as
    \\{. Atomic loops: a stretch that does not close fails without backtracking. They are written
    possessive where the running Python gets those right, else as a lookahead and a
    backreference, which every Python reads the same way."""
    if possessive is None:
        possessive = _possessive_works()
    names = iter(range(1, 100))

    def atomic(loop: str, body: str) -> str:  # (?>(?:body)loop)
        if possessive:
            return f"(?:{body}){loop}+"
        name = f"a{next(names)}"
        return f"(?=(?P<{name}>(?:{body}){loop}))(?P={name})"

    def group(depth: int) -> str:  # a '{' ... '}' on one line, with groups inside up to depth
        inner = atomic("+", r"[^{}\\\n]") + r"|\\[^\n]" + ("|" + group(depth - 1) if depth else "")
        return r"\{" + atomic("*", inner) + r"\}"

    return re.compile(atomic("+", atomic("+", r"[^{}\\]") + r"|\\.|" + group(2)) + r"|[{}]", re.DOTALL)


BRACE_OR_BALANCED_TEXT = _balanced_run()


def braces_between(state: ScanState, brace: re.Match[str] | None, end: int) -> None:
    """Follow the braces of the plain text from the match ``brace`` of BRACE_OR_BALANCED_TEXT up
    to ``end``: a '{' opens a group of ``state.braces``, a '}' closes one or is reported."""
    text = state.text
    stack = state.braces
    search = BRACE_OR_BALANCED_TEXT.search
    while brace is not None:
        at, after = brace.span()
        if after - at == 1 and text[at] in "{}":  # a brace the stretch before did not close
            if text[at] == "{":
                stack.append([at, 0])
            elif stack:
                opened = stack.pop()[0]
                if not stack and text.find("\n", opened, at) != -1:
                    state.skips.append((opened, at + 1))
            else:
                report_error(state, at, at + 1, "unbalanced-brace", "a '}' that closes no '{'")
        brace = search(text, after, end)


def environment_in_group(state: ScanState, env: str, begins: bool, end: int) -> None:
    """\\begin or \\end met while a group is open: an \\end of an environment begun before
    the group closes it (and reports it) the way LaTeX would complain."""
    stack = state.braces
    if begins:
        stack[-1][1] += 1
        return
    lowest = None
    while stack and stack[-1][1] == 0:
        lowest = stack.pop()[0]
        _open_brace_error(state, lowest, f"a '{{' that is not closed before \\end{{{env}}}")
    if stack:
        stack[-1][1] -= 1
    elif lowest is not None and state.text.find("\n", lowest, end) != -1:
        state.skips.append((lowest, end))


def _open_brace_error(state: ScanState, at: int, message: str) -> None:
    if at not in state.brace_errors:  # else the argument reader said it already
        insort(state.events, Event("error", at, at + 1, "unbalanced-brace", message), key=_START)


def close_open_braces(state: ScanState) -> None:
    """At the end of the file: every group still open is a '{' without its '}'."""
    if state.braces:
        state.skips.append((state.braces[0][0], UNBOUNDED))
        for at, _envs in state.braces:
            _open_brace_error(state, at, "a '{' that is never closed")
        state.braces.clear()
