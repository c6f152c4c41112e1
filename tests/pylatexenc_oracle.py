"""The pylatexenc oracle: pylatexenc's reading of a LaTeX text, the reference that
``colosseum.latex.scanner`` is compared with (tests/test_pylatexenc_oracle.py).

The scanner is a fast regex-driven reader; pylatexenc's ``LatexWalker`` is a real (if slow)
parser. For every input, both are asked for the same multiset of facts, each with its 1-based line
(the line of the command's backslash):

* ``(line, "label", "label", name)`` for ``\\label{name}``;
* ``(line, "ref", command, name)`` for every reference: ``\\ref``-like commands (one label each),
  cleveref lists and blueprint ``\\uses``/``\\proves`` (split at commas), ``\\crefrange`` (two),
  ``\\hyperref[name]{...}``;
* ``(line, "begin", "", env)`` for every ``\\begin{env}`` that is really read as one.

Nothing inside a comment, ``\\verb``/``\\lstinline``, a verbatim-like environment or an
``\\iffalse`` block counts. Names are compared the way TeX reads them: a comment inside the
argument vanishes with its line break, a run of spaces, tabs and line breaks is one space, and
(a convention shared with the scanner) spaces at both ends are dropped. A paragraph break inside a
label or reference argument is a TeX error ("Paragraph ended before \\label was complete"): no
fact.

The oracle is pylatexenc's walker with the context of pylatexenc_context.py (which says where
pylatexenc is corrected, and why). pylatexenc does not skip ``\\iffalse ... \\fi``: the walker
below skips such blocks itself, at the level of sibling nodes, counting nested TeX conditionals
(primitives and ``\\newif`` conditionals, never macros such as ``\\iff`` or ``\\ifthenelse``) and
resuming at an ``\\else`` of the same level, as TeX does. A block whose ``\\fi`` is not a sibling
(it sits in a group, or in verbatim text that TeX would still tokenize) is not modelled: the file
is excluded and counted.

Legitimate differences, excluded on purpose (counted, never silently):

* project wrapper macros (``\\newcommand{\\lemref}[1]{Lemma~\\ref{#1}}``, ``\\let\\myref\\ref``)
  defined in the file: the scanner expands them, the bare oracle does not know them. The oracle
  finds the definitions whose body mentions a structural command (or another such wrapper),
  parses their calls as single nodes, and facts inside a call (both sides) are not compared.
  Macros defined in *other* files are unknown to both (the scanner is given an empty
  ``MacroTable``), so their calls are compared like any text;
* files on which pylatexenc reports a parse error (tolerant mode): its tree is then not a
  reliable reading (in the corpus: the leanblueprint template ``web.tex``, whose Jinja
  placeholders are not LaTeX). One kind is harmless and tolerated: a stray ``\\end{X}`` whose
  ``\\begin{X}`` lives in the file that ``\\input``s this one (``\\end{document}``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field

from pylatexenc import latexwalker as lw
from pylatexenc import macrospec as ms
from pylatexenc_context import (BLUEPRINT_LIST_COMMANDS, BLUEPRINT_MARKERS, LABEL_COMMANDS, LIST_REF_COMMANDS,
                                RANGE_REF_COMMANDS, RAW_DEFINITIONS, SECTION_COMMANDS, SINGLE_REF_COMMANDS,
                                STRUCTURAL, TEX_CONDITIONALS, TEX_DEF_COMMANDS, TolerantWalker, latex_context)

from colosseum.latex.scanner import scan
from colosseum.latex.macros import MacroTable

_NEWIF = re.compile(r"\\newif\s*\\(if[A-Za-z]+)")
_PAR = re.compile(r"\n[ \t\r]*\n")
_TEX_SPACE = re.compile(r"[ \t\r\n]+")
_CONTROL_WORD = re.compile(r"\\([A-Za-z@]+)")
_TEX_WORD = re.compile(r"\\(?:([A-Za-z]+)|.)", re.DOTALL)  # document catcodes: @ is not a letter


class OracleUnsupported(Exception):
    """The input uses a construct the oracle does not model; the file is excluded (counted)."""


@dataclass
class OracleResult:
    facts: Counter  # (1-based line, kind, command, value) -> count
    wrapper_spans: list[tuple[int, int]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # parse errors that make the reading unreliable
    tolerated: list[str] = field(default_factory=list)  # harmless ones (see module docstring)
    iffalse_blocks: int = 0


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def tex_name(raw: str) -> str | None:
    """A label as TeX reads it (comments already removed); None for a paragraph break."""
    if _PAR.search(raw):
        return None
    return _TEX_SPACE.sub(" ", raw).strip(" ")


def _node_text(node) -> str:
    if node is None:
        return ""
    if isinstance(node, lw.LatexCommentNode):
        return ""  # a comment vanishes with its line break and the next line's indentation
    if isinstance(node, lw.LatexGroupNode):
        return node.delimiters[0] + "".join(_node_text(n) for n in node.nodelist) + node.delimiters[1]
    return node.latex_verbatim()


def _arg_text(node) -> str | None:
    if node is None:
        return None
    if isinstance(node, lw.LatexGroupNode):
        return "".join(_node_text(n) for n in node.nodelist)
    return _node_text(node)


def _args(node) -> list:
    argd = getattr(node, "nodeargd", None)
    return list(argd.argnlist) if argd is not None and argd.argnlist else []


VERBATIM_TEXT = "<verbatim>"  # not a control word: stands for text pylatexenc read verbatim


def _macro_names(node):
    """Control words in a subtree, in order (what TeX would see while skipping it)."""
    if node is None:
        return
    if isinstance(node, lw.LatexMacroNode):
        yield node.macroname
        if isinstance(node.nodeargd, ms.ParsedVerbatimArgs):
            yield VERBATIM_TEXT
            return
        for a in _args(node):
            yield from _macro_names(a)
    elif isinstance(node, lw.LatexEnvironmentNode):
        yield "begin"
        if isinstance(node.nodeargd, ms.ParsedVerbatimArgs):
            yield VERBATIM_TEXT
        else:
            for a in _args(node):
                yield from _macro_names(a)
            for n in node.nodelist:
                yield from _macro_names(n)
        yield "end"
    elif isinstance(node, (lw.LatexGroupNode, lw.LatexMathNode)):
        for n in node.nodelist:
            yield from _macro_names(n)
    elif isinstance(node, lw.LatexCharsNode) and "\\" in node.chars:  # raw definition text
        yield from (m.group(1) for m in _TEX_WORD.finditer(node.chars) if m.group(1))


class _Collector:
    def __init__(self, text: str, wrappers: dict[str, str], conditionals: frozenset[str]):
        self.text = text
        self.wrappers = wrappers
        self.conditionals = conditionals
        self.starts = _line_starts(text)
        self.facts: Counter = Counter()
        self.wrapper_spans: list[tuple[int, int]] = []
        self.iffalse_blocks = 0

    def line(self, pos: int) -> int:
        return bisect_right(self.starts, pos)

    def add(self, pos: int, kind: str, command: str, raw: str | None, split: bool = False) -> None:
        if raw is None:
            return
        name = tex_name(raw)
        if name is None:
            return
        values = [v.strip(" ") for v in name.split(",")] if split else [name]
        for v in values:
            if v:
                self.facts[(self.line(pos), kind, command, v)] += 1

    def walk(self, nodes) -> None:
        i = 0
        while i < len(nodes):
            node = nodes[i]
            if isinstance(node, lw.LatexMacroNode) and node.macroname == "iffalse":
                i = self.skip_false(nodes, i + 1)
                continue
            self.visit(node)
            i += 1

    def skip_false(self, nodes, i: int) -> int:
        """Index after the ``\\fi`` (or ``\\else``) that ends the \\iffalse block opened before i."""
        self.iffalse_blocks += 1
        depth = 1
        while i < len(nodes):
            node = nodes[i]
            for k, name in enumerate(_macro_names(node)):
                if name == VERBATIM_TEXT:  # TeX tokenizes it while skipping: a % or \fi in it counts
                    raise OracleUnsupported("\\verb or verbatim text inside an \\iffalse block")
                if name in self.conditionals:
                    depth += 1
                elif name == "fi" or (name == "else" and depth == 1):
                    depth -= name == "fi"
                    if depth == 0 or name == "else":
                        if k != 0:
                            raise OracleUnsupported(f"\\iffalse block ends inside a nested node at offset {node.pos}")
                        return i + 1
            i += 1
        raise OracleUnsupported("\\iffalse without its \\fi at the same nesting level")

    def visit(self, node) -> None:
        if isinstance(node, (lw.LatexGroupNode, lw.LatexMathNode)):
            self.walk(node.nodelist)
        elif isinstance(node, lw.LatexEnvironmentNode):
            self.facts[(self.line(node.pos), "begin", "", node.environmentname.strip())] += 1
            if isinstance(node.nodeargd, ms.ParsedVerbatimArgs):
                return
            self.walk([a for a in _args(node) if a is not None])
            self.walk(node.nodelist)
        elif isinstance(node, lw.LatexMacroNode):
            self.macro(node)

    def macro(self, node) -> None:
        name = node.macroname
        args = _args(node)
        if name in self.wrappers:
            self.wrapper_spans.append((node.pos, node.pos + node.len))
            return
        if name in LABEL_COMMANDS:
            self.add(node.pos, "label", name, _arg_text(args[0]) if args else None)
        elif name in SINGLE_REF_COMMANDS:
            self.add(node.pos, "ref", name, _arg_text(args[1]))
        elif name in LIST_REF_COMMANDS:
            self.add(node.pos, "ref", name, _arg_text(args[1]), split=True)
        elif name in BLUEPRINT_LIST_COMMANDS:
            self.add(node.pos, "ref", name, _arg_text(args[0]), split=True)
        elif name in RANGE_REF_COMMANDS:
            self.add(node.pos, "ref", name, _arg_text(args[1]))
            self.add(node.pos, "ref", name, _arg_text(args[2]))
        elif name == "hyperref":
            self.add(node.pos, "ref", name, _arg_text(args[0]))
            self.walk([a for a in args[1:] if a is not None])
        elif name in RAW_DEFINITIONS or name in TEX_DEF_COMMANDS or name in ("let", "verb", "lstinline"):
            return
        else:
            self.walk([a for a in args if a is not None])


def _walk_nodes(text: str, wrappers: dict[str, str]):
    w = TolerantWalker(text, latex_context=latex_context(wrappers))
    nodes, _, _ = w.get_latex_nodes()
    return nodes, w.errors


def _iter_nodes(nodes):
    for node in nodes:
        if node is None:
            continue
        yield node
        if isinstance(node, (lw.LatexGroupNode, lw.LatexMathNode, lw.LatexEnvironmentNode)):
            yield from _iter_nodes(node.nodelist)
        if not isinstance(getattr(node, "nodeargd", None), ms.ParsedVerbatimArgs):
            yield from _iter_nodes(_args(node))


def _xparse_to_argspec(spec: str) -> str:
    out = []
    for m in re.finditer(r"[+!]*(?:([mlv])|([so])|O\{[^{}]*\}|[dD].(?:\{[^{}]*\})?.|t.|.)", spec):
        text = m.group()
        if m.group(1):
            out.append("{")
        elif text.lstrip("+!") == "s":
            out.append("*")
        elif text.lstrip("+!")[:1] in ("o", "O", "d", "D"):
            out.append("[")
    return "".join(out)


def find_wrappers(nodes) -> dict[str, str]:
    """Macros defined in this file whose expansion can produce a fact: name -> call argspec."""
    defs: dict[str, tuple[str, str]] = {}  # name -> (argspec, body)
    for node in _iter_nodes(nodes):
        if not isinstance(node, lw.LatexMacroNode):
            continue
        name, args = node.macroname, _args(node)
        if name in RAW_DEFINITIONS and name.endswith("command") or name == "DeclareRobustCommand":
            target = _arg_text(args[1]).strip("{} \n\t\\")
            nargs = _arg_text(args[2]) if args[2] is not None else None
            default = args[3]
            n = int(nargs.strip("[] \t\n")) if nargs and nargs.strip("[] \t\n").isdigit() else 0
            spec = ("[" + "{" * (n - 1)) if default is not None and n >= 1 else "{" * n
            defs.setdefault(target, (spec, _arg_text(args[4])))
        elif name in RAW_DEFINITIONS and name.endswith("DocumentCommand"):
            target = _arg_text(args[0]).strip("{} \n\t\\")
            defs.setdefault(target, (_xparse_to_argspec(_arg_text(args[1])[1:-1]), _arg_text(args[2])))
        elif name in TEX_DEF_COMMANDS:
            target = _arg_text(args[0]).lstrip("\\").strip()
            defs.setdefault(target, ("{" * len(re.findall(r"#[1-9]", _arg_text(args[1]))), _arg_text(args[2])))
        elif name == "let":
            target = _arg_text(args[0]).lstrip("\\").strip()
            defs.setdefault(target, ("", _arg_text(args[1])))  # the body is the aliased token
    wrappers: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for target, (spec, body) in defs.items():
            if target in wrappers or target in STRUCTURAL or not target.isalpha():
                continue  # protected names keep their meaning; pylatexenc names are letters only
            used = set(_CONTROL_WORD.findall(body))
            if used & STRUCTURAL or used & wrappers.keys():
                wrappers[target] = spec
                changed = True
    for target in list(wrappers):  # \let\myref\ref: parse a call like one of the original
        alias = _CONTROL_WORD.fullmatch(defs[target][1].strip())
        if defs[target][0] == "" and alias:
            original = alias.group(1)
            wrappers[target] = wrappers.get(original) or (
                "*[{" if original in SECTION_COMMANDS else "*{{" if original in RANGE_REF_COMMANDS
                else "[{" if original == "hyperref" else "" if original in BLUEPRINT_MARKERS else "*{")
    return wrappers


def _benign(error: lw.LatexWalkerParseError) -> bool:
    # A stray \end{X} whose \begin{X} is in the file that \inputs this one (\end{document}):
    # pylatexenc drops it and reads on, and an \end is not a compared fact.
    return str(error.msg).startswith("Unexpected closing environment:")


def oracle(text: str) -> OracleResult:
    """pylatexenc's reading of ``text``. Raises OracleUnsupported for constructs it cannot model."""
    nodes, errors = _walk_nodes(text, {})
    wrappers = find_wrappers(nodes)
    if wrappers:
        nodes, errors = _walk_nodes(text, wrappers)
    conditionals = TEX_CONDITIONALS | frozenset(_NEWIF.findall(text))
    collector = _Collector(text, wrappers, conditionals)
    collector.walk(nodes)
    bad = [e for e in errors if not _benign(e)]
    return OracleResult(collector.facts, collector.wrapper_spans,
                        [str(e).splitlines()[0] for e in bad],
                        [str(e).splitlines()[0] for e in errors if _benign(e)], collector.iffalse_blocks)


