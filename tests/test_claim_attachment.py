"""Which claim a proof proves, restatable theorems, and when a claim's label counts as used."""

from __future__ import annotations

import pytest
from test_diagnostics import diags, open_doc


# ---- a claim's proof is the next proof -------------------------------------------------------------


def test_second_unnamed_proof_after_a_section_is_not_glued_to_a_proved_claim(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:key}K\\end{lemma}\n"
            "\\begin{proof}Direct.\\end{proof}\n"
            "\\begin{lemma}\\label{lem:other}O\\end{lemma}\n"
            "\\begin{proof}Easy.\\end{proof}\n"
            "\\section{Proofs}\n"
            "\\begin{proof}By \\cref{lem:key}.\\end{proof}\n")
    index = open_doc(make_project, tmp_path, body)
    other = index.claims["lem:other"]
    assert not any(r.label == "lem:key" for r in other.references)
    assert "lem:other" not in index.graph.succ.get("lem:key", set())
    (orphan,) = diags(index, "orphan-proof")
    assert orphan.severity == "hint" and orphan.range.start.line == 8


def test_second_unnamed_proof_in_a_row_proves_nothing(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:key}K\\end{lemma}\n"
            "\\begin{lemma}\\label{lem:other}O\\end{lemma}\n"
            "\\begin{proof}Easy.\\end{proof}\n"
            "\\begin{proof}By \\cref{lem:key}.\\end{proof}\n")
    index = open_doc(make_project, tmp_path, body)
    assert not any(r.label == "lem:key" for r in index.claims["lem:other"].references)
    assert len(diags(index, "orphan-proof")) == 1


def test_section_break_cuts_an_unnamed_proof_from_the_claim_before(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:a}A\\end{lemma}\n"
            "\\section{Proofs}\n"
            "\\begin{proof}Direct.\\end{proof}\n")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims["lem:a"].proof is None
    assert len(diags(index, "orphan-proof")) == 1


def test_run_in_paragraph_heading_keeps_the_attachment(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:a}A\\end{lemma}\n"
            "\\paragraph{Idea.} Induction.\n"
            "\\begin{proof}Direct.\\end{proof}\n")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims["lem:a"].proof is not None
    assert not diags(index, "orphan-proof")


def test_proof_after_an_included_proved_claim_proves_nothing(make_project, tmp_path):
    body = "\\input{part}\n\\begin{proof}By \\cref{lem:b}.\\end{proof}\n\\begin{lemma}\\label{lem:b}B\\end{lemma}"
    part = "\\begin{lemma}\\label{lem:a}A\\end{lemma}\n\\begin{proof}Direct.\\end{proof}\n"
    index = open_doc(make_project, tmp_path, body, {"part.tex": part})
    assert not any(r.label == "lem:b" for r in index.claims["lem:a"].references)
    assert len(diags(index, "orphan-proof")) == 1


def test_proof_after_an_include_still_proves_the_included_unproved_claim(make_project, tmp_path):
    body = "\\input{part}\n\\begin{proof}Direct.\\end{proof}\n"
    part = "\\begin{lemma}\\label{lem:a}A\\end{lemma}\n"
    index = open_doc(make_project, tmp_path, body, {"part.tex": part})
    assert index.claims["lem:a"].proof is not None
    assert not diags(index, "orphan-proof")


# ---- a claim's labels ------------------------------------------------------------------------------


def test_claim_referenced_by_its_second_label_is_used(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:a}\\label{lem:a-alias}A\\end{lemma}\n"
            "\\begin{lemma}\\label{lem:b}B\\end{lemma}\n"
            "\\begin{proof}By \\cref{lem:a-alias}.\\end{proof}\n"
            "See \\cref{lem:b}.\n")
    index = open_doc(make_project, tmp_path, body)
    assert "lem:b" in index.graph.succ.get("lem:a", set())
    assert not diags(index, "unused-label")


def test_claim_whose_inner_labels_only_it_references_is_unused(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:a}\\begin{enumerate}\\item\\label{it:a1} X \\item Y, by \\ref{it:a1}"
            "\\end{enumerate}\\end{lemma}\n"
            "\\begin{proof}As \\ref{it:a1}.\\end{proof}\n")
    index = open_doc(make_project, tmp_path, body)
    (hint,) = diags(index, "unused-label")
    assert "`lem:a` is never referenced" in hint.message


def test_an_edit_that_refers_to_the_alias_from_elsewhere_makes_the_claim_used(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:a}\\label{lem:a-alias}A, unlike \\ref{lem:a-alias}.\\end{lemma}\n"
            "\\input{other}\n")
    index = open_doc(make_project, tmp_path, body, {"other.tex": "Nothing.\n"})
    assert len(diags(index, "unused-label")) == 1
    other = index.root_dir / "other.tex"
    index.update_document(other, "See \\cref{lem:a-alias}.\n")
    assert not diags(index, "unused-label")
    index.update_document(other, "Nothing.\n")
    assert len(diags(index, "unused-label")) == 1


# ---- thm-restate ----------------------------------------------------------------------------------


@pytest.mark.parametrize("opening", ["\\begin{restatable}{theorem}{mainthm}",
                                     "\\begin{restatable*}{theorem}{mainthm}",
                                     "\\begin{restatable}[Main \\cite{x}]{theorem}{mainthm}"])
def test_restatable_theorem_is_a_claim_with_its_proof_and_uses(make_project, tmp_path, opening):
    end = "\\end{restatable*}" if "*" in opening else "\\end{restatable}"
    body = (f"{opening}\\label{{thm:main}}\nEvery graph is fine.\n{end}\n"
            "\\begin{proof}By \\cref{lem:key}.\\end{proof}\n"
            "\\begin{lemma}\\label{lem:key}K, towards \\cref{thm:main}.\\end{lemma}\n"
            "\\begin{proof}Direct.\\end{proof}\n"
            "\\section{Restated}\n\\mainthm*\n\\mainthm\n")
    index = open_doc(make_project, tmp_path, body)
    main = index.claims["thm:main"]
    assert main.kind == "theorem" and main.needs_proof and main.proof is not None
    assert main.statement_text.strip() == "\\label{thm:main}\nEvery graph is fine."
    assert "thm:main" in index.graph.succ["lem:key"]  # the main theorem's proof uses the lemma
    assert sorted(index.claims) == ["lem:key", "thm:main"]  # the restatements are no claims
    assert not diags(index, "duplicate-label") and not diags(index, "unterminated-environment")
    assert not diags(index, "orphan-proof")


def test_restatable_of_no_theorem_environment_is_no_claim(make_project, tmp_path):
    body = "\\begin{restatable}{equation}{eqmain}\\label{eq:main}x=1\\end{restatable}\n"
    index = open_doc(make_project, tmp_path, body)
    assert not index.claims
