"""A fast, tolerant scanner for the LaTeX commands that carry a proof's structure.

A full LaTeX parse per keystroke is too slow for a 10,000-line file (pylatexenc needs seconds), and
almost every token of a paper is irrelevant to its dependency structure. So the scanner asks one
compiled regular expression for the next *interesting* command or comment, in C, and only then
reads that command's arguments in Python. Comments, ``\\iffalse`` blocks, ``\\verb`` and
verbatim-like environments never yield labels or references. Project wrappers (see
``colosseum.latex.macros``) are expanded with their arguments, and what they produce is mapped back to
the exact source offsets of the call. pylatexenc stays the reference for what LaTeX means: the
differential tests compare against it.

The scanner never raises on bad input: it reports ``error`` events and goes on.
"""

from __future__ import annotations

import re
from functools import lru_cache

from colosseum.latex.arguments import MAX_LONG_ARGUMENT, ArgumentReader, label_items
from colosseum.latex.braces import BRACE_OR_BALANCED_TEXT, UNBOUNDED, BraceChecker  # noqa: F401 (UNBOUNDED: re-exported)
from colosseum.latex.definitions import MAX_EXPANSIONS, DefinitionReader
from colosseum.latex.events import Event, ScanResult
from colosseum.latex.inclusion import InclusionReader
from colosseum.latex.skipped import SkippedTextReader
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

VERBATIM_ENVIRONMENTS = frozenset((
    "verbatim", "verbatim*", "Verbatim", "Verbatim*", "BVerbatim", "LVerbatim", "lstlisting",
    "minted", "comment", "filecontents", "filecontents*", "lean", "lstlisting*", "spverbatim",
))

# thm-restate: \begin{restatable}[title]{theorem}{macro} is a claim of the theorem-like environment named
RESTATABLE = frozenset(("restatable", "restatable*"))

# commands that load a package or class: a project-local one is read for its definitions
PACKAGE_COMMANDS = {"usepackage": ".sty", "RequirePackage": ".sty", "documentclass": ".cls", "LoadClass": ".cls"}

BUILTIN_NAMES = frozenset(
    SECTION_LEVELS + LABEL_COMMANDS + SINGLE_REF_COMMANDS + LIST_REF_COMMANDS + RANGE_REF_COMMANDS
    + BLUEPRINT_LIST_COMMANDS + BLUEPRINT_MARKERS + INCLUDE_COMMANDS + THEOREM_DECL_COMMANDS
    + DEFINITION_COMMANDS + OTHER_COMMANDS + tuple(PACKAGE_COMMANDS)
)
_SECTION_SET = frozenset(SECTION_LEVELS)
_SINGLE_REF_SET = frozenset(SINGLE_REF_COMMANDS)
_LIST_REF_SET = frozenset(LIST_REF_COMMANDS)
_RANGE_REF_SET = frozenset(RANGE_REF_COMMANDS)
_INCLUDE_SET = frozenset(INCLUDE_COMMANDS)
_DEF_SET = frozenset(DEFINITION_COMMANDS)
_MARKER_SET = frozenset(BLUEPRINT_MARKERS)

_MAGIC_ROOT = re.compile(r"%\s*!\s*TEX\s+root\s*=\s*(\S[^\n]*?)\s*$", re.IGNORECASE | re.MULTILINE)
_MAGIC_OBLIGATION = re.compile(r"%+\s*colosseum\s*:\s*obligation\b", re.IGNORECASE)
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


def new_scanner(text: str, table: MacroTable) -> "_Scanner":
    return _Scanner(text, table, [], depth=0, budget=[MAX_EXPANSIONS])


def scan(text: str, table: MacroTable, updates: list[tuple[int, MacroTable]] | None = None) -> ScanResult:
    """Scan one file. ``updates`` switch the macro table at given offsets (definitions made by
    files that this one ``\\input``s take effect after the ``\\input``)."""
    scanner = _Scanner(text, table, list(updates or ()), depth=0, budget=[MAX_EXPANSIONS])
    scanner.run()
    scanner.close_open_braces()
    return ScanResult(scanner.events, scanner.table, skips=scanner.skips, table_changes=scanner.table_changes,
                      endinput=scanner.endinput)


