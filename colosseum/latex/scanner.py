"""A fast, tolerant scanner for the LaTeX commands that carry a proof's structure.

A full LaTeX parse per keystroke is too slow for a 10,000-line file (pylatexenc needs seconds), and
almost every token of a paper is irrelevant to its dependency structure. So the scanner asks one
compiled regular expression for the next *interesting* command or comment, in C, and only then
reads that command's arguments in Python. Comments, ``\\iffalse`` blocks, ``\\verb`` and
verbatim-like environments never yield labels or references. Project wrappers (see
``colosseum.latex.macros``) are expanded with their arguments, and what they produce is mapped back to
the exact source offsets of the call. pylatexenc stays the reference for what LaTeX means: the
differential tests compare against it.

The scan's state is one ``ScanState`` (colosseum.latex.state); the main loop here hands each
command to a reader function by its name (``COMMAND_READERS``), after the project's own macros.

The scanner never raises on bad input: it reports ``error`` events and goes on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from sys import intern

from colosseum.latex.arguments import MAX_LONG_ARGUMENT  # noqa: F401 (re-exported)
from colosseum.latex.blueprint import read_discussion, read_lean, read_lean_node, read_marker
from colosseum.latex.braces import BRACE_OR_BALANCED_TEXT, UNBOUNDED, braces_between, close_open_braces  # noqa: F401 (UNBOUNDED: re-exported)
from colosseum.latex.definitions import (MAX_EXPANSION_DEPTH, MAX_EXPANSIONS, choose_branches, keep_expansion_events,
                                         read_definition, read_wrapper_arguments)
from colosseum.latex.events import Event, ScanResult
from colosseum.latex.inclusion import read_configured_include, read_external_document, read_include, read_package
from colosseum.latex.macros import (
    BLUEPRINT_LIST_COMMANDS,
    BLUEPRINT_MARKERS,
    DEFINITION_COMMANDS,
    EXTERNAL_DOCUMENT_COMMANDS,
    INCLUDE_COMMANDS,
    LABEL_COMMANDS,
    LIST_REF_COMMANDS,
    RANGE_REF_COMMANDS,
    SECTION_LEVELS,
    SINGLE_REF_COMMANDS,
    THEOREM_DECL_COMMANDS,
    MacroDef,
    MacroTable,
    substitute,
)
from colosseum.latex.outline import (RESTATABLE, VERBATIM_ENVIRONMENTS, read_begin, read_end,  # noqa: F401 (re-exported)
                                     read_section, read_theorem_declaration)
from colosseum.latex.references import (read_hyperref, read_label, read_list_reference, read_reference_range,
                                        read_single_reference)
from colosseum.latex.skipped import endinput_line_end, read_iffalse, read_verb
from colosseum.latex.state import BUILTIN_NAMES, PACKAGE_COMMANDS, ScanState, use_table  # noqa: F401 (re-exported)
from colosseum.core.lazy_regex import lazy_regex

Reader = Callable[[ScanState, str, int, int], int]  # (state, name, start, end of the name) -> where to go on

_MAGIC_ROOT = lazy_regex(r"%\s*!\s*TEX\s+root\s*=\s*(\S[^\n]*?)\s*$", re.IGNORECASE | re.MULTILINE)
_MAGIC_OBLIGATION = lazy_regex(r"%+\s*colosseum\s*:\s*obligation\b", re.IGNORECASE)


def new_scanner(text: str, table: MacroTable) -> ScanState:
    """A fresh scan of ``text`` with ``table``, to be ``run`` over a region of it (the
    incremental rescan, colosseum.latex.incremental)."""
    return ScanState(text, table, [], depth=0, budget=[MAX_EXPANSIONS])


def scan(text: str, table: MacroTable, updates: list[tuple[int, MacroTable]] | None = None) -> ScanResult:
    """Scan one file. ``updates`` switch the macro table at given offsets (definitions made by
    files that this one ``\\input``s take effect after the ``\\input``)."""
    state = ScanState(text, table, list(updates or ()), depth=0, budget=[MAX_EXPANSIONS])
    run(state)
    close_open_braces(state)
    return ScanResult(state.events, state.table, skips=state.skips, table_changes=state.table_changes,
                      endinput=state.endinput)


def run(state: ScanState, pos: int = 0, stop: int | None = None) -> int:
    """Scan the tokens that start in [pos, stop); return where scanning ended (past stop
    when the last token's arguments or skipped region reach beyond it)."""
    text = state.text
    n = len(text) if stop is None else min(stop, len(text))
    updates = state.updates
    search = state.regex.search
    brace_search = BRACE_OR_BALANCED_TEXT.search if state.braces is not None else None
    while pos < n:
        while updates and updates[0][0] <= pos:
            use_table(state, updates.pop(0)[1])
            search = state.regex.search
        m = search(text, pos, n)
        gap_end = n if m is None else m.start()
        switch = updates and gap_end >= updates[0][0]
        if switch:
            gap_end = updates[0][0]
        if brace_search is not None:  # the braces of the plain text up to the next command
            brace = brace_search(text, pos, gap_end)
            if brace is not None and (brace.end() != gap_end or brace.end() - brace.start() == 1):
                braces_between(state, brace, gap_end)  # (else balanced text up to the command)
        if switch:
            pos = gap_end
            continue
        if m is None:
            pos = n
            break
        name = m.group(1)
        if name is None:
            if m.start(2) != -1:  # a comment
                pos = _read_comment(state, m.start(2))
            else:  # an escaped backslash or percent sign
                pos = m.end()
            continue
        # a handful of command names recur thousands of times: one string each, not one per use
        name = intern(name)
        start = m.start(1) - 1
        after = m.end(1)
        regex_before = state.regex
        pos = read_command(state, name, start, after)
        if state.regex is not regex_before:
            search = state.regex.search
        if pos <= start:  # never loop in place
            pos = after
        elif text.find("\n", start, pos) != -1:
            # arguments read across lines: an incremental rescan must not start inside them
            state.skips.append((start, pos))
    return pos


def _read_comment(state: ScanState, pos: int) -> int:
    """A comment: a "% colosseum: obligation" marker or a "% !TEX root = file" line, else
    nothing. Returns the start of the next line."""
    text = state.text
    end = text.find("\n", pos)
    if end == -1:
        end = len(text)
    if "colosseum" in text[pos:end].lower() and _MAGIC_OBLIGATION.match(text, pos, end):
        state.events.append(Event("marker", pos, end, "obligation-comment"))
    elif "TEX" in text[pos:end].upper():
        m = _MAGIC_ROOT.match(text, pos, end)
        if m:
            state.events.append(Event("magic-root", pos, end, value=m.group(1), vstart=m.start(1), vend=m.end(1)))
    return end + 1


def read_command(state: ScanState, name: str, start: int, after: int) -> int:
    """Read the command ``\\name`` at ``start`` (its name ends at ``after``); return where the
    scan goes on. The project's own macros and configured commands come before the built-in
    reading of a name."""
    table = state.table
    if name in table.defs:
        return _expand(state, table.defs[name], start, after)
    if name in table.label_commands:
        return read_label(state, name, start, after)
    if name in table.reference_commands:
        return read_list_reference(state, name, start, after)
    if name in table.include_commands:
        return read_configured_include(state, name, start, after)
    reader = COMMAND_READERS.get(name)
    if reader is None:
        return after
    return reader(state, name, start, after)


def _expand(state: ScanState, definition: MacroDef, start: int, after: int) -> int:
    """A call of a project wrapper: its expansion is scanned with a state of its own, one level
    deeper, and what that finds is mapped back to the call (colosseum.latex.definitions)."""
    if definition.alias_of is not None:  # \let\name\other reads as \other
        return read_command(state, definition.alias_of, start, after) if definition.alias_of != definition.name else after
    if state.depth >= MAX_EXPANSION_DEPTH or state.budget[0] <= 0:
        return after
    state.budget[0] -= 1
    args, call_end = read_wrapper_arguments(state, definition, after)
    expanded, segments = substitute(choose_branches(definition.body, definition.args, args), args)
    inner = ScanState(expanded, state.table, [], state.depth + 1, state.budget)
    run(inner)
    keep_expansion_events(state, inner, segments, definition.name, start, call_end)
    return call_end


def _read_endinput(state: ScanState, name: str, start: int, after: int) -> int:
    """``\\endinput``: the rest of its line is read, then nothing more of the file (when it counts:
    colosseum.latex.skipped.endinput_line_end)."""
    line_end = endinput_line_end(state, start, after)
    if line_end is None:
        return after
    return max(run(state, after, line_end), len(state.text))


def _readers() -> dict[str, Reader]:
    """The reader of each built-in command name, by the kind of command it is."""
    by_kind: tuple[tuple[tuple[str, ...], Reader], ...] = (
        (("begin",), read_begin),
        (("end",), read_end),
        (LABEL_COMMANDS, read_label),
        (LIST_REF_COMMANDS + BLUEPRINT_LIST_COMMANDS, read_list_reference),
        (SINGLE_REF_COMMANDS, read_single_reference),
        (SECTION_LEVELS, read_section),
        (BLUEPRINT_MARKERS, read_marker),
        (DEFINITION_COMMANDS, read_definition),
        (INCLUDE_COMMANDS, read_include),
        (THEOREM_DECL_COMMANDS, read_theorem_declaration),
        (RANGE_REF_COMMANDS, read_reference_range),
        (("verb", "lstinline", "Verb", "mintinline"), read_verb),
        (("iffalse",), read_iffalse),
        (("endinput",), _read_endinput),
        (("lean",), read_lean),
        (("discussion",), read_discussion),
        (("hyperref",), read_hyperref),
        (("inputleannode",), read_lean_node),
        (EXTERNAL_DOCUMENT_COMMANDS, read_external_document),
        (tuple(PACKAGE_COMMANDS), read_package),
    )
    readers: dict[str, Reader] = {}
    for names, reader in by_kind:
        for name in names:
            readers.setdefault(name, reader)  # a name of two kinds is read as the first
    return readers


COMMAND_READERS: dict[str, Reader] = _readers()
