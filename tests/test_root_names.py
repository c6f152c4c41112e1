"""What a project with several roots says does not depend on what its roots are called.

The rule: the project is the union of its roots' readings. A reference that is a reference in
some root is an edge; a label defined in some root is a node; files are ordered so that each
root's reading order holds where the roots agree. Renaming the roots (which changes the order
they are listed and read in) changes none of it.
"""

from __future__ import annotations

import json

from colosseum.cli.main import main
from colosseum.index import ProjectIndex

COMMON = ("\\newcommand{\\Chapter}[2]{\\chapter{#2}\\label{ch:#1}}\n"
          "\\newcommand{\\chapref}[1]{\\ref{ch:#1}}\n")
SOLO_COMMON = "\\renewcommand{\\Chapter}[2]{\\setcounter{chapter}{#1}{\\Huge #2}}\n\\renewcommand{\\chapref}[1]{#1}\n"
CH1 = "\\Chapter{1}{One}\nText.\n\\begin{lemma}\\label{lem:one}\nL.\n\\end{lemma}\n"
CH2 = "\\Chapter{2}{Two}\nAs in Chapter \\chapref{1}.\n\\begin{theorem}\\label{thm:two}\nBy \\chapref{1}.\n\\end{theorem}\n"
SOLO = "\\documentclass{book}\n\\input{common}\n\\input{solo-common}\n\\begin{document}\n\\input{ch2}\n\\end{document}\n"
FULL = "\\documentclass{book}\n\\input{common}\n\\begin{document}\n\\input{ch1}\n\\input{ch2}\n\\end{document}\n"


def _project(make_project, path, full_name: str, solo_name: str):
    return make_project(path, {"common.tex": COMMON, "solo-common.tex": SOLO_COMMON, "ch1.tex": CH1,
                               "ch2.tex": CH2, full_name: FULL, solo_name: SOLO})


def _dag(project, capsys) -> dict:
    capsys.readouterr()
    main(["dag", str(project), "--format", "json"])
    return json.loads(capsys.readouterr().out)


def _index_facts(project) -> dict:
    index = ProjectIndex.open(project)
    return {
        "claims": {cid: (c.kind, c.section, sorted((r.label, r.owner) for r in c.references))
                   for cid, c in index.claims.items()},
        "sections": {sid: (s.parent, sorted((r.label, r.owner) for r in s.references))
                     for sid, s in index.sections.items()},
        "labels": {name: [label.owner for label in labels] for name, labels in index.labels.items()},
        "label_owner": dict(index.label_owner),
        "references": [(r.label, r.owner, r.part) for r in index.references],
        "edges": sorted(index.graph.edges),
    }


def test_renaming_the_roots_does_not_change_the_dag(tmp_path, make_project, capsys):
    full_first = _dag(_project(make_project, tmp_path / "a", "full.tex", "solo2.tex"), capsys)
    full_last = _dag(_project(make_project, tmp_path / "b", "zfull.tex", "solo2.tex"), capsys)
    edges = {(e["source"], e["target"], e["kind"]) for e in full_first["edges"]}
    # the full root reads chapter 1 before chapter 2, and \chapref there is a reference
    assert ("ch:1", "ch:2", "statement-uses") in edges
    assert ("ch:1", "thm:two", "statement-uses") in edges
    assert full_last == full_first


def test_renaming_the_roots_does_not_change_the_index(tmp_path, make_project):
    one = _index_facts(_project(make_project, tmp_path / "a", "full.tex", "solo2.tex"))
    other = _index_facts(_project(make_project, tmp_path / "b", "zfull.tex", "solo2.tex"))
    assert one["label_owner"]["ch:1"] == "ch:1" and one["claims"]["thm:two"][1] == "ch:2"
    assert other == one
