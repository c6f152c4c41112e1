"""Hover and claim roles (contracts: Claim roles): on a claim that rests on an axiom, assumption or
hypothesis, the hover says "assumes X" (it is not conditional on it, but proved from it)."""

from __future__ import annotations

import shutil
from pathlib import Path

from colosseum.core.structure import Position
from colosseum.index import ProjectIndex
from colosseum_lsp.context import FeatureContext, Project
from colosseum_lsp.features.navigation import hover

PLACEMENT = Path(__file__).resolve().parent / "projects" / "proof-placement"


def _hover_on(root: Path, needle: str):
    index = ProjectIndex.open(root)
    project = Project(root_dir=root, index=index)
    main = root / "main.tex"
    lines = main.read_text().splitlines()
    line = next(i for i, text in enumerate(lines) if needle in text)
    pos = Position(line, lines[line].index(needle) + len("\\label{") + 1)
    fc = FeatureContext(path=main, project=project, snapshot=index.snapshot, options=None, spawn=None,
                        progress=None, publish=lambda: None, state=project.state, document_version=lambda uri: None)
    return hover(fc, pos).contents.value


def test_hover_on_a_claim_resting_on_assumed_claims_says_what_it_assumes(tmp_path):
    root = tmp_path / "proof-placement"
    shutil.copytree(PLACEMENT, root)
    value = _hover_on(root, "\\label{thm:assumed}")
    assert "status: **proved**" in value
    assert "assumes Axiom `ax:choice`, Hypothesis `hyp:grh`" in value
    # a claim resting on an open conjecture assumes nothing: it is conditional
    other = _hover_on(root, "\\label{thm:open}")
    assert "status: **conditional**" in other and "assumes" not in other


def test_hover_on_an_undefined_reference_says_what_its_finding_says(tmp_path):
    # FLT's \\ref{mazur}: the hover said "not defined anywhere in the project" beside the finding
    # that names the orphan chapter defining it
    root = tmp_path / "p"
    root.mkdir()
    (root / "main.tex").write_text("\\documentclass{article}\n\\begin{document}\nSee \\ref{thm:mazur}.\n"
                                   "\\end{document}\n")
    (root / "old.tex").write_text("\\begin{theorem}\\label{thm:mazur}Old.\\end{theorem}\n")
    index = ProjectIndex.open(root)
    project = Project(root_dir=root, index=index)
    fc = FeatureContext(path=root / "main.tex", project=project, snapshot=index.snapshot, options=None, spawn=None,
                        progress=None, publish=lambda: None, state=project.state, document_version=lambda uri: None)
    value = hover(fc, Position(2, len("See \\ref{") + 2)).contents.value
    assert "not defined anywhere" not in value
    assert "its \\label is in old.tex, which no root includes" in value


HOLDINGS = ("\\documentclass{article}\n\\usepackage{amsthm}\n\\newtheorem{theorem}{Theorem}\n"
            "\\newtheorem{definition}{Definition}\n\\newtheorem{ex}{Exercise}\n\\begin{document}\n"
            "\\section{Done}\\label{sec:done}\n"
            "\\begin{theorem}\\label{thm:a}A\\end{theorem}\\begin{proof}ok\\end{proof}\n"
            "\\begin{theorem}\\label{thm:b}B\\end{theorem}\\begin{proof}ok\\end{proof}\n"
            "\\section{Half}\\label{sec:half}\n"
            "\\begin{theorem}\\label{thm:c}C\\end{theorem}\\begin{proof}ok\\end{proof}\n"
            "\\begin{theorem}\\label{thm:d}D\\end{theorem}\n"
            "\\section{Exercises}\\label{sec:ex}\n"
            "\\begin{definition}\\label{def:x}X\\end{definition}\n\\begin{ex}\\label{ex:one}Show it.\\end{ex}\n"
            "See \\ref{sec:done}, \\ref{sec:half}, \\ref{sec:ex}, \\ref{ex:one}.\n\\end{document}\n")


def _hover_on_ref(root: Path, needle: str) -> str:
    index = ProjectIndex.open(root)
    project = Project(root_dir=root, index=index)
    main = root / "main.tex"
    lines = main.read_text().splitlines()
    line = next(i for i, text in enumerate(lines) if needle in text)
    fc = FeatureContext(path=main, project=project, snapshot=index.snapshot, options=None, spawn=None,
                        progress=None, publish=lambda: None, state=project.state, document_version=lambda uri: None)
    return hover(fc, Position(line, lines[line].index(needle) + len("\\ref{") + 1)).contents.value


def test_hover_on_a_section_says_what_it_holds_not_that_it_is_proved(tmp_path):
    # the audit: a section was "status: **proved**"; "proved" is said of results
    root = tmp_path / "p"
    root.mkdir()
    (root / "main.tex").write_text(HOLDINGS)
    done, half, exercises = (_hover_on_ref(root, f"\\ref{{{s}}}") for s in ("sec:done", "sec:half", "sec:ex"))
    assert "holds: **all 2 claims proved**" in done and "proved**" not in done.replace("claims proved**", "")
    assert "holds: **1 of 2 open**" in half
    assert "holds: **nothing owed" in exercises and "status:" not in exercises


def test_hover_on_an_exercise_says_stated_not_proved(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "main.tex").write_text(HOLDINGS)
    value = _hover_on_ref(root, "\\ref{ex:one}")
    assert "status: **stated (no proof expected)**" in value and "proved" not in value
