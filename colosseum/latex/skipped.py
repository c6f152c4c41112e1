"""The scanner's reading of text that TeX does not read as commands here: verbatim-like
environments, ``\\verb`` and its kin (``\\lstinline``, ``\\Verb``, ``\\mintinline``), ``\\iffalse``
blocks, and what follows ``\\endinput``. They never yield labels or references.

A mixin of colosseum.latex.scanner._Scanner: it uses the scanner's text, events, skipped regions
and argument reader (colosseum.latex.arguments).
"""

from __future__ import annotations

import re

from colosseum.latex.braces import UNBOUNDED
from colosseum.latex.events import Event

_CONDITIONAL_TOKEN = re.compile(r"(?<!\\)\\(if[A-Za-z@]*|fi|else)(?![A-Za-z@])|(?<!\\)%")
_NEWIF = re.compile(r"\\newif\s*\\(if[A-Za-z@]+)")
_AFTER_NEWIF = re.compile(r"\\newif\s*$")
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


class SkippedTextReader:
    def _skip_verbatim(self, env: str, start: int, body: int) -> int:
        closing = "\\end{" + env + "}"
        end = self.text.find(closing, body)
        self.events.append(Event("begin", start, body, env, extra="verbatim"))
        if end == -1:
            self.error(start, body, "unterminated-environment",
                       f"\\begin{{{env}}} is never closed: the rest of the file is read as verbatim")
            self.skips.append((start, UNBOUNDED))
            return len(self.text)
        self.skips.append((start, end + len(closing)))
        self.events.append(Event("end", end, end + len(closing), env))
        return end + len(closing)

    def _verb(self, name: str, start: int, after: int) -> int:
        text = self.text
        pos = after
        while pos < len(text) and text[pos] in " \t":
            pos += 1  # TeX skips spaces after a control word: "\\verb |x|" is delimited by |
        _, pos = self.read_star(pos)
        if pos >= len(text):
            return pos
        delim = text[pos]
        if name != "verb" and delim == "[":  # \lstinline[style], \Verb[opts], \mintinline[opts]
            opt = self.read_optional(pos)
            pos = opt[2] if opt else pos
            delim = text[pos] if pos < len(text) else ""
        if name == "mintinline":  # \mintinline{lang}{code} or \mintinline{lang}|code|
            language = self.read_group(pos, command=name)
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

    def _iffalse(self, name: str, start: int, after: int) -> int:
        """Skip to the matching \\fi (or past an \\else, whose branch TeX does read). Only real
        conditionals nest: \\iff or \\ifthenelse inside commented-out maths are not \\if's."""
        text = self.text
        conditionals = _TEX_CONDITIONALS | set(_NEWIF.findall(text)) if "\\newif" in text else _TEX_CONDITIONALS
        depth = 1
        pos = after
        while True:
            m = _CONDITIONAL_TOKEN.search(text, pos)
            if m is None:
                self.skips.append((start, UNBOUNDED))
                return len(text)
            pos = m.end()
            if m.group() == "%":
                nl = text.find("\n", pos)
                if nl == -1:
                    self.skips.append((start, UNBOUNDED))
                    return len(text)
                pos = nl + 1
                continue
            word = m.group(1)
            if word == "fi":
                depth -= 1
                if depth == 0:
                    self.skips.append((start, pos))
                    return pos
            elif word == "else" and depth == 1:
                self.skips.append((start, pos))
                return pos  # the \\else branch is read; its \\fi is then harmless
            elif word in conditionals:
                depth += 1

    def _endinput(self, name: str, start: int, after: int) -> int:
        """TeX reads the rest of the line, then nothing more of the file. Not inside a
        conditional, which the scanner cannot decide: ``\\ifdefined\\loaded\\endinput\\fi`` guards
        a file against being read twice, and the file is read on."""
        text = self.text
        if self.depth:
            return after
        self.endinput = True  # whether it counts depends on all the text before it
        line_end = text.find("\n", after)
        if line_end == -1 or self._in_conditional(start):
            return after
        return max(self.run(after, line_end), len(text))

    def _in_conditional(self, pos: int) -> bool:
        """Whether a TeX conditional is open at ``pos`` (counted from the file's start)."""
        text = self.text
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
