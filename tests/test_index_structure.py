"""Claims, proofs, sections, obligations and statuses as the index reads them."""

from __future__ import annotations

import pytest

from colosseum.index import ProjectIndex

PREAMBLE = "\\documentclass{article}\n\\usepackage{amsthm}\n"


def doc(body: str, preamble: str = "") -> str:
    return PREAMBLE + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"


def open_doc(make_project, tmp_path, body: str, preamble: str = "", extra: dict | None = None) -> ProjectIndex:
    files = {"main.tex": doc(body, preamble)}
    files.update(extra or {})
    return ProjectIndex.open(make_project(tmp_path, files))


def line1(index: ProjectIndex, needle: str, file: str = "main.tex", occurrence: int = 0) -> int:
    """1-based line of the ``occurrence``-th line containing ``needle``."""
    hits = [i + 1 for i, line in enumerate((index.root_dir / file).read_text(encoding="utf-8").splitlines())
            if needle in line]
    return hits[occurrence]


# ---- which environments are claims -----------------------------------------------------------------


@pytest.mark.parametrize("env", ["theorem", "lemma", "proposition", "corollary", "definition", "remark",
                                 "example", "conjecture", "claim"])
def test_amsthm_names_are_claims_without_declaration(make_project, tmp_path, env):
    index = open_doc(make_project, tmp_path, f"\\begin{{{env}}}\\label{{c:{env}}}Text.\\end{{{env}}}")
    assert list(index.claims) == [f"c:{env}"]
    assert index.claims[f"c:{env}"].kind == env


def test_declared_theorem_environments(make_project, tmp_path):
    preamble = (
        "\\newtheorem{foo}{Foo}\n"
        "\\newtheorem*{bar}{Bar}\n"
        "\\newtheorem{shared}[foo]{Shared}\n"
        "\\newtheorem{within}{Within}[section]\n"
        "\\declaretheorem[name=Baz]{baz}\n"
        "\\declaretheorem{qux}\n"
        "\\spnewtheorem{spx}{SpX}{\\bfseries}{\\itshape}\n"
    )
    envs = ["foo", "bar", "shared", "within", "baz", "qux", "spx"]
    body = "\n".join(f"\\begin{{{e}}}\\label{{c:{e}}}Text.\\end{{{e}}}" for e in envs)
    index = open_doc(make_project, tmp_path, body, preamble)
    assert {cid: c.kind for cid, c in index.claims.items()} == {f"c:{e}": e for e in envs}


def test_non_theorem_environments_are_not_claims(make_project, tmp_path):
    body = ("\\begin{itemize}\\item\\label{it:a} A\\end{itemize}\n"
            "\\begin{equation}\\label{eq:a} x=1\\end{equation}\n"
            "\\begin{center}\\label{fig:c}\\end{center}\n"
            "\\begin{undeclared}\\label{u:a}\\end{undeclared}")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims == {}
    assert {"it:a", "eq:a", "fig:c", "u:a"} <= set(index.labels)


def test_theorem_declared_in_an_input_file_counts_everywhere(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\input{body}",
                     preamble="\\input{thms}\n",
                     extra={"thms.tex": "\\newtheorem{hypo}{Hypothesis}\n",
                            "body.tex": "\\begin{hypo}\\label{h:1}X\\end{hypo}\n"})
    assert index.claims["h:1"].kind == "hypo"


# ---- claim ids -------------------------------------------------------------------------------------


def test_claim_id_is_its_own_label_not_an_equation_label(make_project, tmp_path):
    body = ("\\begin{theorem}\n"
            "  We have\n"
            "  \\begin{equation}\\label{eq:inside} a = b \\end{equation}\n"
            "  \\label{thm:outer}\n"
            "\\end{theorem}")
    index = open_doc(make_project, tmp_path, body)
    assert list(index.claims) == ["thm:outer"]
    assert index.claims["thm:outer"].label == "thm:outer"
    assert index.labels["eq:inside"][0].owner == "thm:outer"
    assert index.labels["thm:outer"][0].owner == "thm:outer"


def test_claim_with_only_item_labels_gets_a_file_line_id(make_project, tmp_path):
    body = ("Text.\n"
            "\\begin{lemma}\n"
            "  \\begin{enumerate}\n"
            "    \\item\\label{it:one} first\n"
            "    \\item\\label{it:two} second\n"
            "  \\end{enumerate}\n"
            "\\end{lemma}")
    index = open_doc(make_project, tmp_path, body)
    expected = "main.tex:%d" % line1(index, "\\begin{lemma}")
    assert list(index.claims) == [expected]
    assert index.claims[expected].label is None
    assert index.labels["it:one"][0].owner == expected
    assert index.labels["it:two"][0].owner == expected


