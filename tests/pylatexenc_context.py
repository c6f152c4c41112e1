"""What LaTeX and its packages mean, written down for the pylatexenc oracle (pylatexenc_oracle.py)
independently of ``colosseum.latex.macros``: the commands whose facts are compared, and how pylatexenc's
walker is taught to read them.

The oracle is pylatexenc's walker with the default context plus a category of our own
(``ORACLE_CATEGORY``) that teaches it the argument shapes of the commands below, the
verbatim-like environments of listings/minted/comment/fancyvrb, and TeX's definition commands.
Definition bodies are read as raw balanced text, not parsed, as TeX does. Places where
pylatexenc itself is wrong for our purpose are corrected here, each with its reason:

* its ``\\verb`` takes ``*`` of ``\\verb*|x|`` as the delimiter and lets the text run over line
  ends; its verbatim environment only knows ``verbatim``;
* it has no ``\\paragraph`` / ``\\part`` (its default context spells ``pagagraph``).

It does not skip ``\\iffalse ... \\fi`` either: pylatexenc_oracle.py does that itself.
"""

from __future__ import annotations

from pylatexenc import latexwalker as lw
from pylatexenc import macrospec as ms

# ---- what LaTeX and its packages mean (written down here, independent of colosseum.latex.macros) ------
LABEL_COMMANDS = ("label",)
# one label per argument (a comma is part of the label)
SINGLE_REF_COMMANDS = (
    "ref", "eqref", "pageref", "nameref", "Nameref", "autoref", "Autoref", "vpageref", "namecref",
    "nameCref", "lcnamecref", "titleref", "fullref", "autopageref",
)
# cleveref (and varioref under cleveref): comma-separated lists
LIST_REF_COMMANDS = ("cref", "Cref", "cpageref", "Cpageref", "labelcref", "labelcpageref", "vref", "Vref")
RANGE_REF_COMMANDS = ("crefrange", "Crefrange", "cpagerefrange", "Cpagerefrange")
BLUEPRINT_LIST_COMMANDS = ("uses", "proves")  # leanblueprint: comma-separated lists
SECTION_COMMANDS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph")
BLUEPRINT_ONE_ARG = ("lean", "discussion", "inputleannode")
BLUEPRINT_MARKERS = ("leanok", "notready", "mathlibok", "obligation")
VERBATIM_ENVIRONMENTS = (
    "verbatim", "verbatim*", "Verbatim", "Verbatim*", "BVerbatim", "LVerbatim", "spverbatim",
    "lstlisting", "minted", "comment", "filecontents", "filecontents*",
)
# TeX definition commands: argument shapes, read raw ('*' star, '[' optional, '{' mandatory)
RAW_DEFINITIONS = {
    "newcommand": "*{[[{", "renewcommand": "*{[[{", "providecommand": "*{[[{",
    "DeclareRobustCommand": "*{[[{",
    "newenvironment": "*{[[{{", "renewenvironment": "*{[[{{", "provideenvironment": "*{[[{{",
    "NewDocumentCommand": "{{{", "RenewDocumentCommand": "{{{", "ProvideDocumentCommand": "{{{",
    "DeclareDocumentCommand": "{{{",
    "NewDocumentEnvironment": "{{{{", "RenewDocumentEnvironment": "{{{{",
}
TEX_DEF_COMMANDS = ("def", "gdef", "edef", "xdef")
# Commands whose expansion can produce a compared fact: a macro whose body mentions one is a
# "wrapper" (see pylatexenc_oracle.py).
STRUCTURAL = frozenset(
    LABEL_COMMANDS + SINGLE_REF_COMMANDS + LIST_REF_COMMANDS + RANGE_REF_COMMANDS + BLUEPRINT_LIST_COMMANDS
    + SECTION_COMMANDS + BLUEPRINT_ONE_ARG + BLUEPRINT_MARKERS
    + ("begin", "end", "hyperref", "input", "include", "subfile", "import", "subimport",
       "newtheorem", "declaretheorem", "theoremstyle", "verb", "lstinline", "iffalse")
    + tuple(RAW_DEFINITIONS) + TEX_DEF_COMMANDS + ("let",)
)
# TeX's conditionals (primitives, e-TeX, pdfTeX, LuaTeX): what \iffalse-skipping counts.
TEX_CONDITIONALS = frozenset((
    "if", "ifcat", "ifnum", "ifdim", "ifodd", "ifvmode", "ifhmode", "ifmmode", "ifinner", "ifvoid",
    "ifhbox", "ifvbox", "ifx", "ifeof", "iftrue", "iffalse", "ifcase", "ifdefined", "ifcsname",
    "iffontchar", "ifincsname", "ifpdfprimitive", "ifpdfabsnum", "ifpdfabsdim", "ifprimitive",
    "ifabsnum", "ifabsdim",
))


# ---- argument parsers for the oracle's own category ------------------------------------------------
def _tok(w, pos, parsing_state):
    return w.get_token(pos, environments=False, parsing_state=parsing_state)


