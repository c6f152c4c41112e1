"""Include file names written with the author's plain-text macros, and \\InputIfFileExists."""

from __future__ import annotations

from colosseum.checks.findings import compute_diagnostics
from colosseum.latex.include_names import expand_include_name
from colosseum.index import ProjectIndex

MAIN = r"""\documentclass{article}
\usepackage{amsthm}
\newtheorem{lemma}{Lemma}
\newcommand{\chapdir}{chapters}
\def\sub{chap}
% \renewcommand{\chapdir}{wrong}
\begin{document}
\input{\chapdir/one}
\include{\chapdir/\sub ters-two}
\InputIfFileExists{chapters/three}{}{}
\InputIfFileExists{chapters/none}{}{}
\input{\unknowndir/x}
\end{document}
"""


def test_macros_in_file_names_are_expanded_and_optional_inputs_are_optional(make_project, tmp_path):
    index = ProjectIndex.open(make_project(tmp_path, {
        "main.tex": MAIN,
        "chapters/one.tex": "\\begin{lemma}\\label{lem:one}A\\end{lemma}\n",
        "chapters/chapters-two.tex": "\\begin{lemma}\\label{lem:two}B by \\cref{lem:one,lem:three}\\end{lemma}\n",
        "chapters/three.tex": "\\begin{lemma}\\label{lem:three}C\\end{lemma}\n"}))
    assert set(index.claims) == {"lem:one", "lem:two", "lem:three"}
    found = [(d.code, d.range.start.line) for d in compute_diagnostics(index) if d.code != "colosseum/unused-label"]
    # the missing optional file is no finding; the macro nobody defines is said as such
    assert found == [("colosseum/unresolved-input", 11)]
    (message,) = [d.message for d in compute_diagnostics(index) if d.code == "colosseum/unresolved-input"]
    assert "\\unknowndir" in message and "not found" not in message


def test_expansion_is_bounded_and_skips_commented_definitions():
    assert expand_include_name("\\a/x", ["\\newcommand\\a{\\a}"]) == ("\\a/x", ["a"])  # a body with a command: not plain
    assert expand_include_name("\\a/x", ["\\def\\a{b}\n% \\def\\a{c}"]) == ("b/x", [])
    assert expand_include_name("\\a/x", ["\\providecommand*{\\a}{ dir }"]) == ("dir/x", [])
