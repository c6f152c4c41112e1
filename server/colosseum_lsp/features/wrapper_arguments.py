"""Which argument of a wrapper call (``\\Lem{a}`` for ``\\newcommand{\\Lem}[1]{\\ref{lem:#1}}``)
holds the part of a label that varies, read from the call's text.

The index records a label or reference made through a wrapper by the whole call when the wrapper's
body adds text to the name (``lem:`` + ``a``). A rename must then edit only the argument, and only
when the new name keeps the fixed text around it. The argument is found by matching each of the
call's arguments against the name; when one call leaves several readings, the other calls of the
same wrapper settle it (the fixed text is the same in every call)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_ARGUMENTS = 9
CALLS_TO_COMPARE = 200  # other calls of the same wrapper read to settle an ambiguous one


@dataclass(frozen=True, slots=True)
class ArgumentReading:
    """The name is ``prefix + call_text[start:end] + suffix``; ``argument`` is which argument."""

    argument: int
    start: int  # offsets into the call's text
    end: int
    prefix: str
    suffix: str

    @property
    def fixed(self) -> tuple[int, str, str]:
        return self.argument, self.prefix, self.suffix

    def new_argument(self, new_name: str) -> str | None:
        """The argument that makes ``new_name``, or None when the new name drops the fixed text."""
        if len(new_name) <= len(self.prefix) + len(self.suffix):
            return None
        if not (new_name.startswith(self.prefix) and new_name.endswith(self.suffix)):
            return None
        return new_name[len(self.prefix):len(new_name) - len(self.suffix)]


def _arguments(call: str) -> list[tuple[int, int]]:
    """(start, end) of the content of each ``{...}`` or ``[...]`` argument after the command name."""
    i = 1
    while i < len(call) and (call[i].isalpha() or call[i] == "@"):
        i += 1
    if i < len(call) and call[i] == "*":
        i += 1
    out: list[tuple[int, int]] = []
    while i < len(call) and len(out) < MAX_ARGUMENTS:
        while i < len(call) and call[i] in " \t\n":
            i += 1
        if i >= len(call) or call[i] not in "{[":
            break
        close = "}" if call[i] == "{" else "]"
        depth, j = 0, i
        while j < len(call):
            c = call[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            if depth == 0 and c == close:
                break
            j += 1
        if j >= len(call):
            break
        out.append((i + 1, j))
        i = j + 1
    return out


def readings(call: str, name: str) -> list[ArgumentReading]:
    """Every way one argument of ``call`` can be the varying part of ``name``."""
    out = []
    for number, (start, end) in enumerate(_arguments(call)):
        text = call[start:end]
        if not text or "\\" in text or "{" in text:
            continue  # an argument that is itself LaTeX: not a piece of the name we can edit
        at = name.find(text)
        while at != -1:
            out.append(ArgumentReading(number, start, end, name[:at], name[at + len(text):]))
            at = name.find(text, at + 1)
    return out


def settled(own: list[ArgumentReading], others: list[list[ArgumentReading]]) -> list[ArgumentReading]:
    """The readings of one call that every other call of the same wrapper allows (all of its own
    when the others agree on none: a wrapper used in more than one way)."""
    allowed = {r.fixed for r in own}
    for other in others[:CALLS_TO_COMPARE]:
        narrowed = allowed & {r.fixed for r in other}
        if narrowed:
            allowed = narrowed
        if len(allowed) == 1:
            break
    return [r for r in own if r.fixed in allowed]
