"""Project macro definitions met while scanning, and the expansion of relevant wrappers.

A wrapper call is expanded with its arguments and the expansion is scanned again; whatever it
yields (a reference, a label, a section) is mapped back to the exact source offsets of the
argument it came from, or to the whole call when it comes from the macro's body.

Reader functions over the scan's state (colosseum.latex.state); the scanner
(colosseum.latex.scanner) scans an expansion with a state of its own and hands what it found to
``keep_expansion_events``."""

from __future__ import annotations

import re
from bisect import bisect_right

from colosseum.latex.arguments import (MAX_LONG_ARGUMENT, read_group, read_optional, read_star, read_token_or_group,
                                       skip_space)
from colosseum.latex.events import Event
from colosseum.latex.macros import MacroDef, parse_xparse_spec
from colosseum.latex.state import ScanState, use_table
from colosseum.core.lazy_regex import lazy_regex

MAX_EXPANSION_DEPTH = 8
MAX_EXPANSIONS = 20_000  # per file: bounds pathological recursive wrappers
_LET = lazy_regex(r"\s*\\([A-Za-z@]+)\s*=?\s*\\([A-Za-z@]+)")
_DEF = lazy_regex(r"\s*\\([A-Za-z@]+)((?:#[1-9])*)\s*(?=\{)")
_ENVIRONMENT_DEFINITIONS = frozenset(("newenvironment", "renewenvironment", "NewDocumentEnvironment",
                                      "RenewDocumentEnvironment"))


def read_definition(state: ScanState, name: str, start: int, after: int) -> int:
    """\\newcommand and friends, \\def, \\let, xparse's \\NewDocumentCommand: a relevant
    definition changes the state's macro table (colosseum.latex.macros decides what is relevant).
    Environment definitions are read past and define nothing."""
    if name == "let":
        return _read_let(state, start, after)
    if name in ("def", "gdef", "edef", "xdef"):
        return _read_def(state, name, start, after)
    _star, pos = read_star(state.text, after)
    target = read_token_or_group(state, pos, name)
    if target is None:
        return pos
    macro = state.text[target[0]:target[1]].strip()
    pos = target[2]
    if name == "newtheoremstyle":
        return pos
    if name in _ENVIRONMENT_DEFINITIONS:
        return _skip_environment_definition(state, name, pos)
    macro = macro.lstrip("\\").strip()
    if name.endswith("DocumentCommand"):
        return _read_document_command(state, name, macro, start, pos)
    return _read_newcommand(state, name, macro, start, pos)


def _read_let(state: ScanState, start: int, after: int) -> int:
    m = _LET.match(state.text, after)
    if not m:
        return after
    _define(state, MacroDef(m.group(1), alias_of=m.group(2)), start, m.end())
    return m.end()


def _read_def(state: ScanState, name: str, start: int, after: int) -> int:
    """TeX's \\def\\name#1#2{body}."""
    text = state.text
    m = _DEF.match(text, after)
    if not m:
        return after
    body = read_group(state, m.end(), MAX_LONG_ARGUMENT, command=name)
    if body is None:
        return m.end()
    nargs = len(m.group(2)) // 2
    _define(state, MacroDef(m.group(1), ("m",) * nargs, None, text[body[0]:body[1]]), start, body[2])
    return body[2]


def _skip_environment_definition(state: ScanState, name: str, pos: int) -> int:
    """\\newenvironment{name}[n][default]{begin}{end}: skip the two bodies, define nothing."""
    if name.endswith("DocumentEnvironment"):
        spec = read_group(state, pos, command=name)
        pos = spec[2] if spec else pos
    else:
        for _ in range(2):
            opt = read_optional(state, pos)
            if opt is None:
                break
            pos = opt[2]
    for _ in range(2):
        group = read_group(state, pos, MAX_LONG_ARGUMENT, command=name)
        if group is None:
            break
        pos = group[2]
    return pos


def _read_document_command(state: ScanState, name: str, macro: str, start: int, pos: int) -> int:
    """xparse's \\NewDocumentCommand{\\name}{spec}{body}."""
    text = state.text
    spec = read_group(state, pos, command=name)
    if spec is None:
        return pos
    kinds, default = parse_xparse_spec(text[spec[0]:spec[1]])
    body = read_group(state, spec[2], MAX_LONG_ARGUMENT, command=name)
    if body is None:
        return spec[2]
    _define(state, MacroDef(macro, tuple(kinds), default, text[body[0]:body[1]]), start, body[2])
    return body[2]


def _read_newcommand(state: ScanState, name: str, macro: str, start: int, pos: int) -> int:
    """\\newcommand{\\name}[n][default]{body} (and \\renewcommand, \\providecommand,
    \\DeclareRobustCommand)."""
    text = state.text
    nargs = 0
    default = None
    opt = read_optional(state, pos)
    if opt is not None:
        try:
            nargs = int(text[opt[0]:opt[1]].strip())
        except ValueError:
            nargs = 0
        pos = opt[2]
        opt2 = read_optional(state, pos)
        if opt2 is not None:
            default = text[opt2[0]:opt2[1]]
            pos = opt2[2]
    body = read_group(state, pos, MAX_LONG_ARGUMENT, command=name)
    if body is None:
        return pos
    if default is not None and nargs >= 1:
        kinds = ("O",) + ("m",) * (nargs - 1)
    else:
        kinds = ("m",) * max(0, min(nargs, 9))
    if name == "providecommand" and macro in state.table.defs:
        return body[2]
    _define(state, MacroDef(macro, kinds, default, text[body[0]:body[1]]), start, body[2])
    return body[2]