def test_unlabelled_claims_get_relative_file_and_line(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\begin{lemma}A\\end{lemma}\n\\input{parts/sub}",
                     extra={"parts/sub.tex": "% sub\n\n\\begin{theorem}B\\end{theorem}\n"})
    assert set(index.claims) == {"main.tex:%d" % line1(index, "\\begin{lemma}"), "parts/sub.tex:3"}
    assert index.claims["parts/sub.tex:3"].kind == "theorem"


def test_claim_title_and_location(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\begin{lemma}[Key lemma]\\label{lem:key}\nX.\n\\end{lemma}")
    claim = index.claims["lem:key"]
    assert claim.title == "Key lemma"
    assert claim.location.range.start.line + 1 == line1(index, "\\begin{lemma}")
    assert claim.location.range.start.character == 0
    assert claim.file == index.root_dir / "main.tex"


def test_duplicate_claim_labels_give_distinct_node_ids(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\begin{lemma}\\label{dup}A\\end{lemma}\n\\begin{lemma}\\label{dup}B\\end{lemma}")
    assert len(index.claims) == 2
    assert "dup" in index.claims


def test_claim_belongs_to_innermost_section(make_project, tmp_path):
    body = ("\\section{One}\\label{sec:one}\n"
            "\\subsection{Inner}\\label{sec:inner}\n"
            "\\begin{lemma}\\label{lem:a}A\\end{lemma}\n"
            "\\section{Two}\\label{sec:two}\n"
            "\\begin{lemma}\\label{lem:b}B\\end{lemma}")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims["lem:a"].section == "sec:inner"
    assert index.claims["lem:b"].section == "sec:two"
    assert index.sections["sec:inner"].parent == "sec:one"
    assert index.sections["sec:two"].parent is None
    assert index.sections["sec:inner"].level == "subsection"


def test_section_label_inside_title_and_unlabelled_section_id(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\section{Intro\\label{sec:intro}}\nText.\n\\section{Plain}\nMore.")
    assert "sec:intro" in index.sections
    assert index.sections["sec:intro"].title.startswith("Intro")
    plain = "main.tex:%d" % line1(index, "\\section{Plain}")
    assert plain in index.sections
    assert index.sections[plain].title == "Plain"


# ---- proofs ---------------------------------------------------------------------------------------


def test_proof_attaches_to_preceding_claim(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:a}A\\end{lemma}\n"
            "Some prose.\n"
            "\\begin{proof}\nBy \\cref{lem:b}.\n\\end{proof}\n"
            "\\begin{lemma}\\label{lem:b}B\\end{lemma}")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims["lem:a"].proof is not None
    assert index.claims["lem:b"].proof is None
    (ref,) = [r for r in index.references if r.label == "lem:b"]
    assert ref.owner == "lem:a" and ref.part == "proof"
    assert ref in index.claims["lem:a"].references


def test_proof_of_named_claim_placed_later(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:x}X\\end{lemma}\n"
            "\\begin{lemma}\\label{lem:y}Y\\end{lemma}\n"
            "\\begin{proof}\nDirect.\n\\end{proof}\n"
            "\\section{Appendix}\n"
            "\\begin{proof}[Proof of \\cref{lem:x}]\nBy \\cref{lem:y}.\n\\end{proof}")
    index = open_doc(make_project, tmp_path, body)
    x, y = index.claims["lem:x"], index.claims["lem:y"]
    assert x.proof is not None and x.proof.named_target == "lem:x"
    assert x.proof.location.range.start.line + 1 == line1(index, "Proof of")
    assert y.proof is not None and y.proof.named_target is None
    (use,) = [r for r in index.references if r.label == "lem:y"]
    assert use.owner == "lem:x" and use.part == "proof"
    # the title reference names the proof; it is not a use of lem:x by lem:x, nor by the section
    assert not [e for e in index.graph.edges if e.source == "lem:x" and e.kind != "contains"]
    assert index.graph.status["lem:x"] == "proved"


def test_proves_marker_names_the_claim(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:p}P\\end{lemma}\n"
            "\\begin{lemma}\\label{lem:q}Q\\end{lemma}\n"
            "\\begin{proof}\n\\proves{lem:p}\nEasy.\n\\end{proof}")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims["lem:p"].proof is not None
    assert index.claims["lem:q"].proof is None
    assert index.graph.status["lem:p"] == "proved"
    assert index.graph.status["lem:q"] == "open"


