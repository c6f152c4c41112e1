"""Diagnostics: stable codes, exact places, useful messages."""

from __future__ import annotations

import re

import pytest

from colosseum.index import ProjectIndex
from colosseum.core.structure import SEVERITIES, Position, Range

PREAMBLE = "\\documentclass{article}\n\\usepackage{amsthm}\n"


def doc(body: str, preamble: str = "") -> str:
    return PREAMBLE + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"


def open_doc(make_project, tmp_path, body: str, extra: dict | None = None) -> ProjectIndex:
    files = {"main.tex": doc(body)}
    files.update(extra or {})
    return ProjectIndex.open(make_project(tmp_path, files))


def diags(index: ProjectIndex, code: str):
    return [d for d in index.diagnostics() if d.code == "colosseum/" + code]


def line0(index: ProjectIndex, needle: str, file: str = "main.tex") -> int:
    for i, line in enumerate((index.root_dir / file).read_text(encoding="utf-8").splitlines()):
        if needle in line:
            return i
    raise AssertionError(needle)


def lemma(label: str, statement: str = "Statement.", proof: str | None = None) -> str:
    out = f"\\begin{{lemma}}\\label{{{label}}}{statement}\\end{{lemma}}\n"
    if proof is not None:
        out += f"\\begin{{proof}}{proof}\\end{{proof}}\n"
    return out


# ---- undefined references ----------------------------------------------------------------------------


def test_undefined_reference_at_the_label_name(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "See \\cref{lem:ghost}.")
    (diag,) = diags(index, "undefined-reference")
    line = line0(index, "lem:ghost")
    assert diag.severity == "error"
    assert diag.range == Range(Position(line, 10), Position(line, 19))
    assert "`lem:ghost`" in diag.message
    assert "did you mean" not in diag.message


@pytest.mark.parametrize("defined,used", [
    ("lem:Main", "lem:main"),      # case
    ("lem:bound", "lem:bund"),     # one deletion
    ("lem:bound", "lem:bounds"),   # one insertion
    ("lem:bound", "lem:bourd"),    # one substitution
    ("lem:bound", "lem:bonud"),    # one transposition
])
def test_undefined_reference_suggests_a_near_label(make_project, tmp_path, defined, used):
    index = open_doc(make_project, tmp_path, lemma(defined) + f"By \\ref{{{used}}}.")
    (diag,) = diags(index, "undefined-reference")
    assert f"did you mean `{defined}`" in diag.message


def test_no_suggestion_for_a_distant_label(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, lemma("thm:other") + "By \\ref{lem:bound}.")
    (diag,) = diags(index, "undefined-reference")
    assert "did you mean" not in diag.message


def test_each_undefined_item_of_a_list_is_reported(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, lemma("a") + "\\cref{a, missing1,missing2}")
    found = sorted(d.message.split("`")[1] for d in diags(index, "undefined-reference"))
    assert found == ["missing1", "missing2"]


def test_reference_to_a_label_only_another_root_defines(make_project, tmp_path):
    root = make_project(tmp_path, {
        "a.tex": doc("\\input{defs}\nSee \\ref{lem:x}."),
        "b.tex": doc("See \\ref{lem:x}."),
        "defs.tex": lemma("lem:x"),
    })
    index = ProjectIndex.open(root)
    (diag,) = diags(index, "undefined-reference")
    assert diag.file == root / "b.tex"
    assert "defs.tex" in diag.message


def test_a_label_only_in_a_file_no_root_reads_is_named_with_that_file(make_project, tmp_path):
    # FLT: an included chapter cites `mazur`, defined only in an orphan chapter (content.tex has
    # its \input commented out); "no \label{mazur} in the project" was untrue of the folder
    index = open_doc(make_project, tmp_path, "See \\ref{thm:mazur} and \\ref{thm:none}.\n",
                     extra={"old.tex": "\\begin{theorem}\\label{thm:mazur}Old.\\end{theorem}\n"})
    found = {d.message.split("`")[1]: d.message for d in diags(index, "undefined-reference")}
    assert "its \\label is in old.tex, which no root includes" in found["thm:mazur"]
    assert "no \\label{thm:none} in the project" in found["thm:none"]


