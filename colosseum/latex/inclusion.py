"""The scanner's reading of what brings other files in: ``\\input``, ``\\include``, ``\\import``
and their kin (``include`` events, which the project walk follows), and ``\\usepackage`` /
``\\documentclass`` (``package`` events: a project-local package is read for its definitions).

A mixin of colosseum.latex.scanner._Scanner: it uses the scanner's text, events and argument
reader (colosseum.latex.arguments).
"""

from __future__ import annotations

import re

from colosseum.latex.arguments import label_items
from colosseum.latex.events import Event

_BARE_INPUT = re.compile(r"[ \t]+([^\s{}%\\]+)")  # TeX's primitive form: \input file
_TWO_ARGUMENT_INCLUDES = frozenset(("import", "subimport", "inputfrom", "includefrom", "subinputfrom",
                                    "subincludefrom"))


class InclusionReader:
    def _include(self, name: str, start: int, after: int) -> int:
        text = self.text
        if name in _TWO_ARGUMENT_INCLUDES:
            _, pos = self.read_star(after)
            first = self.read_group(pos, command=name)
            if first is None:
                return pos
            second = self.read_group(first[2], command=name)
            if second is None:
                return first[2]
            self.events.append(Event("include", start, second[2], name, text[second[0]:second[1]].strip(),
                                     second[0], second[1], text[first[0]:first[1]].strip()))
            return second[2]
        group = self.read_group(after, command=name)
        if group is None:
            if name != "input":
                return after
            m = _BARE_INPUT.match(text, after)
            if not m:
                return after
            self.events.append(Event("include", start, m.end(), name, m.group(1), m.start(1), m.end(1)))
            return m.end()
        s, e, nxt = group
        self.events.append(Event("include", start, nxt, name, text[s:e].strip(), s, e))
        return nxt

    def _package(self, name: str, start: int, after: int) -> int:
        """\\usepackage[options]{a,b}: one ``package`` event per name (the project walk reads a
        project-local one for its definitions)."""
        opt = self.read_optional(after)
        pos = opt[2] if opt is not None else after
        group = self.read_group(pos, command=name)
        if group is None:
            return pos
        s, e, nxt = group
        for value, vs, ve in label_items(self.text, s, e, split=True):
            self.events.append(Event("package", start, nxt, name, value, vs, ve))
        return nxt