class _Scanner(ArgumentReader, DefinitionReader, BraceChecker, InclusionReader, SkippedTextReader):
    def __init__(self, text: str, table: MacroTable, updates: list[tuple[int, MacroTable]], depth: int,
                 budget: list[int]):
        self.text = text
        self.table = table
        self.updates = updates
        self.depth = depth
        self.budget = budget
        self.events: list[Event] = []
        self.skips: list[tuple[int, int]] = []  # verbatim and \\iffalse regions, for incremental rescans
        # where the file's own definitions changed the table (offset after the definition, table)
        self.table_changes: list[tuple[int, MacroTable]] = []
        self.endinput = False  # an \\endinput was read (colosseum.latex.incremental rescans all)
        # the groups of the text open here: [offset of the '{', environments begun inside it].
        # Only the file itself is checked (depth 0), not the expansion of a wrapper.
        self.braces: list[list[int]] | None = [] if depth == 0 else None
        self._brace_errors: set[int] = set()  # '{' already reported by the argument reader
        self._set_table(table)

    def _set_table(self, table: MacroTable) -> None:
        self.table = table
        self.regex = _token_regex(BUILTIN_NAMES | table.names())

    # ---- the main loop -------------------------------------------------------------------
    def run(self, pos: int = 0, stop: int | None = None) -> int:
        """Scan the tokens that start in [pos, stop); return where scanning ended (past stop
        when the last token's arguments or skipped region reach beyond it)."""
        text = self.text
        n = len(text) if stop is None else min(stop, len(text))
        search = self.regex.search
        brace_search = BRACE_OR_BALANCED_TEXT.search if self.braces is not None else None
        while pos < n:
            while self.updates and self.updates[0][0] <= pos:
                self._set_table(self.updates.pop(0)[1])
                search = self.regex.search
            m = search(text, pos, n)
            gap_end = n if m is None else m.start()
            switch = self.updates and gap_end >= self.updates[0][0]
            if switch:
                gap_end = self.updates[0][0]
            if brace_search is not None:  # the braces of the plain text up to the next command
                brace = brace_search(text, pos, gap_end)
                if brace is not None and (brace.end() != gap_end or brace.end() - brace.start() == 1):
                    self._braces_between(brace, gap_end)  # (else balanced text up to the command)
            if switch:
                pos = gap_end
                continue
            if m is None:
                pos = n
                break
            name = m.group(1)
            if name is None:
                if m.start(2) != -1:  # a comment
                    pos = self._comment(m.start(2))
                else:  # an escaped backslash or percent sign
                    pos = m.end()
                continue
            start = m.start(1) - 1
            after = m.end(1)
            regex_before = self.regex
            pos = self._command(name, start, after)
            if self.regex is not regex_before:
                search = self.regex.search
            if pos <= start:  # never loop in place
                pos = after
            elif text.find("\n", start, pos) != -1:
                # arguments read across lines: an incremental rescan must not start inside them
                self.skips.append((start, pos))
        return pos

    def _comment(self, pos: int) -> int:
        text = self.text
        end = text.find("\n", pos)
        if end == -1:
            end = len(text)
        if "colosseum" in text[pos:end].lower() and _MAGIC_OBLIGATION.match(text, pos, end):
            self.events.append(Event("marker", pos, end, "obligation-comment"))
        elif "TEX" in text[pos:end].upper():
            m = _MAGIC_ROOT.match(text, pos, end)
            if m:
                self.events.append(Event("magic-root", pos, end, value=m.group(1), vstart=m.start(1), vend=m.end(1)))
        return end + 1

    def _command(self, name: str, start: int, after: int) -> int:
        table = self.table
        if name in table.defs:
            return self._expand(table.defs[name], start, after)
        if name in table.label_commands:
            return self._label(name, start, after)
        if name in table.reference_commands:
            return self._reference(name, start, after, split=True)
        if name == "begin":
            return self._begin(start, after)
        if name == "end":
            return self._end(start, after)
        if name in LABEL_COMMANDS:
            return self._label(name, start, after)
        if name in _LIST_REF_SET or name in BLUEPRINT_LIST_COMMANDS:
            return self._reference(name, start, after, split=True)
        if name in _SINGLE_REF_SET:
            return self._reference(name, start, after, split=False)
        if name in _SECTION_SET:
            return self._section(name, start, after)
        if name in _MARKER_SET:
            self.events.append(Event("marker", start, after, name))
            return after
        if name in _DEF_SET:
            return self._definition(name, start, after)
        if name in _INCLUDE_SET:
            return self._include(name, start, after)
        if name in THEOREM_DECL_COMMANDS:
            return self._theorem_decl(name, start, after)
        if name in _RANGE_REF_SET:
            return self._reference_range(name, start, after)
        handler = _OTHER_HANDLERS.get(name)
        if handler is not None:
            return handler(self, name, start, after)
        return after

    def error(self, start: int, end: int, code: str, message: str) -> None:
        if code == "unbalanced-brace" and self.braces is not None:
            self._brace_errors.add(end - 1)  # the argument reader's '{' (see _open_brace_error)
        self.events.append(Event("error", start, end, code, message))

    # ---- handlers ------------------------------------------------------------------------
    def _label(self, name: str, start: int, after: int) -> int:
        label_type = self.read_optional(after)  # cleveref's \label[lemma]{name}: the type is no label
        if label_type is not None:
            after = label_type[2]
        group = self._argument(after, name)
        if group is None:
            return after
        s, e, nxt = group
        for value, vs, ve in label_items(self.text, s, e, split=False):
            self.events.append(Event("label", start, nxt, name, value, vs, ve))
        return nxt

    def _argument(self, after: int, name: str) -> tuple[int, int, int] | None:
        """A braced argument, or TeX's single-token argument (\\label2 labels "2")."""
        group = self.read_group(after, command=name)
        if group is not None:
            return group
        text = self.text
        if after < len(text) and (text[after].isalnum() and text[after].isascii()):
            return after, after + 1, after + 1
        return None

    def _reference(self, name: str, start: int, after: int, split: bool) -> int:
        _, pos = self.read_star(after)
        group = self._argument(pos, name)
        if group is None:
            return pos
        s, e, nxt = group
        self._emit_labels(name, start, nxt, s, e, split)
        return nxt

    def _emit_labels(self, name: str, start: int, end: int, s: int, e: int, split: bool) -> None:
        for value, vs, ve in label_items(self.text, s, e, split):
            self.events.append(Event("ref", start, end, name, value, vs, ve))

    def _reference_range(self, name: str, start: int, after: int) -> int:
        _, pos = self.read_star(after)
        for _ in range(2):
            group = self.read_group(pos, command=name)
            if group is None:
                return pos
            s, e, pos = group
            self._emit_labels(name, start, pos, s, e, split=False)
        return pos

    def _hyperref(self, name: str, start: int, after: int) -> int:
        opt = self.read_optional(after)
        if opt is None:
            return after
        s, e, nxt = opt
        self._emit_labels(name, start, nxt, s, e, split=False)
        return nxt

    def _section(self, name: str, start: int, after: int) -> int:
        star, pos = self.read_star(after)
        opt = self.read_optional(pos)
        if opt is not None:
            pos = opt[2]
        group = self.read_group(pos, MAX_LONG_ARGUMENT, command=name)
        if group is None:
            self.events.append(Event("section", start, pos, name, "", pos, pos, star))
            return pos
        s, e, nxt = group
        self.events.append(Event("section", start, nxt, name, self.text[s:e], s, e, star))
        if self.braces is not None:
            self.braces.append([s - 1, 0])  # its '}' is met in the text
        return s  # keep scanning inside the title: \section{Intro\label{sec:intro}}

    def _begin(self, start: int, after: int) -> int:
        group = self.read_group(after, command="begin")
        if group is None:
            return after
        s, e, nxt = group
        env = self.text[s:e].strip()
        if env in VERBATIM_ENVIRONMENTS:
            return self._skip_verbatim(env, start, nxt)
        opt = None
        # an optional argument must start on the same line: [..] on the next line is content
        p = nxt
        while p < len(self.text) and self.text[p] in " \t":
            p += 1
        if self.braces:
            self._environment_in_group(env, True, nxt)
        if p < len(self.text) and self.text[p] == "[":
            opt = self.read_optional(p)
        restated = self._restatable(env, opt[2] if opt is not None else nxt) if env in RESTATABLE else None
        end = restated[2] if restated is not None else nxt
        extra = restated[:2] if restated is not None else None
        if opt is not None:
            self.events.append(Event("begin", start, end, env, self.text[opt[0]:opt[1]], opt[0], opt[1], extra))
        else:
            self.events.append(Event("begin", start, end, env, extra=extra))
        return nxt

    def _restatable(self, env: str, pos: int) -> tuple[str, str, int] | None:
        """thm-restate's ``\\begin{restatable}[title]{theorem}{macro}``: (the theorem-like
        environment it is, the macro that restates it, offset after both). The restatement
        ``\\macro*`` defines no label again (thm-restate drops its \\label), so it is no claim."""
        kind = self.read_group(pos, command=env)
        if kind is None:
            return None
        macro = self.read_group(kind[2], command=env)
        if macro is None:
            return None
        return self.text[kind[0]:kind[1]].strip(), self.text[macro[0]:macro[1]].strip(), macro[2]

    def _end(self, start: int, after: int) -> int:
        group = self.read_group(after, command="end")
        if group is None:
            return after
        s, e, nxt = group
        env = self.text[s:e].strip()
        if self.braces:
            self._environment_in_group(env, False, nxt)
        self.events.append(Event("end", start, nxt, env))
        return nxt

    def _lean(self, name: str, start: int, after: int) -> int:
        group = self.read_group(after, command=name)
        if group is None:
            return after
        s, e, nxt = group
        decls = label_items(self.text, s, e, split=True)
        self.events.append(Event("lean", start, nxt, name, self.text[s:e], s, e, decls))
        return nxt

    def _discussion(self, name: str, start: int, after: int) -> int:
        group = self.read_group(after, command=name)
        if group is None:
            return after
        s, e, nxt = group
        self.events.append(Event("discussion", start, nxt, name, self.text[s:e].strip(), s, e))
        return nxt

    def _leannode(self, name: str, start: int, after: int) -> int:
        group = self.read_group(after, command=name)
        if group is None:
            return after
        s, e, nxt = group
        value = self.text[s:e].strip()
        if value:
            self.events.append(Event("leannode", start, nxt, name, value, s, e))
        return nxt

    def _theorem_decl(self, name: str, start: int, after: int) -> int:
        text = self.text
        if name == "theoremstyle":
            group = self.read_group(after, command=name)
            if group is None:
                return after
            self.events.append(Event("theoremstyle", start, group[2], name, text[group[0]:group[1]].strip()))
            return group[2]
        star, pos = self.read_star(after)
        options = ""
        if name in ("declaretheorem", "newmdtheoremenv"):
            opt = self.read_optional(pos)
            if opt is not None:
                options = text[opt[0]:opt[1]]
                pos = opt[2]
        group = self.read_group(pos, command=name)
        if group is None:
            return pos
        env = text[group[0]:group[1]].strip()
        pos = group[2]
        title = ""
        if name == "declaretheorem":
            opt = self.read_optional(pos)
            if opt is not None:
                options += "," + text[opt[0]:opt[1]]
                pos = opt[2]
            m = re.search(r"(?:^|,)\s*(?:name|title)\s*=\s*\{?([^,}]*)", options)
            title = m.group(1).strip() if m else env.capitalize()
        else:
            opt = self.read_optional(pos)
            if opt is not None:
                pos = opt[2]
            title_group = self.read_group(pos, command=name)
            if title_group is not None:
                title = text[title_group[0]:title_group[1]].strip()
                pos = title_group[2]
                opt = self.read_optional(pos)
                if opt is not None and name == "newtheorem":
                    pos = opt[2]
        if env:
            self.events.append(Event("thmdecl", start, pos, name, env, group[0], group[1], (title, star)))
        return pos

_OTHER_HANDLERS = {
    "verb": _Scanner._verb,
    "lstinline": _Scanner._verb,
    "Verb": _Scanner._verb,
    "mintinline": _Scanner._verb,
    "iffalse": _Scanner._iffalse,
    "endinput": _Scanner._endinput,
    "lean": _Scanner._lean,
    "discussion": _Scanner._discussion,
    "hyperref": _Scanner._hyperref,
    "inputleannode": _Scanner._leannode,
    **{name: _Scanner._package for name in PACKAGE_COMMANDS},
}