def test_the_unread_file_named_follows_edits_of_that_file(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "See \\ref{thm:mazur}.\n",
                     extra={"old.tex": "\\begin{theorem}\\label{thm:mazur}Old.\\end{theorem}\n"})
    index.update_document(index.root_dir / "old.tex", "Nothing here now.\n")
    (diag,) = diags(index, "undefined-reference")
    assert "no \\label{thm:mazur} in the project" in diag.message
    index.update_document(index.root_dir / "old.tex", "\\label{thm:mazur}\n")
    (diag,) = diags(index, "undefined-reference")
    assert "its \\label is in old.tex, which no root includes" in diag.message


# ---- duplicate labels --------------------------------------------------------------------------------


def test_duplicate_label_reported_at_every_place_with_related_information(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, lemma("dup") + "\\section{S}\\label{dup}\n\\input{more}",
                     extra={"more.tex": "Text \\label{dup}\n"})
    found = diags(index, "duplicate-label")
    places = sorted((d.file.name, d.range.start.line, d.range.start.character) for d in found)
    main_lemma = line0(index, "\\begin{lemma}\\label{dup}")
    main_section = line0(index, "\\section{S}")
    assert places == sorted([("main.tex", main_lemma, 20), ("main.tex", main_section, 18), ("more.tex", 0, 12)])
    for diag in found:
        assert diag.severity == "error"
        assert "3 times" in diag.message
        assert len(diag.related) == 2
        others = {(r.location.file.name, r.location.range.start.line) for r in diag.related}
        assert (diag.file.name, diag.range.start.line) not in others


def test_label_with_comma_warning(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\label{a,b}\\ref{a,b}")
    (diag,) = diags(index, "label-with-comma")
    assert diag.severity == "warning"
    assert not diags(index, "undefined-reference")


def test_a_reference_to_one_name_of_a_label_with_a_comma_says_so(make_project, tmp_path):
    # FLT's blueprint: \label{A,\n B} then \uses{A}: "no \label{A} in the project" sent the
    # reader looking for a label that is right there, inside the comma label
    index = open_doc(make_project, tmp_path, lemma("lem:a,\n  lem:b") + lemma("lem:c", proof="\\uses{lem:a} Clear."))
    (diag,) = diags(index, "undefined-reference")
    assert "part of the label `lem:a, lem:b` at main.tex:" in diag.message
    assert "no \\label{lem:a} in the project" not in diag.message


# ---- dependency cycles -------------------------------------------------------------------------------


def test_two_proofs_using_each_other_are_a_cycle(make_project, tmp_path):
    body = (lemma("lem:A", proof="\\uses{lem:B} By \\cref{lem:B}.")
            + lemma("lem:B", proof="\\uses{lem:A} Clear."))
    index = open_doc(make_project, tmp_path, body)
    found = diags(index, "dependency-cycle")
    assert sorted(d.range.start.line for d in found) == [line0(index, "\\label{lem:A}"), line0(index, "\\label{lem:B}")]
    for diag in found:
        assert diag.severity == "error"
        assert re.search(r"lem:A -> lem:B -> lem:A|lem:B -> lem:A -> lem:B", diag.message)
        assert len(diag.related) == 2
    assert index.graph.cycles() in ([["lem:A", "lem:B", "lem:A"]], [["lem:B", "lem:A", "lem:B"]])


def test_three_step_cycle_names_the_whole_path(make_project, tmp_path):
    body = (lemma("c:1", proof="By \\cref{c:3}.")
            + lemma("c:2", proof="By \\cref{c:1}.")
            + lemma("c:3", proof="By \\cref{c:2}."))
    index = open_doc(make_project, tmp_path, body)
    found = diags(index, "dependency-cycle")
    assert len(found) == 3
    for diag in found:
        assert "c:1 -> c:2 -> c:3 -> c:1" in diag.message
        # the reference behind each step, in the message too (a linter's output has no related places)
        assert "`c:2` uses `c:1` by \\cref{c:1}; `c:3` uses `c:2` by \\cref{c:2}; `c:1` uses `c:3` by \\cref{c:3}" \
            in diag.message


def test_statements_citing_each_other_are_not_a_cycle(make_project, tmp_path):
    body = (lemma("lem:A", statement="Compare \\cref{lem:B}.", proof="Direct.")
            + lemma("lem:B", statement="Compare \\cref{lem:A}.", proof="Direct."))
    index = open_doc(make_project, tmp_path, body)
    assert not diags(index, "dependency-cycle")
    assert index.graph.cycles() == []


def test_a_label_inside_a_claim_is_a_use_but_closes_no_cycle(make_project, tmp_path):
    # Carleson: the proof of a bound cites a hypothesis displayed in the statement of the lemma
    # that uses the bound (\eqref{g-small}): a use of that lemma, not a circular argument
    body = ("\\begin{lemma}\\label{lem:A}\\begin{equation}\\label{eq:a}x=1\\end{equation}\\end{lemma}\n"
            "\\begin{proof}By \\cref{lem:B}.\\end{proof}\n"
            + lemma("lem:B", proof="By \\eqref{eq:a}."))
    index = open_doc(make_project, tmp_path, body)
    assert ("lem:A", "lem:B", "proof-uses") in {(e.source, e.target, e.kind) for e in index.graph.edges}
    assert not diags(index, "dependency-cycle")


def test_cycle_through_a_claims_own_label_next_to_an_inner_one(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:A}\\begin{equation}\\label{eq:a}x=1\\end{equation}\\end{lemma}\n"
            "\\begin{proof}By \\cref{lem:B}.\\end{proof}\n"
            + lemma("lem:B", proof="By \\eqref{eq:a} and \\cref{lem:A}."))
    index = open_doc(make_project, tmp_path, body)
    found = diags(index, "dependency-cycle")
    assert len(found) == 2
    assert "lem:A -> lem:B -> lem:A" in found[0].message