def scanner_facts(text: str, excluded: list[tuple[int, int]] = ()) -> Counter:
    """The same facts from colosseum's scanner; facts starting inside ``excluded`` spans dropped."""
    starts = _line_starts(text)
    spans = sorted(excluded)
    facts: Counter = Counter()
    for ev in scan(text, MacroTable()).events:
        if ev.kind not in ("label", "ref", "begin"):
            continue
        i = bisect_right(spans, (ev.start, float("inf"))) - 1
        if i >= 0 and spans[i][0] <= ev.start < spans[i][1]:
            continue
        line = bisect_right(starts, ev.start)
        if ev.kind == "begin":
            facts[(line, "begin", "", ev.name)] += 1
        else:
            facts[(line, ev.kind, ev.name, ev.value)] += 1
    return facts


def diff_report(text: str, ours: Counter, theirs: Counter, where: str = "") -> str:
    lines = text.splitlines()
    out = [f"scanner and pylatexenc disagree{' on ' + where if where else ''}:"]
    for title, a, b in (("only the scanner (colosseum) finds", ours, theirs),
                        ("only pylatexenc (reference) finds", theirs, ours)):
        extra = a - b
        if extra:
            out.append(f"  {title}:")
            for (line, kind, command, value), count in sorted(extra.items()):
                src = lines[line - 1].strip() if 0 < line <= len(lines) else ""
                what = f"\\begin{{{value}}}" if kind == "begin" else f"{kind} \\{command} {value!r}"
                times = f" x{count}" if count > 1 else ""
                out.append(f"    line {line}: {what}{times}    | {src[:100]}")
    return "\n".join(out)


def compare(text: str, where: str = "") -> OracleResult:
    """Assert that both readings agree; returns the oracle's result (for counting)."""
    reference = oracle(text)
    assert not reference.errors, f"pylatexenc cannot parse {where or 'the input'}: {reference.errors[:3]}"
    ours = scanner_facts(text, reference.wrapper_spans)
    theirs = +reference.facts
    assert ours == theirs, diff_report(text, ours, theirs, where)
    return reference
