"""Undefined citations: ``\\cite``-family keys against the project's bibliography (.bib files named
by ``\\bibliography``/``\\addbibresource``, and ``\\bibitem``), duplicate .bib keys, a broken .bib."""

from __future__ import annotations

from colosseum.index import ProjectIndex
from colosseum.project.bibliography import read_bib
from index_fingerprint import differences, fingerprint

MAIN = "\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n"
BIB = "@article{knuth84, author={Donald E. Knuth}, title={Literate Programming}, year=1984}\n" \
      "@book{lamport94, author = \"Leslie Lamport\", title = \"{LaTeX}: A Document Preparation System\", year = 1994}\n"


def _findings(index: ProjectIndex, name: str) -> list:
    return [d for d in index.diagnostics() if d.code == f"colosseum/{name}"]


def _open(make_project, tmp_path, body: str, files: dict | None = None) -> ProjectIndex:
    return ProjectIndex.open(make_project(tmp_path, {"main.tex": MAIN % body, **(files or {})}))


def test_an_undefined_key_is_found_with_its_near_miss(make_project, tmp_path):
    index = _open(make_project, tmp_path, "See \\cite{knuth85} and \\citep[p.~3]{lamport94}.\n\\bibliography{refs}",
                  {"refs.bib": BIB})
    found = _findings(index, "undefined-citation")
    assert len(found) == 1
    assert found[0].severity == "warning"
    assert "`knuth85`" in found[0].message and "did you mean `knuth84`?" in found[0].message
    assert found[0].range.start.line == 2 and found[0].range.start.character == len("See \\cite{")


def test_keys_defined_in_the_bib_and_by_bibitem_are_not_findings(make_project, tmp_path):
    index = _open(make_project, tmp_path, "\\cite{knuth84,lamport94} \\citet{own}\n\\bibliography{refs}\n"
                  "\\begin{thebibliography}{9}\n\\bibitem[Own]{own} Ourselves.\n\\end{thebibliography}",
                  {"refs.bib": BIB})
    assert _findings(index, "undefined-citation") == []


def test_thebibliography_alone_is_a_bibliography(make_project, tmp_path):
    index = _open(make_project, tmp_path, "\\cite{own} \\cite{other}\n"
                  "\\begin{thebibliography}{9}\n\\bibitem{own} Ourselves.\n\\end{thebibliography}")
    assert [d.message.split(":")[0] for d in _findings(index, "undefined-citation")] == ["undefined citation `other`"]


def test_every_key_of_one_cite_is_judged(make_project, tmp_path):
    index = _open(make_project, tmp_path, "\\cite{knuth84, nobody, lamport94,ghost}\n\\bibliography{refs}",
                  {"refs.bib": BIB})
    assert sorted(d.message.split("`")[1] for d in _findings(index, "undefined-citation")) == ["ghost", "nobody"]


def test_biblatex_addbibresource_and_multicite(make_project, tmp_path):
    index = ProjectIndex.open(make_project(tmp_path, {"refs/all.bib": BIB, "main.tex": (
        "\\documentclass{article}\n\\usepackage{biblatex}\n\\addbibresource{refs/all.bib}\n"
        "\\begin{document}\n\\textcites[p.~1]{knuth84}{lamport95} \\autocite{knuth84}\n\\end{document}\n")}))
    found = _findings(index, "undefined-citation")
    assert [d.message.split("`")[1] for d in found] == ["lamport95"]
    assert "did you mean `lamport94`?" in found[0].message


def test_no_bibliography_no_findings(make_project, tmp_path):
    index = _open(make_project, tmp_path, "\\cite{anything} \\citep{else}")
    assert [d for d in index.diagnostics() if "cit" in d.code or "bib" in d.code] == []


def test_a_duplicate_bib_key_is_an_error_at_each_entry(make_project, tmp_path):
    bib = BIB + "@misc{knuth84, title={Again}}\n"
    index = _open(make_project, tmp_path, "\\cite{knuth84}\n\\bibliography{refs}", {"refs.bib": bib})
    found = _findings(index, "duplicate-bib-key")
    assert [(d.file.name, d.range.start.line, d.severity) for d in found] == [("refs.bib", 0, "error"),
                                                                             ("refs.bib", 2, "error")]
    assert "defined 2 times" in found[0].message


