"""The scanner's reading of a document's outline: sectioning commands, ``\\begin`` and ``\\end``
of environments (verbatim-like ones are skipped whole; thm-restate's ``restatable`` names the
theorem-like environment it is), and the declarations of theorem-like environments
(``\\newtheorem``, ``\\declaretheorem`` and kin, ``\\theoremstyle``).

Reader functions over the scan's state (colosseum.latex.state), called by the scanner's dispatch
(colosseum.latex.scanner).
"""

from __future__ import annotations

import re
from sys import intern

from colosseum.latex.arguments import MAX_LONG_ARGUMENT, read_group, read_optional, read_star
from colosseum.latex.braces import environment_in_group
from colosseum.latex.events import Event
from colosseum.latex.skipped import skip_verbatim
from colosseum.latex.state import ScanState
from colosseum.core.lazy_regex import lazy_regex

VERBATIM_ENVIRONMENTS = frozenset((
    "verbatim", "verbatim*", "Verbatim", "Verbatim*", "BVerbatim", "LVerbatim", "lstlisting",
    "minted", "comment", "filecontents", "filecontents*", "lean", "lstlisting*", "spverbatim",
))

# thm-restate: \begin{restatable}[title]{theorem}{macro} is a claim of the theorem-like environment named
RESTATABLE = frozenset(("restatable", "restatable*"))
_DECLARATION_TITLE = lazy_regex(r"(?:^|,)\s*(?:name|title)\s*=\s*\{?([^,}]*)")


def read_section(state: ScanState, name: str, start: int, after: int) -> int:
    star, pos = read_star(state.text, after)
    opt = read_optional(state, pos)
    if opt is not None:
        pos = opt[2]
    group = read_group(state, pos, MAX_LONG_ARGUMENT, command=name)
    if group is None:
        state.events.append(Event("section", start, pos, name, "", pos, pos, star))
        return pos
    s, e, nxt = group
    state.events.append(Event("section", start, nxt, name, state.text[s:e], s, e, star))
    if state.braces is not None:
        state.braces.append([s - 1, 0])  # its '}' is met in the text
    return s  # keep scanning inside the title: \section{Intro\label{sec:intro}}


def read_begin(state: ScanState, name: str, start: int, after: int) -> int:
    group = read_group(state, after, command="begin")
    if group is None:
        return after
    text = state.text
    s, e, nxt = group
    env = intern(text[s:e].strip())  # one string per environment name, not per \begin
    if env in VERBATIM_ENVIRONMENTS:
        return skip_verbatim(state, env, start, nxt)
    opt = None
    p = _optional_argument_start(text, nxt)
    if state.braces:
        environment_in_group(state, env, True, nxt)
    if p < len(text) and text[p] == "[":
        opt = read_optional(state, p)
    restated = _restatable(state, env, opt[2] if opt is not None else nxt) if env in RESTATABLE else None
    end = restated[2] if restated is not None else nxt
    extra = restated[:2] if restated is not None else None
    if opt is not None:
        state.events.append(Event("begin", start, end, env, text[opt[0]:opt[1]], opt[0], opt[1], extra))
    else:
        state.events.append(Event("begin", start, end, env, extra=extra))
    return nxt


def _optional_argument_start(text: str, pos: int) -> int:
    """Where LaTeX looks for an environment's ``[...]`` after ``\\begin{env}``: past spaces, comments
    and one line end (``\\begin{proof}`` then ``[Proof of \\Cref{thm:x}]`` on the next line), not
    past a blank line (a paragraph: what follows is content)."""
    line_ended = False
    n = len(text)
    while pos < n:
        char = text[pos]
        if char in " \t":
            pos += 1
        elif char == "%":  # a comment, and the line end it takes with it
            end = text.find("\n", pos)
            pos = n if end == -1 else end + 1
            line_ended = True  # at a line's start: a line end here is a blank line
        elif char == "\n" and not line_ended:
            line_ended = True
            pos += 1
        else:
            break
    return pos


def _restatable(state: ScanState, env: str, pos: int) -> tuple[str, str, int] | None:
    """thm-restate's ``\\begin{restatable}[title]{theorem}{macro}``: (the theorem-like
    environment it is, the macro that restates it, offset after both). The restatement
    ``\\macro*`` defines no label again (thm-restate drops its \\label), so it is no claim."""
    kind = read_group(state, pos, command=env)
    if kind is None:
        return None
    macro = read_group(state, kind[2], command=env)
    if macro is None:
        return None
    text = state.text
    return text[kind[0]:kind[1]].strip(), text[macro[0]:macro[1]].strip(), macro[2]


def read_end(state: ScanState, name: str, start: int, after: int) -> int:
    group = read_group(state, after, command="end")
    if group is None:
        return after
    s, e, nxt = group
    env = intern(state.text[s:e].strip())
    if state.braces:
        environment_in_group(state, env, False, nxt)
    state.events.append(Event("end", start, nxt, env))
    return nxt


def read_theorem_declaration(state: ScanState, name: str, start: int, after: int) -> int:
    """``\\newtheorem{env}[counter]{Title}[within]``, ``\\declaretheorem[options]{env}[options]``
    and kin: a ``thmdecl`` event (the environment, (its title, starred)); ``\\theoremstyle{s}``:
    a ``theoremstyle`` event."""
    text = state.text
    if name == "theoremstyle":
        group = read_group(state, after, command=name)
        if group is None:
            return after
        state.events.append(Event("theoremstyle", start, group[2], name, text[group[0]:group[1]].strip()))
        return group[2]
    star, pos = read_star(text, after)
    options = ""
    if name in ("declaretheorem", "newmdtheoremenv"):
        opt = read_optional(state, pos)
        if opt is not None:
            options = text[opt[0]:opt[1]]
            pos = opt[2]
    group = read_group(state, pos, command=name)
    if group is None:
        return pos
    env = text[group[0]:group[1]].strip()
    pos = group[2]
    if name == "declaretheorem":
        opt = read_optional(state, pos)
        if opt is not None:
            options += "," + text[opt[0]:opt[1]]
            pos = opt[2]
        m = _DECLARATION_TITLE.search(options)
        title = m.group(1).strip() if m else env.capitalize()
    else:
        title, pos = _declared_title(state, name, pos)
    if env:
        state.events.append(Event("thmdecl", start, pos, name, env, group[0], group[1], (title, star)))
    return pos


def _declared_title(state: ScanState, name: str, pos: int) -> tuple[str, int]:
    """The title of ``\\newtheorem{env}[counter]{Title}[within]`` read from after ``{env}``:
    (the title, the offset after the declaration)."""
    title = ""
    opt = read_optional(state, pos)
    if opt is not None:
        pos = opt[2]
    title_group = read_group(state, pos, command=name)
    if title_group is not None:
        title = state.text[title_group[0]:title_group[1]].strip()
        pos = title_group[2]
        opt = read_optional(state, pos)
        if opt is not None and name == "newtheorem":
            pos = opt[2]
    return title, pos
