"""Less common spellings of the structural commands: cleveref's typed \\label, \\endinput,
minted's inline code, biblatex and natbib citations in a claim's title.

Like tests/test_scanner.py, everything goes through ``ProjectIndex.open`` on a small project.
"""

from __future__ import annotations

import pytest

from colosseum.index import ProjectIndex
from colosseum.core.structure import Position, Range

PREAMBLE = "\\documentclass{article}\n\\usepackage{amsthm}\n\\newtheorem{lemma}{Lemma}\n"


def doc(body: str) -> str:
    return PREAMBLE + "\\begin{document}\n" + body + "\n\\end{document}\n"


def open_files(make_project, tmp_path, files: dict[str, str]) -> ProjectIndex:
    return ProjectIndex.open(make_project(tmp_path, files))


def undefined(index: ProjectIndex) -> list[str]:
    return sorted(d.message for d in index.diagnostics() if d.code == "colosseum/undefined-reference")


def duplicates(index: ProjectIndex) -> list[str]:
    return sorted(d.message for d in index.diagnostics() if "duplicate" in d.code)


# ---- cleveref's \label[type]{name} ---------------------------------------------------------------


def test_label_with_cleveref_type_names_the_claim(make_project, tmp_path):
    body = "\\begin{lemma}\\label[lemma]{lem:opt}\nTrue.\n\\end{lemma}\nBy \\cref{lem:opt}."
    index = open_files(make_project, tmp_path, {"main.tex": doc(body)})
    assert undefined(index) == []
    assert "lem:opt" in index.claims
    assert "lemma" not in index.labels
    (label,) = index.labels["lem:opt"]
    assert label.owner == "lem:opt"
    line = 4  # preamble (3 lines), \begin{document}, then the body
    col = len("\\begin{lemma}\\label[lemma]{")
    assert label.location.range == Range(Position(line, col), Position(line, col + len("lem:opt")))


def test_label_with_cleveref_type_and_space_before_it(make_project, tmp_path):
    body = "\\begin{lemma} \\label [lemma]{lem:sp} X\\end{lemma}"
    index = open_files(make_project, tmp_path, {"main.tex": doc(body)})
    assert "lem:sp" in index.claims


@pytest.mark.parametrize("command", ["ref*", "cref*", "Cref*", "autoref*", "nameref*"])
def test_starred_references_are_references(make_project, tmp_path, command):
    body = f"\\label{{t}} see \\{command}{{t}} and \\{command}{{gone}}"
    index = open_files(make_project, tmp_path, {"main.tex": doc(body)})
    assert sorted(r.label for r in index.references) == ["gone", "t"]
    assert len(undefined(index)) == 1


# ---- citations in a claim's title ----------------------------------------------------------------


@pytest.mark.parametrize("title", [
    "\\cite{X}", "\\parencite{X}", "\\autocite[p.~3]{X}", "{\\Textcite{X}}", "\\Cite{X}", "\\footcite{X}",
    "\\citeauthor{X}, \\citeyear{X}", "\\citep{X}", "\\citet[Thm.~2]{X}", "\\citealp{X}", "\\textcites{X}{Y}",
])
def test_claim_citing_the_literature_is_cited(make_project, tmp_path, title):
    body = f"\\begin{{lemma}}[{title}]\\label{{lem:q}}\nKnown.\n\\end{{lemma}}"
    index = open_files(make_project, tmp_path, {"main.tex": doc(body)})
    assert index.claims["lem:q"].cited


@pytest.mark.parametrize("title", ["Cauchy", "an \\excited{} state", "\\nocite{X}"])
def test_claim_title_without_a_citation_is_not_cited(make_project, tmp_path, title):
    body = f"\\newcommand{{\\excited}}{{!}}\\begin{{lemma}}[{title}]\\label{{lem:q}}\nOpen.\n\\end{{lemma}}"
    index = open_files(make_project, tmp_path, {"main.tex": doc(body)})
    assert not index.claims["lem:q"].cited


# ---- inline code: minted, fancyvrb ---------------------------------------------------------------


