"""The scanner's reading of leanblueprint's own commands: ``\\lean{decls}``, ``\\discussion{issue}``,
``\\inputleannode{name}`` and the markers ``\\leanok``, ``\\notready``, ``\\mathlibok`` and
``\\obligation`` (``\\uses`` and ``\\proves`` are references: colosseum.latex.references).

Reader functions over the scan's state (colosseum.latex.state), called by the scanner's dispatch
(colosseum.latex.scanner).
"""

from __future__ import annotations

from colosseum.latex.arguments import label_items, read_group
from colosseum.latex.events import Event
from colosseum.latex.state import ScanState


def read_marker(state: ScanState, name: str, start: int, after: int) -> int:
    state.events.append(Event("marker", start, after, name))
    return after


def read_lean(state: ScanState, name: str, start: int, after: int) -> int:
    """``\\lean{A.b, C}``: the Lean declarations, each with its range, in ``extra``."""
    group = read_group(state, after, command=name)
    if group is None:
        return after
    s, e, nxt = group
    text = state.text
    decls = label_items(text, s, e, split=True)
    state.events.append(Event("lean", start, nxt, name, text[s:e], s, e, decls))
    return nxt


def read_discussion(state: ScanState, name: str, start: int, after: int) -> int:
    group = read_group(state, after, command=name)
    if group is None:
        return after
    s, e, nxt = group
    state.events.append(Event("discussion", start, nxt, name, state.text[s:e].strip(), s, e))
    return nxt


def read_lean_node(state: ScanState, name: str, start: int, after: int) -> int:
    group = read_group(state, after, command=name)
    if group is None:
        return after
    s, e, nxt = group
    value = state.text[s:e].strip()
    if value:
        state.events.append(Event("leannode", start, nxt, name, value, s, e))
    return nxt