def _raw_balanced(w, tok, parsing_state, close_char=None):
    """From an opening token, read tokens up to the matching closer; returns the end offset.

    ``close_char`` None: a ``{...}`` group; ``"]"``: an optional argument ending at a ``]`` that
    is not inside braces. Comments are tokens of their own, so braces in them do not count."""
    depth = 0
    p = tok.pos + tok.len
    while True:
        t = _tok(w, p, parsing_state)  # raises LatexWalkerEndOfStream at the end: a parse error
        p = t.pos + t.len
        if t.tok == "brace_open":
            depth += 1
        elif t.tok == "brace_close":
            if depth == 0 and close_char is None:
                return p
            depth -= 1
        elif close_char is not None and depth == 0 and t.tok == "char" and t.arg == close_char:
            return p


def _chars(w, parsing_state, start, end):
    return w.make_node(lw.LatexCharsNode, parsing_state=parsing_state, chars=w.s[start:end], pos=start,
                       len=end - start)


class RawArgsParser(ms.MacroStandardArgsParser):
    """Arguments read like TeX reads a definition: balanced text, never interpreted."""

    def parse_args(self, w, pos, parsing_state=None):
        parsing_state = parsing_state or w.make_parsing_state()
        argnlist = []
        p = pos
        for kind in self.argspec:
            try:
                t = _tok(w, p, parsing_state)
            except lw.LatexWalkerEndOfStream:
                if kind == "{":
                    raise
                argnlist.append(None)
                continue
            while t.tok == "comment":
                t = _tok(w, t.pos + t.len, parsing_state)
            if kind == "*":
                if t.tok == "char" and t.arg == "*":
                    argnlist.append(_chars(w, parsing_state, t.pos, t.pos + 1))
                    p = t.pos + 1
                else:
                    argnlist.append(None)
            elif kind == "[":
                if t.tok == "char" and t.arg == "[":
                    end = _raw_balanced(w, t, parsing_state, close_char="]")
                    argnlist.append(_chars(w, parsing_state, t.pos, end))
                    p = end
                else:
                    argnlist.append(None)
            else:
                end = _raw_balanced(w, t, parsing_state) if t.tok == "brace_open" else t.pos + t.len
                argnlist.append(_chars(w, parsing_state, t.pos, end))
                p = end
        return ms.ParsedMacroArgs(argnlist=argnlist, argspec=self.argspec), pos, p - pos


class TexDefArgsParser(ms.MacroStandardArgsParser):
    """``\\def\\name<parameter text>{body}``: the name, the parameter text, the raw body."""

    def __init__(self):
        super().__init__("{{{")

    def parse_args(self, w, pos, parsing_state=None):
        parsing_state = parsing_state or w.make_parsing_state()
        name = _tok(w, pos, parsing_state)
        p = name.pos + name.len
        params_start = p
        while True:
            t = _tok(w, p, parsing_state)
            if t.tok == "brace_open":
                break
            p = t.pos + t.len
        end = _raw_balanced(w, t, parsing_state)
        argnlist = [_chars(w, parsing_state, name.pos, name.pos + name.len),
                    _chars(w, parsing_state, params_start, t.pos), _chars(w, parsing_state, t.pos, end)]
        return ms.ParsedMacroArgs(argnlist=argnlist, argspec="{{{"), pos, end - pos


class LetArgsParser(ms.MacroStandardArgsParser):
    """``\\let\\a\\b`` or ``\\let\\a = \\b``: two tokens, never read as a call of ``\\b``."""

    def __init__(self):
        super().__init__("{{")

    def parse_args(self, w, pos, parsing_state=None):
        parsing_state = parsing_state or w.make_parsing_state()
        first = _tok(w, pos, parsing_state)
        second = _tok(w, first.pos + first.len, parsing_state)
        if second.tok == "char" and second.arg == "=":
            second = _tok(w, second.pos + 1, parsing_state)
        end = second.pos + second.len
        argnlist = [_chars(w, parsing_state, first.pos, first.pos + first.len),
                    _chars(w, parsing_state, second.pos, end)]
        return ms.ParsedMacroArgs(argnlist=argnlist, argspec="{{"), pos, end - pos


