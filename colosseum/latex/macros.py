"""The author's own macro definitions that label, reference, section or declare theorems.

Only definitions that matter for the proof structure are kept ("relevant"): their bodies mention
a structural command (directly or through another relevant macro), or they redefine one that was
relevant. Everything else (``\\R`` for ``\\mathbb{R}``) is ignored, so it never costs a thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from colosseum.core.lazy_regex import lazy_regex

# Commands whose meaning the scanner knows. A project macro whose body uses one is "relevant".
SECTION_LEVELS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph")
LABEL_COMMANDS = ("label",)
# Reference commands whose argument is one label (LaTeX reads a comma as part of the label).
SINGLE_REF_COMMANDS = (
    "ref", "eqref", "pageref", "nameref", "Nameref", "autoref", "Autoref", "vpageref", "namecref",
    "nameCref", "lcnamecref", "titleref", "fullref", "autopageref",
)
# cleveref-style commands whose argument is a comma-separated list of labels.
LIST_REF_COMMANDS = ("cref", "Cref", "cpageref", "Cpageref", "labelcref", "labelcpageref", "vref", "Vref")
RANGE_REF_COMMANDS = ("crefrange", "Crefrange", "cpagerefrange", "Cpagerefrange")
BLUEPRINT_LIST_COMMANDS = ("uses", "proves")
BLUEPRINT_MARKERS = ("leanok", "notready", "mathlibok", "obligation")
INCLUDE_COMMANDS = ("input", "include", "subfile", "import", "subimport", "inputfrom", "includefrom",
                    "subinputfrom", "subincludefrom", "InputIfFileExists")
THEOREM_DECL_COMMANDS = ("newtheorem", "declaretheorem", "spnewtheorem", "newmdtheoremenv",
                         "newtcbtheorem", "theoremstyle")
DEFINITION_COMMANDS = (
    "newcommand", "renewcommand", "providecommand", "DeclareRobustCommand", "def", "gdef", "edef",
    "xdef", "let", "NewDocumentCommand", "RenewDocumentCommand", "ProvideDocumentCommand",
    "DeclareDocumentCommand", "newenvironment", "renewenvironment", "NewDocumentEnvironment",
    "RenewDocumentEnvironment", "newtheoremstyle",
)
# xr / xr-hyper / zref-xr: \externaldocument[prefix]{doc} makes doc's labels referable as prefix+label
EXTERNAL_DOCUMENT_COMMANDS = ("externaldocument", "zexternaldocument")
OTHER_COMMANDS = EXTERNAL_DOCUMENT_COMMANDS + ("begin", "end", "verb", "lstinline", "Verb", "mintinline", "iffalse", "endinput", "lean",
                  "discussion", "hyperref", "inputleannode")

STRUCTURAL_COMMANDS = frozenset(
    SECTION_LEVELS + LABEL_COMMANDS + SINGLE_REF_COMMANDS + LIST_REF_COMMANDS + RANGE_REF_COMMANDS
    + BLUEPRINT_LIST_COMMANDS + BLUEPRINT_MARKERS + INCLUDE_COMMANDS + THEOREM_DECL_COMMANDS
    + ("lean", "discussion", "hyperref", "inputleannode", "begin", "end")
)
# Names a project may never redefine away: our reading of them is the reference meaning (a
# blueprint's print mode redefines \uses to typeset nothing, but the dependency is still there).
PROTECTED = STRUCTURAL_COMMANDS | frozenset(DEFINITION_COMMANDS) | frozenset(("verb", "iffalse"))

_CONTROL_WORD = lazy_regex(r"\\([A-Za-z@]+)")


@dataclass(frozen=True, slots=True)
class MacroDef:
    """A project macro. ``args`` lists argument kinds: 'm' mandatory, 'o' optional without
    default, 'O' optional with ``default``, 's' star."""

    name: str
    args: tuple[str, ...] = ()
    default: str | None = None
    body: str = ""
    alias_of: str | None = None  # \let\name\other

    @property
    def key(self) -> str:
        return f"{self.name}|{','.join(self.args)}|{self.default}|{self.alias_of}|{self.body}"


@dataclass(frozen=True)
class MacroTable:
    """The relevant project macros in effect at one point, plus configured label commands."""

    defs: dict[str, MacroDef] = field(default_factory=dict)
    label_commands: frozenset[str] = frozenset()
    reference_commands: frozenset[str] = frozenset()
    include_commands: frozenset[str] = frozenset()  # the author's include commands, configured

    @cached_property
    def fingerprint(self) -> str:
        """Equal for equal tables, within one process (it keys in-memory caches only)."""
        content = (tuple(self.defs[name].key for name in sorted(self.defs)),
                   tuple(sorted(self.label_commands)), tuple(sorted(self.reference_commands)),
                   tuple(sorted(self.include_commands)))
        return f"{hash(content):x}-{len(self.defs)}"

    @cached_property
    def _names(self) -> frozenset[str]:
        return frozenset(self.defs) | self.label_commands | self.reference_commands | self.include_commands

    def names(self) -> frozenset[str]:
        return self._names

    def is_relevant(self, definition: MacroDef) -> bool:
        if definition.name in PROTECTED:
            return False
        if definition.name in self.defs:
            return True  # a redefinition changes (or removes) structural meaning
        if definition.alias_of is not None:
            return definition.alias_of in STRUCTURAL_COMMANDS or definition.alias_of in self.defs
        used = set(_CONTROL_WORD.findall(definition.body))
        return bool(used & STRUCTURAL_COMMANDS or used & self.defs.keys())

    def with_def(self, definition: MacroDef) -> "MacroTable":
        if not self.is_relevant(definition):
            return self
        if definition.alias_of is not None and definition.alias_of in self.defs:
            target = self.defs[definition.alias_of]
            definition = MacroDef(definition.name, target.args, target.default, target.body, target.alias_of)
        old = self.defs.get(definition.name)
        if old is not None and old.key == definition.key:
            return self
        defs = dict(self.defs)
        defs[definition.name] = definition
        return MacroTable(defs, self.label_commands, self.reference_commands, self.include_commands)


def parse_xparse_spec(spec: str) -> tuple[list[str], str | None]:
    """Argument kinds of an xparse spec such as ``s o m O{x} m``; returns (kinds, first default)."""
    kinds: list[str] = []
    default: str | None = None
    i, n = 0, len(spec)
    while i < n:
        c = spec[i]
        if c in " \t\n+!":
            i += 1
            continue
        if c == ">":  # argument processor >{\SplitList{,}}
            i = _skip_braced(spec, i + 1)
            continue
        if c in "mlvu":
            kinds.append("m")
            i += 1
            if c == "u":
                i = _skip_braced(spec, i)
        elif c == "o":
            kinds.append("o")
            i += 1
        elif c == "O":
            start = i + 1
            i = _skip_braced(spec, start)
            kinds.append("O")
            if default is None:
                default = spec[start + 1 : i - 1]
        elif c in "st":
            kinds.append("s")
            i += 2 if c == "t" else 1
        elif c in "rRdDgGeE":
            # delimited / embellishment arguments: rare in wrappers, read as mandatory
            kinds.append("m" if c in "rR" else "o")
            i += 1
            if c in "rRdD":
                i += 2
            if c in "RDGeE":
                i = _skip_braced(spec, i)
                if c == "E":
                    i = _skip_braced(spec, i)
        else:
            i += 1
    return kinds, default


def _skip_braced(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    if i >= len(text) or text[i] != "{":
        return i + 1 if i < len(text) else i
    depth = 0
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def substitute(body: str, args: list[tuple[str, int]]) -> tuple[str, list[tuple[int, int, int]]]:
    """Expand ``#1``..``#9`` in ``body`` with ``args`` (text, source offset or -1).

    Returns the expanded text and its segments ``(exp_start, exp_end, src_start)`` where
    ``src_start`` is -1 for text that comes from the body itself.
    """
    out: list[str] = []
    segments: list[tuple[int, int, int]] = []
    length = 0
    last = 0
    i = body.find("#")
    while i != -1 and i + 1 < len(body):
        nxt = body[i + 1]
        if nxt.isdigit() or nxt == "#":
            chunk = body[last:i]
            if chunk:
                out.append(chunk)
                segments.append((length, length + len(chunk), -1))
                length += len(chunk)
            if nxt == "#":
                out.append("#")
                segments.append((length, length + 1, -1))
                length += 1
            else:
                k = int(nxt) - 1
                if 0 <= k < len(args):
                    text, src = args[k]
                    if text:
                        out.append(text)
                        segments.append((length, length + len(text), src))
                        length += len(text)
            last = i + 2
            i = body.find("#", last)
        else:
            i = body.find("#", i + 1)
    chunk = body[last:]
    if chunk:
        out.append(chunk)
        segments.append((length, length + len(chunk), -1))
    return "".join(out), segments
