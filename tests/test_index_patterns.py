"""Patterns of real mathematics repositories (issue 15), each on a small project of our own in
tests/projects/<pattern>/: chapter roots through a shared preamble, the author's include wrappers,
build-generated inputs, proof placement."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from colosseum.index import ProjectIndex

PROJECTS = Path(__file__).resolve().parent / "projects"


@pytest.fixture
def project(tmp_path):
    """A copy of tests/projects/<name> (the index writes nothing there, but edits may)."""
    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(PROJECTS / name, target)
        return target
    return copy


def findings(index: ProjectIndex, name: str) -> list:
    return [d for d in index.diagnostics() if d.code == "colosseum/" + name]


# ---- chapter roots through a shared preamble -----------------------------------------------------


def test_chapters_that_read_the_documentclass_from_a_shared_preamble_are_roots(project):
    root = project("preamble-chapters")
    index = ProjectIndex.open(root)
    assert sorted(index.relative(r) for r in index.roots) == ["groups.tex", "rings.tex"]
    assert set(index.claims) == {"lemma-identity-unique", "theorem-units", "lemma-units-closed"}
    assert index.claims["theorem-units"].proof is not None
    assert not findings(index, "no-claims")
    assert not [d for d in index.diagnostics() if d.severity == "error"]


def test_a_chapter_that_stops_reading_the_preamble_is_no_root_after_an_edit(project):
    root = project("preamble-chapters")
    index = ProjectIndex.open(root)
    text = (root / "rings.tex").read_text()
    index.update_document(root / "rings.tex", text.replace("\\input preamble\n", ""))
    assert sorted(index.relative(r) for r in index.roots) == ["groups.tex"]
    index.update_document(root / "rings.tex", text)
    assert sorted(index.relative(r) for r in index.roots) == ["groups.tex", "rings.tex"]


def test_a_project_with_no_claims_says_so_with_the_reason(project):
    root = project("no-claims")
    index = ProjectIndex.open(root)
    assert not index.claims
    [warning] = findings(index, "no-claims")
    assert warning.severity == "warning"
    assert "one.tex" in warning.message and "read by no root" in warning.message


def test_the_first_claim_of_an_edit_clears_the_no_claims_warning(project):
    root = project("no-claims")
    index = ProjectIndex.open(root)
    text = (root / "main.tex").read_text()
    index.update_document(root / "main.tex", text.replace(
        "Notes with", "\\begin{theorem}\\label{thm:t}T.\\end{theorem}\nNotes with"))
    assert "thm:t" in index.claims and not findings(index, "no-claims")


def test_edits_of_the_roots_and_the_shared_preamble_match_a_cold_index(project, tmp_path):
    from test_incremental_index import Mirror
    mirror = Mirror(project("preamble-chapters"), tmp_path / "work")
    steps = [
        ("preamble.tex", lambda t: t.replace("\\documentclass{amsart}", ""), "the preamble loses its class"),
        ("preamble.tex", lambda t: "\\documentclass{amsart}\n" + t, "and gets it back"),
        ("groups.tex", lambda t: t.replace("\\begin{document}", ""), "a chapter no longer begins the document"),
        ("groups.tex", lambda t: t.replace("\\title", "\\begin{document}\n\\title"), "and begins it again"),
        ("macros.tex", lambda t: "\\documentclass{article}\n" + t, "the macros get a class of their own"),
    ]
    for rel, change, what in steps:
        mirror.edit(rel, change(mirror.texts[rel]))
        mirror.check(what)


def test_a_long_document_read_whole_without_a_claim_is_said_a_short_note_is_not(make_project, tmp_path):
    body = "Words.\n" * 600
    long_doc = make_project(tmp_path / "long", {"main.tex": "\\documentclass{article}\n\\begin{document}\n"
                                                             + body + "\\end{document}\n"})
    [warning] = findings(ProjectIndex.open(long_doc), "no-claims")
    assert "lines" in warning.message
    note = make_project(tmp_path / "note", {"main.tex": "\\documentclass{article}\n\\begin{document}\nHi.\n"
                                                        "\\end{document}\n"})
    assert not findings(ProjectIndex.open(note), "no-claims")


# ---- the author's include wrappers -----------------------------------------------------------------


def test_chapters_pulled_in_by_the_authors_include_wrappers_are_read(project):
    root = project("include-wrappers")
    index = ProjectIndex.open(root)
    assert {"lem:empty", "thm:compose", "lem:extra", "lem:notes", "lem:late"} <= set(index.claims)
    # \IfNoValueTF decided as LaTeX does: one \subfile per call, not both branches
    assert not findings(index, "missing-input")
    assert index.claims["thm:compose"].file.name == "maps.tex"


def test_a_template_that_begins_no_document_is_no_root(project):
    root = project("include-wrappers")
    index = ProjectIndex.open(root)
    assert [index.relative(r) for r in index.roots] == ["main.tex"]
    assert not [d for d in index.diagnostics() if d.severity == "error"]


def test_an_include_command_named_in_the_settings_is_followed(project):
    root = project("include-wrappers")
    (root / "colosseum.toml").unlink()
    index = ProjectIndex.open(root)
    assert "lem:late" not in index.claims
    assert "lem:empty" in index.claims  # the wrappers defined in the project need no setting


def test_xparse_tests_of_a_wrappers_arguments_keep_one_branch():
    from colosseum.latex.macros import MacroTable
    from colosseum.latex.scanner import scan
    text = ("\\NewDocumentCommand{\\ch}{s o m}{\\IfBooleanTF{#1}{\\input{star/#3}}{\\IfValueT{#2}{\\input{#2/#3}}"
            "\\IfNoValueF{#2}{X}\\IfNoValueT{#2}{\\input{#3}}}}\n\\ch*{a}\\ch[d]{b}\\ch{c}\n")
    assert [ev.value for ev in scan(text, MacroTable()).events if ev.kind == "include"] == ["star/a", "d/b", "c"]


# ---- build-generated inputs ----------------------------------------------------------------------


def _check(capsys, *argv) -> tuple[int, str]:
    from colosseum.cli.main import main
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_inputs_of_files_the_build_writes_are_hints_and_check_exits_0(project, capsys):
    root = project("generated-inputs")
    index = ProjectIndex.open(root)
    hints = findings(index, "generated-input")
    assert sorted(d.message.split(":")[0] for d in hints) == sorted([
        "\\input{\\jobname.out}", "\\input{book.toc}", "\\input{ans1}", "\\input{hintsheet}",
        "\\input{chapter-hints}", "\\input{book.bbl}"])
    assert {d.severity for d in hints} == {"hint"} and not findings(index, "missing-input")
    code, _out = _check(capsys, "check", str(root))
    assert code == 0


def test_a_blueprints_input_of_what_lake_builds_is_a_generated_input_and_check_exits_0(tmp_path, capsys):
    """infinity-cosmos and PrimeNumberTheoremAnd \\input{../../.lake/build/blueprint/library/X}: Lake
    writes it (``lake build :blueprint``), so before that build it is a hint, not a missing input."""
    root = tmp_path / "blueprint" / "src"
    root.mkdir(parents=True)
    (root / "web.tex").write_text("\\documentclass{report}\n\\begin{document}\n"
                                  "\\input{../../.lake/build/blueprint/library/Project}\n"
                                  "\\input{./.lake/build/other}\n\\end{document}\n")
    index = ProjectIndex.open(root)
    hints = findings(index, "generated-input")
    assert len(hints) == 2 and all("Lake build" in d.message and d.severity == "hint" for d in hints)
    assert not findings(index, "missing-input")
    assert _check(capsys, "check", str(root))[0] == 0


def test_a_missing_chapter_is_still_an_error_beside_generated_inputs(project, capsys):
    root = project("generated-inputs")
    book = root / "book.tex"
    book.write_text(book.read_text().replace("\\end{document}", "\\input{chapter-two}\n\\end{document}"))
    index = ProjectIndex.open(root)
    [missing] = findings(index, "missing-input")
    assert "chapter-two" in missing.message
    assert _check(capsys, "check", str(root))[0] == 1


# ---- messages ------------------------------------------------------------------------------------------


def test_a_conditional_claim_names_every_open_obligation_first_then_the_unproved_claims(project):
    index = ProjectIndex.open(project("open-obligations"))
    [main] = [d for d in findings(index, "depends-on-open-obligation") if "`thm:main`" in d.message]
    message = main.message
    assert "`lem:bound`" in message and "`lem:estimate`" in message and "`a:riemann`" in message
    assert message.index("`lem:bound`") < message.index("`a:riemann`")
    assert message.index("`lem:estimate`") < message.index("`a:riemann`")
    assert "open obligations" in message and "unproved conjecture `a:riemann`" in message
    assert len(main.related) == 3


def test_the_named_obligations_follow_an_edit_like_a_cold_index(project, tmp_path):
    from test_incremental_index import Mirror
    mirror = Mirror(project("open-obligations"), tmp_path / "work")
    mirror.edit("main.tex", mirror.texts["main.tex"].replace("\\label{lem:bound}\\obligation", "\\label{lem:bound}"))
    mirror.check("an obligation proved away")
    mirror.edit("main.tex", mirror.texts["main.tex"].replace("% colosseum: obligation\n", ""))
    mirror.check("another one")


def test_check_refuses_a_log_file_with_exit_2(project, capsys):
    from colosseum.index import ProjectError
    root = project("preamble-chapters")
    log = root / "groups.log"
    log.write_text("This is pdfTeX, Version 3.14\n\\input{preamble}\n\\begin{document}\n")
    assert _check(capsys, "check", str(log))[0] == 2
    with pytest.raises(ProjectError, match="groups.log: a .log file is written by a LaTeX run, not a source"):
        ProjectIndex.open(log)


# ---- proof placement and claim roles -------------------------------------------------------------


@pytest.fixture
def placed(project):
    return ProjectIndex.open(project("proof-placement"))


def _proof_line(index, label) -> int | None:
    proof = index.claims[label].proof
    return proof.location.range.start.line if proof is not None else None


def test_a_proof_title_on_the_line_after_begin_proof_names_its_claim(placed):
    assert _proof_line(placed, "thm:x") == 22  # "[Proof of \Cref{thm:x}]" on line 23, under \begin{proof}
    assert _proof_line(placed, "lem:later") == 19


def test_a_proof_after_a_remark_an_example_and_a_question_goes_to_the_theorem(placed):
    assert _proof_line(placed, "thm:y") == 39
    assert placed.claims["rem:y"].proof is None and placed.claims["q:y"].proof is None


def test_a_second_proof_is_no_orphan(placed):
    assert not findings(placed, "orphan-proof")


def test_a_claim_with_a_sketch_and_a_full_proof_is_proved(placed):
    assert placed.graph.status["thm:two"] == "proved"


def test_assumed_claims_owe_no_proof_and_make_nothing_conditional_open_ones_do(placed):
    status = placed.graph.status
    assert placed.claims["ax:choice"].role == placed.claims["hyp:grh"].role == "assumption"
    assert status["ax:choice"] == status["hyp:grh"] == "stated" and status["thm:assumed"] == "proved"
    assert status["conj:twin"] == "open" and status["thm:open"] == "conditional"
    assert not placed.claims["q:y"].needs_proof and not placed.claims["conj:twin"].needs_proof
    [conditional] = findings(placed, "depends-on-open-obligation")
    assert "`thm:open`" in conditional.message


def test_a_claim_resting_on_assumed_claims_names_them(placed):
    graph, claims = placed.graph, placed.claims
    assert graph.assumptions_of("thm:assumed", claims) == ["ax:choice", "hyp:grh"]
    assert graph.assumptions_of("thm:open", claims) == []  # a conjecture is open, not assumed
    assert graph.assumptions_of("ax:choice", claims) == []


def test_a_role_follows_the_name_the_environment_was_declared_with():
    from colosseum.project.claim_roles import claim_role
    assert claim_role("ax", "Axiom") == claim_role("assumption") == claim_role("Hypothesis*") == "assumption"
    assert claim_role("qu", "Question") == claim_role("problem") == claim_role("conjecture") == "conjecture"
    assert claim_role("thm", "Theorem") == "assertion"


def test_a_title_after_a_blank_line_is_content_not_a_title():
    from colosseum.latex.macros import MacroTable
    from colosseum.latex.scanner import scan
    text = "\\begin{proof}\n\n[a,b] is compact.\n\\end{proof}\n\\begin{proof}%\n  [Second proof]\n\\end{proof}\n"
    titles = [ev.value for ev in scan(text, MacroTable()).events if ev.kind == "begin"]
    assert titles == ["", "Second proof"]


def test_proofs_after_remarks_go_to_the_theorem_wherever_the_file_is_cut_into_chunks(make_project, tmp_path):
    """The index reads a long file in chunks, cut before some top-level claims (colosseum.project.chunks):
    the remark between a theorem and its proof may start a chunk of its own."""
    body = "".join(
        f"\\begin{{theorem}}\\label{{thm:{i}}}T{'x' * i}.\\end{{theorem}}\n"  # cuts fall before some remarks
        f"\\begin{{remark}}\\label{{rem:{i}}}R{i}.\\end{{remark}}\n"
        f"\\begin{{proof}}P{i}.\\end{{proof}}\n"
        f"\\begin{{lemma}}\\label{{lem:{i}}}L{i}.\\end{{lemma}}\n"
        f"\\begin{{proof}}Q{i}.\\end{{proof}}\n"
        f"\\begin{{remark}}\\label{{rem:after:{i}}}A{i}.\\end{{remark}}\n"
        f"\\begin{{proof}}Of the remark {i}.\\end{{proof}}\n" for i in range(40))
    root = make_project(tmp_path, {"main.tex": "\\documentclass{article}\n\\begin{document}\n" + body
                                   + "\\end{document}\n"})
    index = ProjectIndex.open(root)
    text = (root / "main.tex").read_text()
    starts = [text[chunk.start:chunk.start + 14] for chunk in next(iter(index._file_chunks.values()))]
    assert "\\begin{remark}" in starts  # the case this test is about
    for i in range(40):
        assert index.claims[f"thm:{i}"].proof is not None, i
        assert index.claims[f"rem:{i}"].proof is None, i
        assert index.claims[f"lem:{i}"].proof is not None, i
        assert index.claims[f"rem:after:{i}"].proof is not None, i  # its theorem had its proof: the remark's
    assert not findings(index, "orphan-proof")


def test_edits_of_proof_placement_and_roles_match_a_cold_index(project, tmp_path):
    from test_incremental_index import Mirror
    mirror = Mirror(project("proof-placement"), tmp_path / "work")
    steps = [
        (lambda t: t.replace("\\begin{remark}\\label{rem:y}", "\\begin{lemma}\\label{rem:y}"), "the remark becomes a lemma"),
        (lambda t: t.replace("\\begin{lemma}\\label{rem:y}", "\\begin{remark}\\label{rem:y}"), "and a remark again"),
        (lambda t: t.replace("[Second proof]", ""), "the second proof loses its title"),
        (lambda t: t.replace("\\begin{proof}\n[Proof of", "\\begin{proof}\n\n[Proof of"), "a blank line before the title"),
        (lambda t: t.replace("\\begin{hyp}", "\\begin{conj}").replace("\\end{hyp}", "\\end{conj}"), "a hypothesis now open"),
        (lambda t: t.replace("\\obligation\nA sketch.", "A sketch."), "the sketch is complete"),
    ]
    for change, what in steps:
        mirror.edit("main.tex", change(mirror.texts["main.tex"]))
        mirror.check(what)


# ---- xr: references across documents ---------------------------------------------------------------


def _undefined(index) -> list[str]:
    return sorted(d.message.split("`")[1] for d in findings(index, "undefined-reference"))


def test_references_through_externaldocument_resolve_with_and_without_a_prefix(project):
    index = ProjectIndex.open(project("xr-documents"))
    assert len(index.roots) == 3
    # one-lem:a and part-three's lem:a resolve; a label of the other document without the prefix
    # stays undefined in part-two (each document's labels are its own), as does a missing one
    assert _undefined(index) == ["lem:a", "one-lem:missing"]
    assert {d.file.name for d in findings(index, "undefined-reference")} == {"part-two.tex"}


def test_an_external_documents_labels_follow_its_edits_like_a_cold_index(project, tmp_path):
    from test_incremental_index import Mirror
    mirror = Mirror(project("xr-documents"), tmp_path / "work")
    steps = [
        ("part-one.tex", lambda t: t.replace("\\label{lem:a}", "\\label{lem:a}\\label{lem:missing}"), "a label appears"),
        ("part-one.tex", lambda t: t.replace("\\label{lem:a}", "\\label{lem:aa}"), "the referenced label renamed"),
        ("part-two.tex", lambda t: t.replace("[one-]", "[first-]"), "the prefix changes"),
        ("part-two.tex", lambda t: t.replace("\\externaldocument[first-]{part-one}\n", ""), "the document dropped"),
    ]
    for rel, change, what in steps:
        mirror.edit(rel, change(mirror.texts[rel]))
        mirror.check(what)


def test_definition_and_hover_find_a_label_of_another_document_through_its_prefix(project):
    root = project("xr-documents")
    index = ProjectIndex.open(root)
    snap = index.snapshot
    [label] = snap.labels_through_documents("one-lem:a", root / "part-two.tex")
    assert label.name == "lem:a" and label.location.file.name == "part-one.tex" and label.owner == "lem:a"
    assert snap.labels_through_documents("one-lem:a", root / "part-one.tex") == []  # that root names no document
    assert snap.labels_through_documents("one-lem:missing", root / "part-two.tex") == []


def test_a_root_whose_document_begins_in_an_imported_file_stays_a_root(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": "\\documentclass{article}\n\\import{body/}{text}\n",
        "body/text.tex": "\\begin{document}\n\\begin{lemma}\\label{lem:i}I.\\end{lemma}\n\\end{document}\n",
        "other.tex": "\\documentclass{article}\n\\begin{document}\nO.\n\\end{document}\n",
    })
    index = ProjectIndex.open(root)
    assert sorted(index.relative(r) for r in index.roots) == ["main.tex", "other.tex"]
    assert "lem:i" in index.claims


# ---- several proofs of one claim -------------------------------------------------------------------

SEVERAL_PROOFS = (
    "\\documentclass{article}\n\\newtheorem{lemma}{Lemma}\n\\newtheorem{theorem}{Theorem}\n"
    "\\newtheorem{conjecture}{Conjecture}\n\\begin{document}\n"
    "\\begin{conjecture}\\label{conj:open}Open.\\end{conjecture}\n"
    "\\begin{lemma}\\label{lem:a}A.\\end{lemma}\n\\begin{proof}Clear.\\end{proof}\n"
    "\\begin{theorem}\\label{thm:two}Two proofs.\\end{theorem}\n"
    "\\begin{proof}By \\ref{conj:open}.\\end{proof}\n"
    "\\begin{proof}[Second proof]By \\ref{lem:a} and \\ref{lem:c}.\\end{proof}\n"
    "\\begin{theorem}\\label{thm:one}One proof.\\end{theorem}\n"
    "\\begin{proof}By \\ref{conj:open}.\\end{proof}\n"
    "\\begin{lemma}\\label{lem:c}C.\\end{lemma}\n\\begin{proof}By \\ref{thm:two}.\\end{proof}\n"
    "\\end{document}\n"
)


def test_a_claim_with_several_proofs_is_proved_when_one_of_them_is_unconditional(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": SEVERAL_PROOFS})
    index = ProjectIndex.open(root)
    status = index.graph.status
    assert status["thm:one"] == "conditional"
    # its first proof rests on the conjecture, its second does not; but lem:c closes a circle with it
    assert status["thm:two"] == "proved", index.graph.conditional_on.get("thm:two")
    # the edges of every proof still count for circles: thm:two's second proof and lem:c use each other
    assert any(set(cycle) >= {"thm:two", "lem:c"} for cycle in index.graph.cycles())


def test_a_claim_whose_every_proof_rests_on_an_open_claim_is_conditional(make_project, tmp_path):
    text = SEVERAL_PROOFS.replace("By \\ref{lem:a} and \\ref{lem:c}.", "By \\ref{lem:a} and \\ref{conj:open}.")
    index = ProjectIndex.open(make_project(tmp_path, {"main.tex": text}))
    assert index.graph.status["thm:two"] == "conditional"
    assert index.graph.status["lem:c"] == "conditional"


def test_several_proofs_follow_edits_like_a_cold_index(make_project, tmp_path):
    from test_incremental_index import Mirror
    mirror = Mirror(make_project(tmp_path / "src", {"main.tex": SEVERAL_PROOFS}), tmp_path / "work")
    steps = [
        (lambda t: t.replace("By \\ref{lem:a} and \\ref{lem:c}.", "By \\ref{lem:a} and \\ref{conj:open}."), "both conditional"),
        (lambda t: t.replace("By \\ref{lem:a} and \\ref{conj:open}.", "By \\ref{lem:a}."), "the second one free again"),
        (lambda t: t.replace("\\begin{proof}[Second proof]By \\ref{lem:a}.\\end{proof}\n", ""), "the second proof gone"),
        (lambda t: t.replace("\\begin{proof}By \\ref{conj:open}.\\end{proof}\n\\begin{theorem}",
                             "\\begin{proof}By \\ref{conj:open}.\\end{proof}\n"
                             "\\begin{proof}[Second proof]Clear.\\end{proof}\n\\begin{theorem}", 1), "a proof back"),
        (lambda t: t.replace("[Second proof]Clear.", "[Second proof]By \\ref{lem:c}."), "the same edges, moved"),
    ]
    for change, what in steps:
        mirror.edit("main.tex", change(mirror.texts["main.tex"]))
        mirror.check(what)


# ---- a claim proved inside a theorem's proof ------------------------------------------------------


def test_a_theorem_whose_proof_states_a_claim_resting_on_an_obligation_is_conditional(project):
    index = ProjectIndex.open(project("nested-claims"))
    status, conditional = index.graph.status, index.graph.conditional_on
    assert status["lem:bound"] == "obligation" and status["cl:inner"] == "conditional"
    # the enclosing theorem rests on what its nested claim rests on, labelled or not
    assert status["thm:main"] == "conditional"
    assert conditional["thm:main"] == ["lem:bound", "cl:inner", "thm:main"]
    assert status["thm:unlabelled"] == "conditional"
    [main] = [d for d in findings(index, "depends-on-open-obligation") if "`thm:main`" in d.message]
    assert "`lem:bound`" in main.message


def test_nested_claims_follow_edits_like_a_cold_index(project, tmp_path):
    from test_incremental_index import Mirror
    mirror = Mirror(project("nested-claims"), tmp_path / "work")
    first = "\\begin{proof}\nBy Lemma~\\ref{lem:bound}.\n\\end{proof}\nHence"
    steps = [
        (lambda t: t.replace(first, "\\begin{proof}\nClear.\n\\end{proof}\nHence"), "the inner proof settled"),
        (lambda t: t.replace("\\begin{proof}\nClear.\n\\end{proof}\nHence", first), "and resting again"),
        (lambda t: t.replace("\\label{cl:inner}", ""), "the inner claim loses its label"),
        (lambda t: t.replace("\\begin{claim}\nInner.", "\\begin{claim}\\label{cl:inner}\nInner."), "and has it back"),
        (lambda t: t.replace("\\begin{proof}\nFirst a claim.", "\\begin{proof}[Proof of \\ref{thm:unlabelled}]\nFirst a claim."),
         "the proof now proves another theorem"),
        (lambda t: t.replace("\\begin{theorem}\\label{thm:main}", "\\begin{lemma}\\label{thm:main}")
         .replace("Main.\n\\end{theorem}\n\\begin{proof}[Proof", "Main.\n\\end{lemma}\n\\begin{proof}[Proof"), "a kind changes"),
    ]
    for change, what in steps:
        before = mirror.texts["main.tex"]
        mirror.edit("main.tex", change(before))
        assert mirror.texts["main.tex"] != before, what
        mirror.check(what)


# ---- references across documents make edges ------------------------------------------------------


def _edges(index) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.kind) for e in index.graph.edges if e.kind != "contains"}


def test_a_reference_through_externaldocument_is_an_edge_to_the_claim_of_the_other_document(project):
    root = project("xr-latex")
    index = ProjectIndex.open(root)
    # two.tex: \\ref{one-lem:a} in thm:b's statement and proof, through \\externaldocument[one-]{one}
    assert _edges(index) >= {("lem:a", "thm:b", "statement-uses"), ("lem:a", "thm:b", "proof-uses")}
    one = root / "one.tex"
    # its proof becomes a sketch (the first proof in one.tex is lem:a's)
    index.update_document(one, one.read_text().replace("\\begin{proof}\nClear.", "\\begin{proof}\n\\obligation\nClear.", 1))
    assert index.graph.status["lem:a"] == "obligation"
    assert index.graph.status["thm:b"] == "conditional"  # it rests on an open obligation of the other document


def test_edges_across_documents_follow_edits_like_a_cold_index(project, tmp_path):
    from test_incremental_index import Mirror
    mirror = Mirror(project("xr-latex"), tmp_path / "work")
    steps = [
        ("one.tex", lambda t: t.replace("\\begin{proof}\nClear.", "\\begin{proof}\n\\obligation\nClear.", 1), "a sketch there"),
        ("one.tex", lambda t: t.replace("\\label{lem:a}", "\\label{lem:aa}"), "the label renamed"),
        ("one.tex", lambda t: t.replace("\\label{lem:aa}", "\\label{lem:a}"), "and back"),
        ("two.tex", lambda t: t.replace("[one-]", "[first-]"), "the prefix changes"),
        ("two.tex", lambda t: t.replace("one-lem:a", "first-lem:a"), "the references follow"),
        ("two.tex", lambda t: t.replace("\\externaldocument[first-]{one}\n", ""), "the document dropped"),
    ]
    for rel, change, what in steps:
        before = mirror.texts[rel]
        mirror.edit(rel, change(before))
        assert mirror.texts[rel] != before, what
        mirror.check(what)


def test_a_digression_a_recall_and_a_non_example_owe_no_proof(make_project, tmp_path):
    # infinity-cosmos: \newtheorem{dig}[theorem]{Digression} made `dig:simplicial-cat` an open claim,
    # shown as owing a proof; so would \newtheorem{rec}{Recall} and \newtheorem{nex}{Non-Example}
    from colosseum.project.claim_roles import claim_role
    assert claim_role("dig", "Digression") == claim_role("rec", "Recall") == claim_role("nex", "Non-Example") == "other"
    assert claim_role("recurrence") == claim_role("digraphlemma") == "assertion"  # names that only begin alike
    root = make_project(tmp_path, {"main.tex": (
        "\\documentclass{amsart}\n\\newtheorem{theorem}{Theorem}\n\\newtheorem{dig}[theorem]{Digression}\n"
        "\\begin{document}\n\\begin{dig}[aside]\\label{dig:a}Simplicial categories are simplicial objects.\\end{dig}\n"
        "\\begin{theorem}\\label{thm:b}B.\\end{theorem}\n\\begin{proof}By Digression \\ref{dig:a}.\\end{proof}\n"
        "\\end{document}\n")})
    index = ProjectIndex.open(root)
    assert index.graph.status["dig:a"] == "stated" and index.graph.status["thm:b"] == "proved"  # owes no proof
