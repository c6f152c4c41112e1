"""The state of one scan, which every reader of colosseum.latex works on.

The scanner (colosseum.latex.scanner) finds the next interesting command with one compiled
regular expression and hands it to a reader function: the argument reader
(colosseum.latex.arguments), the outline (colosseum.latex.outline), references, definitions,
inclusions, skipped text and the brace check. Each of them takes a ``ScanState`` and the offsets
of the command; none of them keeps state of its own.
"""

from __future__ import annotations

import re
from functools import lru_cache

from colosseum.latex.events import Event
from colosseum.latex.macros import (
    BLUEPRINT_LIST_COMMANDS,
    BLUEPRINT_MARKERS,
    DEFINITION_COMMANDS,
    INCLUDE_COMMANDS,
    LABEL_COMMANDS,
    LIST_REF_COMMANDS,
    OTHER_COMMANDS,
    RANGE_REF_COMMANDS,
    SECTION_LEVELS,
    SINGLE_REF_COMMANDS,
    THEOREM_DECL_COMMANDS,
    MacroTable,
)

# commands that load a package or class: a project-local one is read for its definitions
PACKAGE_COMMANDS = {"usepackage": ".sty", "RequirePackage": ".sty", "documentclass": ".cls", "LoadClass": ".cls"}

BUILTIN_NAMES = frozenset(
    SECTION_LEVELS + LABEL_COMMANDS + SINGLE_REF_COMMANDS + LIST_REF_COMMANDS + RANGE_REF_COMMANDS
    + BLUEPRINT_LIST_COMMANDS + BLUEPRINT_MARKERS + INCLUDE_COMMANDS + THEOREM_DECL_COMMANDS
    + DEFINITION_COMMANDS + OTHER_COMMANDS + tuple(PACKAGE_COMMANDS)
)


def _trie_pattern(words: list[str]) -> str:
    """A regular expression matching exactly ``words``, factored by common prefixes (the regex
    engine then decides on the first letters instead of trying a hundred alternatives)."""
    groups: dict[str, list[str]] = {}
    optional = False
    for word in sorted(set(words)):
        if word:
            groups.setdefault(word[0], []).append(word[1:])
        else:
            optional = True
    parts = [re.escape(first) + _trie_pattern(rest) for first, rest in groups.items()]
    if not parts:
        return ""
    body = "(?:" + "|".join(parts) + ")"
    return body + "?" if optional else body


@lru_cache(maxsize=64)
def _token_regex(names: frozenset[str]) -> re.Pattern[str]:
    # An interesting command, an escaped backslash or percent (consumed so that what follows is
    # read in step: "\\\\label" is a line break then a label, "\\%" is no comment), or a comment.
    # Starting every alternative with a backslash or a percent sign lets the regex engine skip
    # to those characters at C speed.
    return re.compile(r"\\(?:(" + _trie_pattern(list(names)) + r")(?![A-Za-z@])|[\\%])|(%)")


class ScanState:
    """Everything one scan of one text knows: the text, the macro table in effect (and the
    regular expression that finds its commands), what it found so far, and how deep it is in the
    expansion of wrappers. A wrapper's expansion is scanned with a state of its own (``depth``
    one more) that shares the file's expansion ``budget``."""

    __slots__ = ("text", "table", "regex", "updates", "depth", "budget", "events", "skips", "table_changes",
                 "endinput", "braces", "brace_errors")

    def __init__(self, text: str, table: MacroTable, updates: list[tuple[int, MacroTable]], depth: int,
                 budget: list[int]):
        self.text = text
        self.table = table
        self.regex = _token_regex(BUILTIN_NAMES | table.names())
        # (offset, table): the table switches there (definitions of files \\input before it)
        self.updates = updates
        self.depth = depth
        self.budget = budget  # [expansions left], shared by the nested scans of one file
        self.events: list[Event] = []
        self.skips: list[tuple[int, int]] = []  # verbatim and \\iffalse regions, for incremental rescans
        # where the file's own definitions changed the table (offset after the definition, table)
        self.table_changes: list[tuple[int, MacroTable]] = []
        self.endinput = False  # an \\endinput was read (colosseum.latex.incremental rescans all)
        # the groups of the text open here: [offset of the '{', environments begun inside it].
        # Only the file itself is checked (depth 0), not the expansion of a wrapper.
        self.braces: list[list[int]] | None = [] if depth == 0 else None
        self.brace_errors: set[int] = set()  # '{' already reported by the argument reader


def use_table(state: ScanState, table: MacroTable) -> None:
    """Read on with ``table`` (and the commands it makes interesting)."""
    state.table = table
    state.regex = _token_regex(BUILTIN_NAMES | table.names())


def report_error(state: ScanState, start: int, end: int, code: str, message: str) -> None:
    if code == "unbalanced-brace" and state.braces is not None:
        state.brace_errors.add(end - 1)  # the argument reader's '{' (see braces._open_brace_error)
    state.events.append(Event("error", start, end, code, message))