def test_no_cycle_runs_through_a_section(make_project, tmp_path):
    # Carleson: a section's prose cites a result and a later proof cites the section's equation
    body = ("\\section{One}\\label{sec:one}\n" + lemma("lem:B", proof="By \\cref{lem:A}.")
            + "\\section{Two}\\label{sec:two}\\begin{equation}\\label{eq:s}y=2\\end{equation}\n"
            "As \\cref{lem:B} shows.\n"
            "\\section{Three}\\label{sec:three}\n" + lemma("lem:A", proof="By \\eqref{eq:s}."))
    index = open_doc(make_project, tmp_path, body)
    assert not diags(index, "dependency-cycle")
    assert index.graph.cycles() == []


def test_circular_definitions_are_a_cycle(make_project, tmp_path):
    body = ("\\begin{definition}\\label{def:a}An a is a \\ref{def:b}.\\end{definition}\n"
            "\\begin{definition}\\label{def:b}A b is an \\ref{def:a}.\\end{definition}\n")
    index = open_doc(make_project, tmp_path, body)
    assert len(diags(index, "dependency-cycle")) == 2


# Carleson, chapter/main.tex:1221: the proof that closes a chain of \\uses ends "This completes the
# proof of \\Cref{linearized-truncation} and thus \\Cref{metric-space-Carleson}", naming what the
# chain concludes
CONCLUDING = (lemma("lem:A", proof="\\uses{lem:B} By Lemma B.")
              + lemma("lem:B", proof="Direct. This completes the proof of \\cref{lem:A}."))


def test_a_proof_reference_in_a_blueprint_is_a_mention_that_closes_no_cycle(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, CONCLUDING)
    edges = {(e.source, e.target, e.kind) for e in index.graph.edges}
    assert {("lem:B", "lem:A", "proof-uses"), ("lem:A", "lem:B", "proof-uses")} <= edges  # still a use
    assert not diags(index, "dependency-cycle")
    assert index.graph.cycles() == []


def test_the_same_reference_in_a_paper_without_uses_closes_the_cycle(make_project, tmp_path):
    # no \uses anywhere: the project does not declare its dependencies, every proof reference counts
    body = (lemma("lem:A", statement="Statement.", proof="By \\cref{lem:B}.")
            + lemma("lem:B", proof="Direct. This completes the proof of \\cref{lem:A}."))
    index = open_doc(make_project, tmp_path, body)
    assert len(diags(index, "dependency-cycle")) == 2
    assert index.graph.cycles() == [["lem:A", "lem:B", "lem:A"]]
    # one \uses elsewhere makes it a blueprint: the proof's \cref is then a mention
    index = open_doc(make_project, tmp_path / "blueprint", body + lemma("lem:C", statement="\\uses{lem:A} C."))
    assert not diags(index, "dependency-cycle")