class VerbArgsParser(ms.MacroStandardArgsParser):
    """``\\verb|x|``, ``\\verb*|x|``, ``\\lstinline[opts]|x|``, ``\\lstinline{x}``.

    Replaces pylatexenc's own ``\\verb`` parser, which reads the ``*`` of ``\\verb*`` as the
    delimiter and lets the text run over line ends (LaTeX: "\\verb ended by end of line")."""

    def __init__(self, lstinline=False):
        super().__init__("{")
        self.lstinline = lstinline

    def parse_args(self, w, pos, parsing_state=None):
        s = w.s
        p = pos
        if not self.lstinline and p < len(s) and s[p] == "*":
            p += 1
        if self.lstinline and p < len(s) and s[p] == "[":
            close = s.find("]", p)
            if close == -1:
                raise lw.LatexWalkerParseError(s=s, pos=pos, msg="\\lstinline: unclosed options")
            p = close + 1
        if p >= len(s) or s[p].isspace():
            raise lw.LatexWalkerParseError(s=s, pos=pos, msg="\\verb without a delimiter")
        close_char = "}" if (self.lstinline and s[p] == "{") else s[p]
        close = s.find(close_char, p + 1)
        eol = s.find("\n", p + 1)
        if close == -1 or (eol != -1 and close > eol):
            raise lw.LatexWalkerParseError(s=s, pos=pos, msg="\\verb ended by end of line")
        node = _chars(w, parsing_state or w.make_parsing_state(), p + 1, close)
        return ms.ParsedVerbatimArgs(verbatim_chars_node=node, verbatim_delimiters=(s[p], close_char)), pos, close + 1 - pos


class LineBreakArgsParser(ms.MacroStandardArgsParser):
    """``\\\\*[2mm]``, as in pylatexenc's default context, but ``\\\\`` at the very end of the input
    is not an error (pylatexenc's star lookahead raises there)."""

    def __init__(self):
        super().__init__("*[", optional_arg_no_space=True)

    def parse_args(self, w, pos, parsing_state=None):
        if not w.s[pos:].strip():
            return ms.ParsedMacroArgs(argnlist=[None, None], argspec="*["), pos, 0
        return super().parse_args(w, pos, parsing_state=parsing_state)


class VerbatimEnvArgsParser(ms.MacroStandardArgsParser):
    """The body of a verbatim-like environment ends at the first ``\\end{name}``, verbatim."""

    def __init__(self, name):
        super().__init__("{")
        self.closing = "\\end{" + name + "}"

    def parse_args(self, w, pos, parsing_state=None):
        end = w.s.find(self.closing, pos)
        if end == -1:
            raise lw.LatexWalkerParseError(s=w.s, pos=pos, msg=f"{self.closing} is missing")
        node = _chars(w, parsing_state or w.make_parsing_state(), pos, end)
        return ms.ParsedVerbatimArgs(verbatim_chars_node=node), pos, end - pos


def _oracle_category() -> tuple[list, list]:
    macros = [ms.MacroSpec(n, "{") for n in LABEL_COMMANDS]
    macros += [ms.MacroSpec(n, "*{") for n in SINGLE_REF_COMMANDS + LIST_REF_COMMANDS]
    macros += [ms.MacroSpec(n, "*{{") for n in RANGE_REF_COMMANDS]
    macros += [ms.MacroSpec("hyperref", "[{")]
    macros += [ms.MacroSpec(n, "{") for n in BLUEPRINT_LIST_COMMANDS + BLUEPRINT_ONE_ARG]
    macros += [ms.MacroSpec(n, "") for n in BLUEPRINT_MARKERS]
    macros += [ms.MacroSpec(n, "*[{") for n in SECTION_COMMANDS]
    macros += [ms.MacroSpec(n, "{") for n in ("input", "include", "subfile", "theoremstyle")]
    macros += [ms.MacroSpec(n, "*{{") for n in ("import", "subimport")]
    macros += [ms.MacroSpec("newtheorem", "*{[{[")]
    macros += [ms.MacroSpec(n, args_parser=RawArgsParser(spec)) for n, spec in RAW_DEFINITIONS.items()]
    macros += [ms.MacroSpec(n, args_parser=TexDefArgsParser()) for n in TEX_DEF_COMMANDS]
    macros += [ms.MacroSpec("let", args_parser=LetArgsParser())]
    macros += [ms.MacroSpec("\\", args_parser=LineBreakArgsParser())]
    macros += [ms.MacroSpec("verb", args_parser=VerbArgsParser()),
               ms.MacroSpec("lstinline", args_parser=VerbArgsParser(lstinline=True))]
    environments = [ms.EnvironmentSpec(n, args_parser=VerbatimEnvArgsParser(n)) for n in VERBATIM_ENVIRONMENTS]
    return macros, environments


ORACLE_CATEGORY = "colosseum-oracle"


def latex_context(wrappers: dict[str, str]):
    """pylatexenc's default context, our category and the file's wrapper macros (name -> argspec)."""
    db = lw.get_default_latex_context_db()
    macros, environments = _oracle_category()
    db.add_context_category(ORACLE_CATEGORY, macros=macros, environments=environments, prepend=True)
    if wrappers:
        db.add_context_category("project-wrappers", prepend=True,
                                macros=[ms.MacroSpec(n, spec) for n, spec in wrappers.items()])
    return db


class TolerantWalker(lw.LatexWalker):
    """pylatexenc's walker, tolerant, remembering the parse errors it recovered from."""

    def __init__(self, s, **kwargs):
        super().__init__(s, tolerant_parsing=True, **kwargs)
        self.errors: list[lw.LatexWalkerParseError] = []

    def _report_ignore_parse_error(self, exc):
        self.errors.append(exc)