def test_label_inside_proof_belongs_to_the_claim(make_project, tmp_path):
    body = ("\\begin{theorem}\\label{thm:t}T\\end{theorem}\n"
            "\\begin{proof}\n\\begin{equation}\\label{eq:step} x \\end{equation}\n\\end{proof}\n"
            "Then \\eqref{eq:step}.")
    index = open_doc(make_project, tmp_path, body)
    assert index.labels["eq:step"][0].owner == "thm:t"


def test_statement_and_proof_reference_parts(make_project, tmp_path):
    body = ("\\begin{definition}\\label{def:d}D\\end{definition}\n"
            "\\begin{lemma}\\label{lem:l}Using \\cref{def:d}.\\end{lemma}\n"
            "\\begin{proof}\\uses{def:d} ok \\end{proof}\n"
            "Prose \\ref{lem:l}.")
    index = open_doc(make_project, tmp_path, body)
    parts = sorted((r.label, r.owner, r.part, r.command) for r in index.references)
    assert parts == [("def:d", "lem:l", "proof", "uses"), ("def:d", "lem:l", "statement", "cref"),
                     ("lem:l", None, "prose", "ref")]


# ---- obligations and statuses ----------------------------------------------------------------------


def test_obligation_command_inside_claim(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\begin{lemma}\\label{lem:o}\\obligation\nX\\end{lemma}")
    assert index.claims["lem:o"].obligation
    assert index.graph.status["lem:o"] == "obligation"


def test_obligation_comment_on_line_before(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:before}A\\end{lemma}\n"
            "% colosseum: obligation\n"
            "\\begin{lemma}\\label{lem:marked}B\\end{lemma}\n"
            "\\begin{lemma}\\label{lem:after}C\\end{lemma}")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims["lem:marked"].obligation
    assert not index.claims["lem:before"].obligation
    assert not index.claims["lem:after"].obligation
    assert index.graph.status["lem:marked"] == "obligation"


def test_obligation_comment_with_blank_lines_before_the_claim_marks_the_claim(make_project, tmp_path):
    # a researcher's first marker in carleson, with a blank line before \\begin{lemma}: the whole
    # section became the obligation (listed alone by `obligations`), and `solve --label` of the
    # lemma was refused as "not an obligation"
    body = ("\\section{Grids}\\label{sec:grid}\n"
            "\\begin{lemma}\\label{lem:before}A\\end{lemma}\n\\begin{proof}Easy.\\end{proof}\n"
            "% colosseum: obligation\n\n  \n"
            "\\begin{lemma}\\label{lem:marked}B\\end{lemma}\n"
            "% colosseum: obligation\nWe now prove:\n"
            "\\begin{lemma}\\label{lem:prose}C\\end{lemma}")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims["lem:marked"].obligation and index.graph.status["lem:marked"] == "obligation"
    assert not index.claims["lem:before"].obligation and not index.claims["lem:prose"].obligation
    assert index.sections["sec:grid"].obligation  # the second marker, followed by prose, marks where it is


def test_obligation_comment_inside_claim(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:in}\n  % colosseum: obligation\n  B\n\\end{lemma}\n"
            "\\begin{lemma}\\label{lem:next}C\\end{lemma}")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims["lem:in"].obligation
    assert not index.claims["lem:next"].obligation


def test_obligation_in_proof_marks_the_claim(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:pf}A\\end{lemma}\n"
            "\\begin{proof}\\obligation\\end{proof}")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims["lem:pf"].obligation
    assert index.graph.status["lem:pf"] == "obligation"


