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
