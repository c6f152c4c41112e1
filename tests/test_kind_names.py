"""A claim's kind as the paper prints it, for the outline and hover: the declared name."""

from __future__ import annotations

from colosseum.index import ProjectIndex

PAPER = r"""\documentclass{article}
\usepackage{amsthm,thmtools}
\newtheorem{lem}{Lemma}
\newtheorem*{thm*}{ Main Theorem }
\declaretheorem[name=Observation]{obs}
\newtheorem{fr}{Th\'eor\`eme}
\begin{document}
\begin{lem}\label{lem:a}A.\end{lem}
\begin{thm*}\label{thm:m}M.\end{thm*}
\begin{obs}\label{obs:o}O.\end{obs}
\begin{fr}\label{fr:t}T.\end{fr}
\begin{lemma}\label{lemma:l}L.\end{lemma}
\end{document}
"""


def test_the_declared_name_names_the_kind(make_project, tmp_path):
    snap = ProjectIndex.open(make_project(tmp_path, {"main.tex": PAPER})).snapshot
    names = {cid: snap.kind_name(claim.kind) for cid, claim in snap.claims.items()}
    # a name with TeX accents in it is not shown raw: the environment's own name instead
    assert names == {"lem:a": "Lemma", "thm:m": "Main Theorem", "obs:o": "Observation", "fr:t": "Fr",
                     "lemma:l": "Lemma"}