@pytest.mark.parametrize("code", [
    "\\mintinline{latex}{\\ref{x}}",
    "\\mintinline{latex}{\\cref{x} {\\label{y}}}",
    "\\mintinline[fontsize=\\small]{latex}{\\ref{x}}",
    "\\mintinline{latex}|\\ref{x}\\label{y}|",
    "\\mintinline[breaklines]{tex}!\\uses{x}!",
    "\\Verb|\\ref{x}|",
    "\\Verb*+\\label{y}+",
    "\\Verb[commandchars=\\\\\\{\\}]|\\ref{x}|",
])
def test_inline_code_never_yields_labels_or_refs(make_project, tmp_path, code):
    index = open_files(make_project, tmp_path, {"main.tex": doc(f"see {code} then \\label{{after}} \\ref{{after}}")})
    assert set(index.labels) == {"after"}
    assert [r.label for r in index.references] == ["after"]
    assert [d.code for d in index.diagnostics() if d.severity == 1] == []


def test_inputminted_is_no_include(make_project, tmp_path):
    files = {"main.tex": doc("\\inputminted{latex}{snippet.tex}"), "snippet.tex": "\\label{in-snippet}\\ref{nowhere}\n"}
    index = open_files(make_project, tmp_path, files)
    assert index.labels == {}
    assert index.references == []


# ---- \endinput ------------------------------------------------------------------------------------


def _with_part(part: str, body: str = "\\input{part}\n\\label{lem:late}\n") -> dict[str, str]:
    return {"main.tex": doc(body), "part.tex": part}


def test_nothing_after_endinput_is_read(make_project, tmp_path):
    part = ("\\begin{lemma}\\label{lem:in}X\\end{lemma}\n"
            "\\endinput\n"
            "\\section{Notes}\\label{sec:notes}\n"
            "\\begin{lemma}\\label{lem:late}Y\\end{lemma} \\ref{lem:gone} \\cref{lem:in}\n"
            "\\input{other}\n")
    files = _with_part(part)
    files["other.tex"] = "\\label{from-other}\n"
    index = open_files(make_project, tmp_path, files)
    assert set(index.claims) == {"lem:in"}
    assert set(index.labels) == {"lem:in", "lem:late"}
    assert index.labels["lem:late"][0].location.file.name == "main.tex"
    assert index.sections == {}
    assert index.references == []
    assert duplicates(index) == [] and undefined(index) == []


def test_the_rest_of_the_endinput_line_is_read(make_project, tmp_path):
    part = "\\label{a}\\endinput \\label{same-line} \\ref{a}\n\\label{next-line}\n"
    index = open_files(make_project, tmp_path, _with_part(part, "\\input{part}\n"))
    assert set(index.labels) == {"a", "same-line"}
    assert [r.label for r in index.references] == ["a"]


@pytest.mark.parametrize("hidden", [
    "% \\endinput\n",
    "\\verb|\\endinput|\n",
    "\\begin{verbatim}\n\\endinput\n\\end{verbatim}\n",
    "\\iffalse\n\\endinput\n\\fi\n",
    "\\ifdefined\\partloaded\\endinput\\fi\n",
    "\\ifx\\partloaded\\undefined\n\\else\n  \\endinput\n\\fi\n",
    "\\newif\\ifdraft\n\\ifdraft\\endinput\\fi\n",
    "\\endinputx\n",
])
def test_endinput_that_tex_does_not_obey_here_stops_nothing(make_project, tmp_path, hidden):
    index = open_files(make_project, tmp_path, _with_part(hidden + "\\label{after}\n", "\\input{part}\n"))
    assert "after" in index.labels


def test_endinput_after_a_closed_conditional_stops_the_file(make_project, tmp_path):
    part = "\\newif\\ifdraft\n\\ifdraft x\\else y\\fi\n\\endinput\n\\label{after}\n"
    index = open_files(make_project, tmp_path, _with_part(part, "\\input{part}\n"))
    assert "after" not in index.labels


def test_edits_around_endinput_agree_with_a_fresh_index(make_project, tmp_path):
    part = "\\label{a}\n" + "Text.\n" * 30 + "\\endinput\n\\label{b}\n"
    root = make_project(tmp_path, _with_part(part, "\\input{part}\n"))
    index = ProjectIndex.open(root)
    path = root / "part.tex"
    guarded = "\\ifdefined\\partloaded\n" + part
    edits = [part + "\\label{c}\n", guarded, part, part.replace("\\endinput", "\\relax"),
             part.replace("\\endinput", "\\relax") + "\\endinput\n\\label{d}\n"]
    seen = []
    for text in edits:
        index.update_document(path, text)
        path.write_text(text, encoding="utf-8")
        seen.append(set(index.labels))
        assert seen[-1] == set(ProjectIndex.open(root).labels)
    assert seen == [{"a"}, {"a", "b"}, {"a"}, {"a", "b"}, {"a", "b"}]