def test_a_broken_bib_does_not_crash_and_says_where(make_project, tmp_path):
    broken = BIB + "@article{broken, title={never closed, year=2000\n@book{after, title={A}}\n"
    index = _open(make_project, tmp_path, "\\cite{knuth84} \\cite{broken}\n\\bibliography{refs}", {"refs.bib": broken})
    syntax = _findings(index, "bib-syntax")
    assert len(syntax) == 1 and syntax[0].range.start.line == 2 and "`broken`" in syntax[0].message
    assert _findings(index, "undefined-citation") == []  # its key is still read


def test_the_reader_never_raises_on_garbage():
    for text in ["@", "@article", "@article{", "@article{k,", "@article{k, title=", "@article{k, title={",
                 "@article{k, title=\"x", "@string{", "@comment{{{", "}}}@@@{", "@article(k, title={x})",
                 "@article{k, title = x # {y} # \"z\"}", "\x00@misc{\x00}"]:
        read_bib(text)
    assert [e.key for e in read_bib("@article(k, title={x})").entries] == ["k"]
    entry = read_bib("@article{k, title = {A} # \" B\", year = 1999}").entries[0]
    assert entry.fields == {"title": "A B", "year": "1999"}


def test_a_missing_bib_is_reported_and_citations_are_not_judged(make_project, tmp_path):
    index = _open(make_project, tmp_path, "\\cite{anything}\n\\bibliography{nowhere}")
    assert [d.code for d in index.diagnostics() if "bib" in d.code or "cit" in d.code] == ["colosseum/missing-bibliography"]


def test_a_bib_outside_the_project_is_not_read(make_project, tmp_path):
    (tmp_path / "shared.bib").write_text(BIB, encoding="utf-8")
    index = _open(make_project, tmp_path / "paper", "\\cite{knuth84}\n\\bibliography{../shared}")
    found = [d for d in index.diagnostics() if "bib" in d.code or "cit" in d.code]
    assert [d.code for d in found] == ["colosseum/missing-bibliography"]
    assert "outside the project" in found[0].message
    assert index.snapshot.bibliography == {}


def test_an_edited_bib_is_judged_again_and_matches_a_cold_index(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": MAIN % "\\cite{knuth84} \\cite{turing36}\n\\bibliography{refs}",
                                   "refs.bib": BIB})
    index = ProjectIndex.open(root)
    assert [d.message.split("`")[1] for d in _findings(index, "undefined-citation")] == ["turing36"]
    assert index.snapshot.bibliography["knuth84"].fields["title"] == "Literate Programming"
    # on disk (the watcher's event), then from the editor
    (root / "refs.bib").write_text(BIB + "@article{turing36, title={On Computable Numbers}}\n", encoding="utf-8")
    index.update_document(root / "refs.bib", None)
    assert _findings(index, "undefined-citation") == []
    assert not differences(fingerprint(index), fingerprint(ProjectIndex.open(root)))
    index.update_document(root / "refs.bib", BIB.replace("knuth84", "knuth1984"))
    assert sorted(d.message.split("`")[1] for d in _findings(index, "undefined-citation")) == ["knuth84", "turing36"]
    (root / "refs.bib").write_text(BIB.replace("knuth84", "knuth1984"), encoding="utf-8")
    index.close_document(root / "refs.bib")
    assert not differences(fingerprint(index), fingerprint(ProjectIndex.open(root)))
    # and an edit of a citation in the .tex
    (root / "main.tex").write_text(MAIN % "\\cite{knuth1984}\n\\bibliography{refs}", encoding="utf-8")
    index.update_document(root / "main.tex", None)
    assert _findings(index, "undefined-citation") == []
    assert not differences(fingerprint(index), fingerprint(ProjectIndex.open(root)))


def test_commented_citations_and_a_bibliography_named_by_a_macro(make_project, tmp_path):
    index = _open(make_project, tmp_path, "% \\cite{commented}\n100\\% \\cite{knuth84}\n\\bibliography{refs}",
                  {"refs.bib": BIB})
    assert [d for d in index.diagnostics() if "cit" in d.code or "bib" in d.code] == []
    # a file name the index cannot know: not followed, and no citation judged against a partial list
    index = _open(make_project, tmp_path / "b", "\\cite{anything}\n\\bibliography{refs,\\jobname}", {"refs.bib": BIB})
    assert [d for d in index.diagnostics() if "cit" in d.code or "bib" in d.code] == []


