"""Project macro definitions met while scanning, and the expansion of relevant wrappers.

A wrapper call is expanded with its arguments and the expansion is scanned again; whatever it
yields (a reference, a label, a section) is mapped back to the exact source offsets of the
argument it came from, or to the whole call when it comes from the macro's body."""

from __future__ import annotations

import re
from bisect import bisect_right

from colosseum.latex.arguments import MAX_LONG_ARGUMENT
from colosseum.latex.events import Event
from colosseum.latex.macros import MacroDef, parse_xparse_spec, substitute

MAX_EXPANSION_DEPTH = 8
MAX_EXPANSIONS = 20_000  # per file: bounds pathological recursive wrappers
_LET = re.compile(r"\s*\\([A-Za-z@]+)\s*=?\s*\\([A-Za-z@]+)")
_DEF = re.compile(r"\s*\\([A-Za-z@]+)((?:#[1-9])*)\s*(?=\{)")


class DefinitionReader:
    """Mixed into the scanner: reads \\newcommand and friends, and expands wrappers."""

    def _definition(self, name: str, start: int, after: int) -> int:
        text = self.text
        if name == "let":
            m = _LET.match(text, after)
            if not m:
                return after
            self._define(MacroDef(m.group(1), alias_of=m.group(2)), start, m.end())
            return m.end()
        if name in ("def", "gdef", "edef", "xdef"):
            m = _DEF.match(text, after)
            if not m:
                return after
            body = self.read_group(m.end(), MAX_LONG_ARGUMENT, command=name)
            if body is None:
                return m.end()
            nargs = len(m.group(2)) // 2
            self._define(MacroDef(m.group(1), ("m",) * nargs, None, text[body[0]:body[1]]), start, body[2])
            return body[2]
        star, pos = self.read_star(after)
        target = self.read_token_or_group(pos, name)
        if target is None:
            return pos
        macro = text[target[0]:target[1]].strip()
        pos = target[2]
        if name == "newtheoremstyle":
            return pos
        if name in ("newenvironment", "renewenvironment", "NewDocumentEnvironment", "RenewDocumentEnvironment"):
            # \newenvironment{name}[n][default]{begin}{end}: skip the two bodies, define nothing
            if name.endswith("DocumentEnvironment"):
                spec = self.read_group(pos, command=name)
                pos = spec[2] if spec else pos
            else:
                for _ in range(2):
                    opt = self.read_optional(pos)
                    if opt is None:
                        break
                    pos = opt[2]
            for _ in range(2):
                group = self.read_group(pos, MAX_LONG_ARGUMENT, command=name)
                if group is None:
                    break
                pos = group[2]
            return pos
        macro = macro.lstrip("\\").strip()
        if name.endswith("DocumentCommand"):
            spec = self.read_group(pos, command=name)
            if spec is None:
                return pos
            kinds, default = parse_xparse_spec(text[spec[0]:spec[1]])
            body = self.read_group(spec[2], MAX_LONG_ARGUMENT, command=name)
            if body is None:
                return spec[2]
            self._define(MacroDef(macro, tuple(kinds), default, text[body[0]:body[1]]), start, body[2])
            return body[2]
        nargs = 0
        default = None
        opt = self.read_optional(pos)
        if opt is not None:
            try:
                nargs = int(text[opt[0]:opt[1]].strip())
            except ValueError:
                nargs = 0
            pos = opt[2]
            opt2 = self.read_optional(pos)
            if opt2 is not None:
                default = text[opt2[0]:opt2[1]]
                pos = opt2[2]
        body = self.read_group(pos, MAX_LONG_ARGUMENT, command=name)
        if body is None:
            return pos
        if default is not None and nargs >= 1:
            kinds = ("O",) + ("m",) * (nargs - 1)
        else:
            kinds = ("m",) * max(0, min(nargs, 9))
        if name == "providecommand" and macro in self.table.defs:
            return body[2]
        self._define(MacroDef(macro, kinds, default, text[body[0]:body[1]]), start, body[2])
        return body[2]

    def _define(self, definition: MacroDef, start: int, end: int) -> None:
        self.events.append(Event("def", start, end, definition.name, extra=definition))
        new_table = self.table.with_def(definition)
        if new_table is not self.table:
            self._set_table(new_table)
            if self.depth == 0:
                self.table_changes.append((end, new_table))

    def _expand(self, definition: MacroDef, start: int, after: int) -> int:
        if definition.alias_of is not None:
            return self._command(definition.alias_of, start, after) if definition.alias_of != definition.name else after
        if self.depth >= MAX_EXPANSION_DEPTH or self.budget[0] <= 0:
            return after
        self.budget[0] -= 1
        text = self.text
        pos = after
        args: list[tuple[str, int]] = []
        for kind in definition.args:
            if kind == "s":
                star, pos = self.read_star(self.skip_space(pos))
                args.append(("*" if star else "", -1))
            elif kind in ("o", "O"):
                opt = self.read_optional(pos)
                if opt is None:
                    args.append((definition.default or "" if kind == "O" else "", -1))
                else:
                    args.append((text[opt[0]:opt[1]], opt[0]))
                    pos = opt[2]
            else:
                group = self.read_token_or_group(pos, definition.name)
                if group is None:
                    break
                args.append((text[group[0]:group[1]], group[0]))
                pos = group[2]
        expanded, segments = substitute(definition.body, args)
        inner = type(self)(expanded, self.table, [], self.depth + 1, self.budget)
        inner.run()
        call_end = pos
        starts = [seg[0] for seg in segments]

        def to_source(offset: int, is_end: bool) -> int:
            i = bisect_right(starts, offset - (1 if is_end else 0)) - 1
            if i >= 0:
                seg_start, seg_end, src = segments[i]
                if src >= 0 and seg_start <= offset <= seg_end:
                    return src + (offset - seg_start)
            return -1

        for ev in inner.events:
            if ev.kind in ("def", "magic-root"):
                continue
            if ev.kind in ("label", "ref") and "#" in ev.value:
                continue  # a parameter of a definition nested in the body, not a label
            vs = to_source(ev.vstart, False) if ev.vstart >= 0 else -1
            ve = to_source(ev.vend, True) if ev.vend >= 0 else -1
            if vs < 0 or ve < 0 or ve < vs:
                vs, ve = start, call_end
            name = definition.name if ev.kind in ("label", "ref") else ev.name
            self.events.append(Event(ev.kind, start, call_end, name, ev.value, vs, ve, ev.extra))
        # a wrapper may define relevant macros itself (\defthm): keep its table changes
        if inner.table is not self.table:
            self._set_table(inner.table)
            if self.depth == 0:
                self.table_changes.append((call_end, inner.table))
        return call_end