def test_a_cycle_of_uses_in_a_blueprint_is_an_error(make_project, tmp_path):
    body = CONCLUDING.replace("This completes the proof of \\cref{lem:A}.", "By \\cref{lem:A}, \\uses{lem:A}.")
    index = open_doc(make_project, tmp_path, body)
    found = diags(index, "dependency-cycle")
    assert len(found) == 2 and all(d.severity == "error" for d in found)
    assert "lem:A -> lem:B -> lem:A" in found[0].message
    # each step is shown by the \uses that closes it, not the \cref beside it
    assert sorted(r.message.split(": ")[1] for r in found[0].related) == ["\\uses{lem:A}", "\\uses{lem:B}"]
    # \uses in two statements closes one too: the blueprint declares each a dependency
    body = (lemma("lem:A", statement="\\uses{lem:B} Statement.")
            + lemma("lem:B", statement="\\uses{lem:A} Statement."))
    index = open_doc(make_project, tmp_path / "statements", body)
    assert len(diags(index, "dependency-cycle")) == 2


def test_a_definition_in_a_statement_closes_a_cycle_in_a_blueprint(make_project, tmp_path):
    body = ("\\begin{definition}\\label{def:a}An a is a \\ref{def:b}.\\end{definition}\n"
            "\\begin{definition}\\label{def:b}\\uses{def:a}A b is an a.\\end{definition}\n")
    index = open_doc(make_project, tmp_path, body)
    assert len(diags(index, "dependency-cycle")) == 2


# ---- obligations -------------------------------------------------------------------------------------


def test_depends_on_open_obligation_warning_on_the_claim(make_project, tmp_path):
    body = (lemma("lem:ob", statement="\\obligation Hard.")
            + lemma("lem:mid", proof="By \\cref{lem:ob}.")
            + "\\begin{theorem}\\label{thm:top}Top.\\end{theorem}\n\\begin{proof}\\uses{lem:mid} Done.\\end{proof}\n"
            + lemma("lem:free", proof="Trivial."))
    index = open_doc(make_project, tmp_path, body)
    found = {d.range.start.line: d for d in diags(index, "depends-on-open-obligation")}
    mid, top = line0(index, "\\label{lem:mid}"), line0(index, "\\label{thm:top}")
    assert set(found) == {mid, top}
    assert found[mid].severity == "warning"
    assert found[mid].range.start.character == 0  # at \begin{lemma}
    assert "`lem:ob`" in found[mid].message
    assert "`lem:ob`" in found[top].message and "lem:mid" in found[top].message
    assert found[top].related and found[top].related[0].location.range.start.line == line0(index, "\\label{lem:ob}")


def test_no_warning_when_the_obligation_is_only_mentioned_in_a_statement(make_project, tmp_path):
    body = (lemma("lem:ob", statement="\\obligation Hard.")
            + lemma("lem:uses", statement="Unlike \\cref{lem:ob}.", proof="Direct."))
    index = open_doc(make_project, tmp_path, body)
    assert not diags(index, "depends-on-open-obligation")


# ---- unused labels -----------------------------------------------------------------------------------


def test_unused_label_hint_only_for_claims(make_project, tmp_path):
    body = ("\\section{S}\\label{sec:unused}\n"
            + lemma("lem:unused")
            + lemma("lem:used")
            + "\\begin{equation}\\label{eq:unused}x\\end{equation}\n"
            + "By \\cref{lem:used}.")
    index = open_doc(make_project, tmp_path, body)
    (diag,) = diags(index, "unused-label")
    line = line0(index, "\\label{lem:unused}")
    assert diag.severity == "hint"
    assert diag.range == Range(Position(line, 20), Position(line, 30))
    assert "lem:unused" in diag.message


def test_label_referenced_only_from_another_file_is_used(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, lemma("lem:x") + "\\input{other}",
                     extra={"other.tex": "By \\cref{lem:x}.\n"})
    assert not diags(index, "unused-label")


# ---- configuration -----------------------------------------------------------------------------------


def test_invalid_toml_is_a_config_error(make_project, tmp_path):
    root = make_project(tmp_path, {
        "colosseum.toml": '# config\nroot = "main.tex"\n[index\nexclude = []\n',
        "main.tex": doc("\\label{x}\\ref{x}"),
    })
    index = ProjectIndex.open(root)
    (diag,) = diags(index, "config-error")
    assert diag.file == root / "colosseum.toml"
    assert diag.severity == "error"
    assert "TOML" in diag.message
    assert "x" in index.labels  # the index still works with the defaults


def test_invalid_toml_error_points_at_the_bad_line(make_project, tmp_path):
    root = make_project(tmp_path, {
        "colosseum.toml": '# config\nroot = "main.tex"\n[index\nexclude = []\n',
        "main.tex": doc("Text."),
    })
    (diag,) = diags(ProjectIndex.open(root), "config-error")
    assert diag.range.start.line == 2  # 0-based: the line `[index`