def test_near_misses_follow_the_keys_from_one_build_to_the_next(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": MAIN % "\\cite{knuth85}\n\\bibliography{refs}", "refs.bib": BIB})
    index = ProjectIndex.open(root)
    assert "did you mean `knuth84`?" in _findings(index, "undefined-citation")[0].message
    index.update_document(root / "refs.bib", BIB + "@misc{knuth86, title={T}}\n")
    assert "did you mean `knuth84` or `knuth86`?" in _findings(index, "undefined-citation")[0].message


def test_each_root_is_judged_against_its_own_bibliography(make_project, tmp_path):
    """Two documents sharing a chapter: one has a bibliography, the other none (no findings of its own)."""
    doc = "\\documentclass{article}\n\\begin{document}\n\\input{chapter}\n%s\n\\end{document}\n"
    root = make_project(tmp_path, {"colosseum.toml": 'roots = ["a.tex", "b.tex"]\n',
                                   "a.tex": doc % "\\bibliography{refs}", "b.tex": doc % "",
                                   "chapter.tex": "\\cite{knuth84} \\cite{ghost}\n", "refs.bib": BIB})
    index = ProjectIndex.open(root)
    [found] = _findings(index, "undefined-citation")
    assert found.file.name == "chapter.tex" and "`ghost`" in found.message and "when built from a.tex" in found.message


def test_a_bibitem_twice_is_a_duplicate(make_project, tmp_path):
    index = _open(make_project, tmp_path, "\\cite{own}\n\\begin{thebibliography}{9}\n\\bibitem{own} A.\n"
                  "\\bibitem{own} B.\n\\end{thebibliography}")
    assert [d.range.start.line for d in _findings(index, "duplicate-bib-key")] == [4, 5]


def test_wrappers_settings_and_remote_resources_are_not_citations(make_project, tmp_path):
    index = _open(make_project, tmp_path, "\\newcommand{\\mycite}[1]{\\cite{#1}}\\citestyle{plain}\n"
                  "\\mycite{knuth84} \\cite{knuth84}\n\\bibliography{refs}", {"refs.bib": BIB})
    assert [d for d in index.diagnostics() if "cit" in d.code or "bib" in d.code] == []
    index = _open(make_project, tmp_path / "remote", "\\cite{x}\n\\addbibresource[location=remote]{http://a.org/r.bib}")
    assert [d for d in index.diagnostics() if "cit" in d.code or "bib" in d.code] == []


def test_verbatim_and_iffalse_hold_no_citations(make_project, tmp_path):
    index = _open(make_project, tmp_path, "\\begin{verbatim}\n\\cite{verbatim}\n\\end{verbatim}\n\\verb|\\cite{verb}|\n"
                  "\\iffalse \\cite{hidden} \\fi \\cite{shown}\n\\bibliography{refs}", {"refs.bib": BIB})
    assert [d.message.split("`")[1] for d in _findings(index, "undefined-citation")] == ["shown"]
    assert _findings(index, "undefined-citation")[0].range.start.line == 6


def test_a_key_that_differs_from_an_entry_only_in_case_says_so_and_offers_the_entry(make_project, tmp_path):
    """LaTeX's keys are case-sensitive and biber's lookup too; BibTeX matches them with a "case
    mismatch" warning. Either way the author means the entry: say it, and offer it first."""
    index = _open(make_project, tmp_path, "\\cite{Knuth84} \\cite{knuth83}\n\\bibliography{refs}",
                  {"refs.bib": BIB + "@misc{knuth83x, title={Other}}\n"})
    by_key = {d.message.split("`")[1]: d for d in _findings(index, "undefined-citation")}
    assert set(by_key) == {"Knuth84", "knuth83"}
    case_only = by_key["Knuth84"].message
    assert "differs from the entry `knuth84` only in case" in case_only and "did you mean `knuth84`?" in case_only
    assert "only in case" not in by_key["knuth83"].message


def test_bib_keys_that_differ_only_in_case_are_a_warning_at_each(make_project, tmp_path):
    """BibTeX reads `Knuth84` and `knuth84` as one key (a repeated entry), biber as two."""
    bib = BIB + "@book{Knuth84, title={TeX}}\n"
    index = _open(make_project, tmp_path, "\\cite{knuth84}\n\\bibliography{refs}", {"refs.bib": bib})
    found = _findings(index, "duplicate-bib-key")
    assert [(d.severity, d.range.start.line) for d in found] == [("warning", 0), ("warning", 2)]
    assert "`knuth84` and `Knuth84` differ only in case" in found[0].message
    assert "BibTeX reads them as one key" in found[0].message and _findings(index, "undefined-citation") == []
