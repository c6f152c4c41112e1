"""The scanner's reading of labels and references: ``\\label``, ``\\ref`` and its kin (one label
each), cleveref's and the blueprint's lists (``\\cref{a,b}``, ``\\uses{a,b}``), ranges
(``\\crefrange{a}{b}``) and ``\\hyperref[label]{text}``.

Reader functions over the scan's state (colosseum.latex.state), called by the scanner's dispatch
(colosseum.latex.scanner): each takes the command's name, where it starts and where its name
ends, and returns where the scan goes on.
"""

from __future__ import annotations

from colosseum.latex.arguments import label_items, read_group, read_optional, read_star
from colosseum.latex.events import Event
from colosseum.latex.state import ScanState


def read_label(state: ScanState, name: str, start: int, after: int) -> int:
    label_type = read_optional(state, after)  # cleveref's \label[lemma]{name}: the type is no label
    if label_type is not None:
        after = label_type[2]
    group = _label_argument(state, after, name)
    if group is None:
        return after
    s, e, nxt = group
    events = state.events
    for value, vs, ve in label_items(state.text, s, e, split=False):
        events.append(Event("label", start, nxt, name, value, vs, ve))
    return nxt


def _label_argument(state: ScanState, after: int, name: str) -> tuple[int, int, int] | None:
    """A braced argument, or TeX's single-token argument (\\label2 labels "2")."""
    group = read_group(state, after, command=name)
    if group is not None:
        return group
    text = state.text
    if after < len(text) and (text[after].isalnum() and text[after].isascii()):
        return after, after + 1, after + 1
    return None


def read_list_reference(state: ScanState, name: str, start: int, after: int) -> int:
    """``\\cref{a,b}``, ``\\uses{a,b}``: a reference to each label of the list."""
    return _read_reference(state, name, start, after, split=True)


def read_single_reference(state: ScanState, name: str, start: int, after: int) -> int:
    """``\\ref{a}``: one label, commas and all (LaTeX reads a comma as part of the label)."""
    return _read_reference(state, name, start, after, split=False)


def _read_reference(state: ScanState, name: str, start: int, after: int, split: bool) -> int:
    _, pos = read_star(state.text, after)
    group = _label_argument(state, pos, name)
    if group is None:
        return pos
    s, e, nxt = group
    _emit_references(state, name, start, nxt, s, e, split)
    return nxt


def _emit_references(state: ScanState, name: str, start: int, end: int, s: int, e: int, split: bool) -> None:
    events = state.events
    for value, vs, ve in label_items(state.text, s, e, split):
        events.append(Event("ref", start, end, name, value, vs, ve))


def read_reference_range(state: ScanState, name: str, start: int, after: int) -> int:
    """``\\crefrange{a}{b}``: a reference to each end of the range."""
    _, pos = read_star(state.text, after)
    for _ in range(2):
        group = read_group(state, pos, command=name)
        if group is None:
            return pos
        s, e, pos = group
        _emit_references(state, name, start, pos, s, e, split=False)
    return pos


def read_hyperref(state: ScanState, name: str, start: int, after: int) -> int:
    """``\\hyperref[label]{text}``: the label is the optional argument; the text is read on."""
    opt = read_optional(state, after)
    if opt is None:
        return after
    s, e, nxt = opt
    _emit_references(state, name, start, nxt, s, e, split=False)
    return nxt