def _define(state: ScanState, definition: MacroDef, start: int, end: int) -> None:
    state.events.append(Event("def", start, end, definition.name, extra=definition))
    new_table = state.table.with_def(definition)
    if new_table is not state.table:
        use_table(state, new_table)
        if state.depth == 0:
            state.table_changes.append((end, new_table))


def read_wrapper_arguments(state: ScanState, definition: MacroDef, after: int) -> tuple[list[tuple[str, int]], int]:
    """The arguments of a call of ``definition`` whose name ends at ``after``: (their texts with
    the offset each starts at, -1 for a default or a star; the offset after the call)."""
    text = state.text
    pos = after
    args: list[tuple[str, int]] = []
    for kind in definition.args:
        if kind == "s":
            star, pos = read_star(text, skip_space(text, pos))
            args.append(("*" if star else "", -1))
        elif kind in ("o", "O"):
            opt = read_optional(state, pos)
            if opt is None:
                args.append((definition.default or "" if kind == "O" else "", -1))
            else:
                args.append((text[opt[0]:opt[1]], opt[0]))
                pos = opt[2]
        else:
            group = read_token_or_group(state, pos, definition.name)
            if group is None:
                break
            args.append((text[group[0]:group[1]], group[0]))
            pos = group[2]
    return args, pos


def keep_expansion_events(state: ScanState, inner: ScanState, segments: list[tuple[int, int, int]],
                          name: str, start: int, call_end: int) -> None:
    """Add what the scan ``inner`` of a wrapper's expansion found to ``state``, mapped back to
    the source: a value that comes from an argument gets the argument's offsets (``segments``
    of colosseum.latex.macros.substitute), one from the body the whole call's; then keep the
    table changes the expansion made (a wrapper may define relevant macros itself: \\defthm)."""
    starts = [seg[0] for seg in segments]

    def to_source(offset: int, is_end: bool) -> int:
        i = bisect_right(starts, offset - (1 if is_end else 0)) - 1
        if i >= 0:
            seg_start, seg_end, src = segments[i]
            if src >= 0 and seg_start <= offset <= seg_end:
                return src + (offset - seg_start)
        return -1

    events = state.events
    for ev in inner.events:
        if ev.kind in ("def", "magic-root"):
            continue
        if ev.kind in ("label", "ref") and "#" in ev.value:
            continue  # a parameter of a definition nested in the body, not a label
        vs = to_source(ev.vstart, False) if ev.vstart >= 0 else -1
        ve = to_source(ev.vend, True) if ev.vend >= 0 else -1
        if vs < 0 or ve < 0 or ve < vs:
            vs, ve = start, call_end
        event_name = name if ev.kind in ("label", "ref") else ev.name
        events.append(Event(ev.kind, start, call_end, event_name, ev.value, vs, ve, ev.extra))
    if inner.table is not state.table:
        use_table(state, inner.table)
        if state.depth == 0:
            state.table_changes.append((call_end, inner.table))


_CONDITIONAL = lazy_regex(r"\\If(NoValue|Value|Boolean)(TF|T|F)\s*\{\s*#([1-9])\s*\}")


def choose_branches(body: str, kinds: tuple[str, ...], args: list[tuple[str, int]]) -> str:
    """``body`` with xparse's tests of its arguments decided as LaTeX decides them for this call:
    ``\\IfNoValueTF{#1}{\\subfile{#2}}{\\subfile{#1/#2}}`` keeps one branch (not both: the other
    names a file that is not read). An optional argument has a value when it was given; a star
    argument is true when the star was there. Tests it cannot decide are left as they are."""
    if "\\If" not in body:
        return body
    for _ in range(MAX_EXPANSION_DEPTH * 4):  # nested tests: decided from the outside in
        m = _CONDITIONAL.search(body)
        if m is None:
            return body
        index = int(m.group(3)) - 1
        if index >= len(args) or index >= len(kinds):
            return body
        test, branches = m.group(1), m.group(2)
        if test == "Boolean":
            holds = args[index][0] == "*"
        else:
            given = kinds[index] in "mO" or args[index][1] >= 0 or kinds[index] == "s" and args[index][0] == "*"
            holds = given if test == "Value" else not given
        groups, pos = [], m.end()
        for _branch in branches:
            group = _braced(body, pos)
            if group is None:
                return body
            groups.append(body[group[0] + 1:group[1] - 1])
            pos = group[1]
        true_part = groups[0] if "T" in branches else ""
        false_part = groups[-1] if "F" in branches else ""
        body = body[:m.start()] + (true_part if holds else false_part) + body[pos:]
    return body


def _braced(text: str, pos: int) -> tuple[int, int] | None:
    """The group ``{...}`` starting at ``pos`` (after spaces): its start and end, braces included."""
    while pos < len(text) and text[pos] in " \t\n":
        pos += 1
    if pos >= len(text) or text[pos] != "{":
        return None
    depth = 0
    for i in range(pos, len(text)):
        char = text[i]
        if char == "\\":
            continue
        if char == "{" and (i == 0 or text[i - 1] != "\\"):
            depth += 1
        elif char == "}" and (i == 0 or text[i - 1] != "\\"):
            depth -= 1
            if depth == 0:
                return pos, i + 1
    return None