@pytest.mark.parametrize("toml,key,line", [
    ("[index]\nlabel_reference_commands = 3\n", "index.label_reference_commands", 1),
    ("[index]\nexclude = [1, 2]\n", "index.exclude", 1),
    ("# first\nroot = 5\n", "root", 1),
    ("index = 3\n", "index", 0),
])  # an unknown key is a warning of its own: tests/test_settings_schema.py
def test_wrong_config_value_names_the_key(make_project, tmp_path, toml, key, line):
    root = make_project(tmp_path, {"colosseum.toml": toml, "main.tex": doc("Text.")})
    index = ProjectIndex.open(root)
    (diag,) = diags(index, "config-error")
    assert diag.file == root / "colosseum.toml"
    assert f"`{key}`" in diag.message
    assert diag.range.start.line == line


# ---- general properties ------------------------------------------------------------------------------


def test_diagnostics_are_sorted_and_well_formed(make_project, tmp_path):
    body = ("\\cref{zzz}\n" + lemma("dup") + lemma("dup") + "\\ref{aaa}\n\\input{gone}\n"
            + lemma("lem:A", proof="\\cref{lem:B}") + lemma("lem:B", proof="\\cref{lem:A}"))
    index = open_doc(make_project, tmp_path, body, extra={"b.tex": doc("\\ref{q}")})
    found = index.diagnostics()
    assert len(found) >= 6
    keys = [(str(d.file), d.range.start.line, d.range.start.character) for d in found]
    assert keys == sorted(keys)
    for d in found:
        assert d.severity in SEVERITIES
        assert d.code.startswith("colosseum/")
        assert d.range.start <= d.range.end
    assert index.diagnostics() == found  # stable


def test_a_proof_resting_on_a_conjecture_is_conditional(make_project, tmp_path):
    body = ("\\begin{conjecture}\\label{conj:c}Every x is y.\\end{conjecture}\n"
            + lemma("lem:L", proof="By \\cref{conj:c}.")
            + "\\begin{example}\\label{ex:e}An example.\\end{example}\n"
            + lemma("lem:M", proof="See \\cref{ex:e}."))
    index = open_doc(make_project, tmp_path, body)
    status = index.graph.status
    assert status["conj:c"] == "open"
    assert status["lem:L"] == "conditional"
    assert status["lem:M"] == "proved"  # examples and remarks stay settled
    found = diags(index, "depends-on-open-obligation")
    assert [d.message.split("`")[1] for d in found] == ["lem:L"]
    assert "conjecture `conj:c`" in found[0].message


def test_an_obligation_marker_inside_a_proof_leaves_the_proof_owed(make_project, tmp_path):
    body = (lemma("lem:s", proof="\\obligation TODO: fill in the details.")
            + lemma("thm:t", proof="By \\cref{lem:s}."))
    index = open_doc(make_project, tmp_path, body)
    assert index.graph.status["lem:s"] == "obligation"
    assert index.graph.status["thm:t"] == "conditional"


def test_section_statuses_summarise_what_they_hold(make_project, tmp_path):
    body = ("\\section{Plan}\\label{sec:o}\\obligation We will show that things hold.\n"
            "\\section{Work}\\label{sec:w}\n"
            + lemma("lem:a", statement="\\obligation A.")
            + lemma("thm:b", proof="By \\cref{lem:a}.")
            + "\\section{Done}\\label{sec:d}\n" + lemma("lem:c", proof="Clear.")
            + "\\section{Reading}\\label{sec:r}As \\cref{thm:b} shows, all is well.\n"
            "\\section{Promise}\\label{sec:p}\\obligation Here we prove it.\n" + lemma("lem:p", proof="Clear."))
    index = open_doc(make_project, tmp_path, body)
    status = index.graph.status
    assert status["sec:o"] == "obligation"  # an obligation holding no claim stays one
    assert status["sec:w"] == "obligation"  # it holds an open obligation
    assert status["sec:d"] == "proved"
    assert status["sec:r"] == "proved"  # prose citing a conditional result is not conditional
    assert status["sec:p"] == "proved"  # every claim in it is proved
    kinds = {(e.source, e.target): e.kind for e in index.graph.edges}
    assert kinds[("thm:b", "sec:r")] == "statement-uses"