def test_statuses(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:open}No proof yet.\\end{lemma}\n"
            "\\begin{lemma}\\label{lem:ob}\\obligation To do.\\end{lemma}\n"
            "\\begin{lemma}\\label{lem:proved}Fine.\\end{lemma}\n"
            "\\begin{proof}Trivial.\\end{proof}\n"
            "\\begin{lemma}\\label{lem:direct}Uses the obligation.\\end{lemma}\n"
            "\\begin{proof}By \\cref{lem:ob}.\\end{proof}\n"
            "\\begin{theorem}\\label{thm:transitive}Far away.\\end{theorem}\n"
            "\\begin{proof}\\uses{lem:direct} done.\\end{proof}\n"
            "\\begin{lemma}\\label{lem:stmt}Mentions \\cref{lem:ob} in its statement.\\end{lemma}\n"
            "\\begin{proof}Independent argument.\\end{proof}\n"
            "\\begin{lemma}\\label{lem:openuse}Cites an open lemma.\\end{lemma}\n"
            "\\begin{proof}By \\cref{lem:open}.\\end{proof}\n"
            "\\begin{lemma}\\label{lem:empty}Empty proof.\\end{lemma}\n"
            "\\begin{proof}\\end{proof}")
    index = open_doc(make_project, tmp_path, body)
    status = index.graph.status
    assert status["lem:open"] == "open"
    assert status["lem:ob"] == "obligation"
    assert status["lem:proved"] == "proved"
    assert status["lem:direct"] == "conditional"
    assert status["thm:transitive"] == "conditional"
    assert index.graph.conditional_on["thm:transitive"] == ["lem:ob", "lem:direct", "thm:transitive"]
    assert status["lem:stmt"] == "proved"
    # a proof resting on a claim with no proof is conditional, like one resting on an obligation
    assert status["lem:openuse"] == "conditional"
    assert index.graph.conditional_on["lem:openuse"] == ["lem:open", "lem:openuse"]
    assert status["lem:empty"] == "open"


@pytest.mark.parametrize("env", ["definition", "remark", "example", "notation"])
def test_definitions_and_remarks_are_not_open(make_project, tmp_path, env):
    index = open_doc(make_project, tmp_path, f"\\begin{{{env}}}\\label{{n:x}}Meaning.\\end{{{env}}}")
    assert index.graph.status["n:x"] != "open"
    assert not index.claims["n:x"].needs_proof


def test_declared_definition_style_is_not_open(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\begin{setting}\\label{st:a}We fix a graph.\\end{setting}",
                     preamble="\\theoremstyle{definition}\n\\newtheorem{setting}{Setting}\n")
    assert index.graph.status["st:a"] != "open"


def test_lean_markers(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\begin{lemma}\\label{lem:lean}\\lean{Foo.bar, Foo.baz}\\leanok X\\end{lemma}")
    claim = index.claims["lem:lean"]
    assert claim.lean_decls == ["Foo.bar", "Foo.baz"]
    assert claim.leanok


def test_index_of_example_project(tmp_path):
    from pathlib import Path

    index = ProjectIndex.open(Path(__file__).resolve().parents[1] / "example-project")
    assert len(index.claims) == 21
    assert index.graph.status["lem:resampling"] == "obligation"
    assert index.graph.status["thm:main"] == "conditional"
    assert index.claims["lem:mutual-independence"].proof is not None
    assert index.claims["lem:mutual-independence"].proof.named_target == "lem:mutual-independence"


@pytest.mark.parametrize("title", ["Proof of \\cref{thm:a}", "The case \\eqref{eq:a}", "After \\ref{thm:a}"])
def test_section_with_a_reference_in_its_title_keeps_its_label(make_project, tmp_path, title):
    body = (f"\\section{{{title}}}\\label{{sec:p}}\nText.\n"
            "\\begin{theorem}\\label{thm:a}\\begin{equation}\\label{eq:a}x\\end{equation}\\end{theorem}")
    index = open_doc(make_project, tmp_path, body)
    assert "sec:p" in index.sections
    assert index.sections["sec:p"].label == "sec:p"
    assert index.sections["sec:p"].title == title
    assert index.claims["thm:a"].section == "sec:p"


def test_configured_theorem_environments(make_project, tmp_path):
    root = make_project(tmp_path, {
        "colosseum.toml": '[index]\ntheorem_environments = ["principle"]\n',
        "main.tex": doc("\\begin{principle}\\label{pr:a}Always.\\end{principle}"),
    })
    index = ProjectIndex.open(root)
    assert index.claims["pr:a"].kind == "principle"


def test_claim_inside_a_proof(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:a}A\\end{lemma}\n"
            "\\begin{proof}\n"
            "\\begin{claim}\\label{cl:in}Inner.\\end{claim}\n"
            "\\begin{proof}Inner proof.\\end{proof}\n"
            "By \\cref{cl:in}.\n"
            "\\end{proof}")
    index = open_doc(make_project, tmp_path, body)
    assert index.claims["lem:a"].proof is not None
    assert index.claims["cl:in"].proof is not None
    assert index.claims["lem:a"].proof.location.range.start.line + 1 == line1(index, "\\begin{proof}")
    assert index.graph.status["lem:a"] == "proved"
