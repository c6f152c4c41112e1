"""Separate documents in one folder (an old copy of the paper, two papers side by side): said, with
the way out; a folder with its own colosseum.toml is a project of its own."""

from __future__ import annotations

from colosseum.checks.findings import compute_diagnostics
from colosseum.index import ProjectIndex
from colosseum.core.structure import Position

PAPER = ("\\documentclass{article}\n\\usepackage{amsthm}\n\\newtheorem{lemma}{Lemma}\n\\begin{document}\n"
         "\\input{sections/body}\n\\end{document}\n")
BODY = "\\begin{lemma}\\label{lem:a}A.\\end{lemma}\n\\begin{lemma}\\label{lem:b}By \\cref{lem:a}.\\end{lemma}\n"


def separate(index):
    return [d for d in compute_diagnostics(index) if d.code == "colosseum/separate-documents"]


def test_an_old_copy_beside_the_paper_is_named_at_both_roots(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": PAPER, "sections/body.tex": BODY,
                                   "old/main.tex": "% the submitted version\n" + PAPER, "old/sections/body.tex": BODY})
    found = separate(ProjectIndex.open(root))
    assert [(d.file.relative_to(root).as_posix(), d.range.start) for d in found] == [
        ("main.tex", Position(0, 0)), ("old/main.tex", Position(1, 0))]
    assert all(d.severity == "warning" for d in found)
    assert "main.tex and old/main.tex are separate documents" in found[0].message
    assert "`lem:a`, `lem:b`" in found[0].message and "colosseum.toml" in found[0].message


def test_roots_that_share_a_chapter_or_no_label_are_not_named(make_project, tmp_path):
    blueprint = make_project(tmp_path / "bp", {"web.tex": PAPER, "print.tex": PAPER, "sections/body.tex": BODY})
    assert len(ProjectIndex.open(blueprint).root_results) == 2
    assert separate(ProjectIndex.open(blueprint)) == []
    # through a third root that reads both: one document
    joined = make_project(tmp_path / "joined", {
        "a.tex": PAPER.replace("sections/body", "one"), "one.tex": BODY,
        "b.tex": PAPER.replace("sections/body", "two"), "two.tex": BODY,
        "all.tex": PAPER.replace("\\input{sections/body}", "\\input{one}\\input{two}")})
    assert separate(ProjectIndex.open(joined)) == []
    apart = make_project(tmp_path / "apart", {"a.tex": PAPER.replace("sections/body", "one"), "one.tex": BODY,
                                              "b.tex": PAPER.replace("sections/body", "two"),
                                              "two.tex": BODY.replace("lem:", "other:")})
    assert separate(ProjectIndex.open(apart)) == []


def test_a_folder_with_its_own_colosseum_toml_is_its_own_project(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": PAPER, "sections/body.tex": BODY,
                                   "old/colosseum.toml": "", "old/main.tex": PAPER, "old/sections/body.tex": BODY})
    index = ProjectIndex.open(root)
    assert index.roots == [(root / "main.tex").resolve()]
    assert [d.code for d in compute_diagnostics(index)] == ["colosseum/unused-label"]  # lem:b, and only once
    assert ProjectIndex.open(root / "old").roots == [(root / "old" / "main.tex").resolve()]


def test_a_label_that_a_second_document_comes_to_define_is_named_after_the_edit(make_project, tmp_path):
    # adding a \label changes no structure: the index kept up to date must still name it, as a
    # cold one does
    root = make_project(tmp_path, {"main.tex": PAPER, "sections/body.tex": BODY,
                                   "old/main.tex": PAPER, "old/sections/body.tex": BODY.replace("lem:", "old:")})
    index = ProjectIndex.open(root)

    def named() -> list[str]:
        return [d.file.relative_to(root).as_posix() for d in index.diagnostics()
                if d.code == "colosseum/separate-documents"]
    assert named() == []
    body = root / "old" / "sections" / "body.tex"
    index.update_document(body, body.read_text().replace("\\label{old:a}", "\\label{old:a}\\label{lem:a}"))
    assert named() == ["main.tex", "old/main.tex"]
    index.update_document(body, body.read_text())
    assert named() == []
