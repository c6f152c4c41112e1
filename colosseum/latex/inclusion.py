"""The scanner's reading of what brings other files in: ``\\input``, ``\\include``, ``\\import``
and their kin (``include`` events, which the project walk follows), and ``\\usepackage`` /
``\\documentclass`` (``package`` events: a project-local package is read for its definitions).

Reader functions over the scan's state (colosseum.latex.state), called by the scanner's
dispatch (colosseum.latex.scanner).
"""

from __future__ import annotations

import re

from colosseum.latex.arguments import label_items, read_group, read_optional, read_star
from colosseum.latex.events import Event
from colosseum.latex.state import ScanState
from colosseum.core.lazy_regex import lazy_regex

_BARE_INPUT = lazy_regex(r"[ \t]+([^\s{}%\\]+)")  # TeX's primitive form: \input file
_TWO_ARGUMENT_INCLUDES = frozenset(("import", "subimport", "inputfrom", "includefrom", "subinputfrom",
                                    "subincludefrom"))


def read_include(state: ScanState, name: str, start: int, after: int) -> int:
    """\\input{file}, \\include{file}, \\import{dir}{file} and their kin: an ``include`` event
    (the directory of a two-argument form in ``extra``)."""
    text = state.text
    if name in _TWO_ARGUMENT_INCLUDES:
        _, pos = read_star(text, after)
        first = read_group(state, pos, command=name)
        if first is None:
            return pos
        second = read_group(state, first[2], command=name)
        if second is None:
            return first[2]
        state.events.append(Event("include", start, second[2], name, text[second[0]:second[1]].strip(),
                                  second[0], second[1], text[first[0]:first[1]].strip()))
        return second[2]
    group = read_group(state, after, command=name)
    if group is None:
        if name != "input":
            return after
        m = _BARE_INPUT.match(text, after)
        if not m:
            return after
        state.events.append(Event("include", start, m.end(), name, m.group(1), m.start(1), m.end(1)))
        return m.end()
    s, e, nxt = group
    state.events.append(Event("include", start, nxt, name, text[s:e].strip(), s, e))
    return nxt


def read_configured_include(state: ScanState, name: str, start: int, after: int) -> int:
    """An include command named in ``[index] include_commands``: ``\\name[...]{file}`` reads
    ``file`` as ``\\subfile`` does (a subfiles child keeps its own document; a plain file is read as
    by ``\\input``), its optional arguments skipped."""
    _, pos = read_star(state.text, after)
    while (opt := read_optional(state, pos)) is not None:
        pos = opt[2]
    group = read_group(state, pos, command=name)
    if group is None:
        return pos
    s, e, nxt = group
    state.events.append(Event("include", start, nxt, "subfile", state.text[s:e].strip(), s, e))
    return nxt


def read_external_document(state: ScanState, name: str, start: int, after: int) -> int:
    """xr's ``\\externaldocument[prefix][url]{doc}`` (xr-hyper's url, zref-xr's ``\\zexternaldocument*``):
    an ``external`` event (the document in ``value``, the prefix in ``extra``)."""
    _, pos = read_star(state.text, after)
    prefix = ""
    opt = read_optional(state, pos)
    if opt is not None:
        prefix, pos = state.text[opt[0]:opt[1]].strip(), opt[2]
        url = read_optional(state, pos)
        pos = url[2] if url is not None else pos
    group = read_group(state, pos, command=name)
    if group is None:
        return pos
    s, e, nxt = group
    state.events.append(Event("external", start, nxt, name, state.text[s:e].strip(), s, e, prefix))
    return nxt


def read_package(state: ScanState, name: str, start: int, after: int) -> int:
    """\\usepackage[options]{a,b}: one ``package`` event per name (the project walk reads a
    project-local one for its definitions)."""
    opt = read_optional(state, after)
    pos = opt[2] if opt is not None else after
    group = read_group(state, pos, command=name)
    if group is None:
        return pos
    s, e, nxt = group
    for value, vs, ve in label_items(state.text, s, e, split=True):
        state.events.append(Event("package", start, nxt, name, value, vs, ve))
    return nxt
