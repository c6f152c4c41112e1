"""What the scanner reads as a label or a reference, and where exactly it is.

Everything here goes through ``ProjectIndex.open`` on a small inline project: the scanner's
events only matter through the labels, references, claims and sections they produce.
"""

from __future__ import annotations

import pytest

from colosseum.index import ProjectIndex
from colosseum.core.structure import Position, Range

PREAMBLE = "\\documentclass{article}\n\\usepackage{amsthm}\n\\newtheorem{lemma}{Lemma}\n"


def doc(body: str, preamble: str = "") -> str:
    return PREAMBLE + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"


def open_doc(make_project, tmp_path, body: str, preamble: str = "", extra: dict | None = None) -> ProjectIndex:
    files = {"main.tex": doc(body, preamble)}
    files.update(extra or {})
    return ProjectIndex.open(make_project(tmp_path, files))


def label_names(index: ProjectIndex) -> set[str]:
    return set(index.labels)


def ref_labels(index: ProjectIndex) -> list[str]:
    return sorted(r.label for r in index.references)


def line_of(index: ProjectIndex, needle: str, file: str = "main.tex") -> int:
    """0-based line of the first line containing ``needle``."""
    for i, line in enumerate((index.root_dir / file).read_text(encoding="utf-8").splitlines()):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {file}")


def utf16(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


# ---- comments and escapes ------------------------------------------------------------------------


def test_comment_hides_label_and_reference(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "text % \\label{hidden} \\ref{ghost} \\cref{g1,g2}\n\\label{shown}")
    assert "hidden" not in index.labels
    assert "shown" in index.labels
    assert ref_labels(index) == []


def test_whole_line_comment_and_comment_at_end_of_file(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": doc("%\\label{a}\n  %  \\uses{b}\n\\label{c}") + "% \\label{tail}"})
    index = ProjectIndex.open(root)
    assert label_names(index) == {"c"}
    assert index.references == []


def test_escaped_percent_is_not_a_comment(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "Up to 50\\% \\label{pct} and \\ref{pct}.")
    assert "pct" in index.labels
    assert ref_labels(index) == ["pct"]


def test_double_backslash_then_percent_is_a_comment(make_project, tmp_path):
    # \\ is a line break; the % after it starts a comment
    index = open_doc(make_project, tmp_path, "a\\\\% \\label{commented}\nb \\label{real}")
    assert "commented" not in index.labels
    assert "real" in index.labels


def test_double_backslash_directly_before_label(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "first line\\\\\\label{after-break}\nx\\\\\\\\\\ref{after-break}")
    assert "after-break" in index.labels
    assert ref_labels(index) == ["after-break"]


def test_escaped_backslash_label_word_is_not_a_command(make_project, tmp_path):
    # \\label... is "\\" followed by the word "label" only when the backslashes are odd/even:
    # "\\\\label{x}" in the source is a line break then the text "label{x}"
    index = open_doc(make_project, tmp_path, "a\\\\label{not-a-label}")
    assert "not-a-label" not in index.labels


# ---- verbatim-like material ----------------------------------------------------------------------


@pytest.mark.parametrize("verb", [
    "\\verb|\\label{v}|",
    "\\verb+\\label{v}\\ref{w}+",
    "\\verb*|\\label{v}|",
    "\\verb!\\cref{w}\\label{v}!",
])
def test_verb_never_yields_labels_or_refs(make_project, tmp_path, verb):
    index = open_doc(make_project, tmp_path, f"see {verb} then \\label{{after}}")
    assert label_names(index) == {"after"}
    assert index.references == []


@pytest.mark.parametrize("begin,end", [
    ("\\begin{verbatim}", "\\end{verbatim}"),
    ("\\begin{Verbatim}[frame=single]", "\\end{Verbatim}"),
    ("\\begin{lstlisting}[language=TeX]", "\\end{lstlisting}"),
    ("\\begin{minted}{latex}", "\\end{minted}"),
    ("\\begin{comment}", "\\end{comment}"),
])
def test_verbatim_environments_never_yield_labels_or_refs(make_project, tmp_path, begin, end):
    body = (f"{begin}\n\\label{{in-verb}} \\ref{{r1}} \\cref{{r2,r3}}\n"
            "\\begin{lemma}\\label{lem:fake}\\end{lemma}\n"
            f"{end}\n\\label{{after}}")
    index = open_doc(make_project, tmp_path, body)
    assert label_names(index) == {"after"}
    assert index.references == []
    assert index.claims == {}


def test_iffalse_block_is_skipped(make_project, tmp_path):
    body = ("\\iffalse\n\\label{off}\\ref{off-ref}\n\\begin{lemma}\\label{lem:off}\\end{lemma}\n\\fi\n"
            "\\label{on}")
    index = open_doc(make_project, tmp_path, body)
    assert label_names(index) == {"on"}
    assert index.references == []
    assert index.claims == {}


def test_nested_conditionals_inside_iffalse(make_project, tmp_path):
    body = ("\\iffalse\n\\ifnum1=1 \\label{a}\\fi\n\\label{b}\n\\fi\n\\label{visible}")
    index = open_doc(make_project, tmp_path, body)
    assert label_names(index) == {"visible"}


# ---- reference lists -----------------------------------------------------------------------------


def test_cref_comma_list_with_spaces_and_line_breaks(make_project, tmp_path):
    body = ("\\label{a}\\label{b}\\label{c}\n"
            "See \\cref{a, b,\n"
            "     c}.")
    index = open_doc(make_project, tmp_path, body)
    refs = sorted(index.references, key=lambda r: r.label)
    assert [r.label for r in refs] == ["a", "b", "c"]
    assert all(r.command == "cref" for r in refs)
    line = line_of(index, "See \\cref")
    assert refs[0].location.range == Range(Position(line, 10), Position(line, 11))
    assert refs[1].location.range == Range(Position(line, 13), Position(line, 14))
    assert refs[2].location.range == Range(Position(line + 1, 5), Position(line + 1, 6))


def test_uses_comma_list_multiline(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{x}X\\end{lemma}\n"
            "\\begin{lemma}\\label{y}Y\\end{lemma}\n"
            "\\begin{lemma}\\label{z}Z\\end{lemma}\n"
            "\\begin{lemma}\\label{main}M\\end{lemma}\n"
            "\\begin{proof}\n"
            "  \\uses{x,\n"
            "        y ,   z}\n"
            "  Done.\n"
            "\\end{proof}")
    index = open_doc(make_project, tmp_path, body)
    uses = [r for r in index.references if r.command == "uses"]
    assert sorted(r.label for r in uses) == ["x", "y", "z"]
    assert all(r.owner == "main" and r.part == "proof" for r in uses)
    z = next(r for r in uses if r.label == "z")
    line = line_of(index, "y ,   z}")
    assert z.location.range == Range(Position(line, 14), Position(line, 15))


def test_single_label_ref_keeps_comma(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\ref{a,b} and \\eqref{c, d}")
    assert sorted(r.label for r in index.references) == ["a,b", "c, d"]


def test_cref_list_does_not_keep_comma(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\Cref{a,b} \\crefrange{c}{d}")
    assert sorted(r.label for r in index.references) == ["a", "b", "c", "d"]


@pytest.mark.parametrize("command", ["cref*", "Cref*", "ref*"])
def test_starred_reference_commands(make_project, tmp_path, command):
    index = open_doc(make_project, tmp_path, f"\\label{{t}} see \\{command}{{t}}")
    refs = index.references
    assert [r.label for r in refs] == ["t"]
    assert refs[0].command == command.rstrip("*")


def test_starred_section_gets_its_label(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\section*{Starred}\\label{sec:star}\nText.")
    assert "sec:star" in index.sections
    assert index.sections["sec:star"].title == "Starred"
    assert index.labels["sec:star"][0].owner == "sec:star"


def test_starred_newtheorem_declares_a_claim_environment(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\begin{mainthm}\\label{mt}X\\end{mainthm}",
                     preamble="\\newtheorem*{mainthm}{Main Theorem}\n")
    assert "mt" in index.claims
    assert index.claims["mt"].kind == "mainthm"


# ---- exact ranges ---------------------------------------------------------------------------------


def test_label_range_after_non_bmp_character(make_project, tmp_path):
    prefix = "$\U0001D53D$ \u00e9 "  # $𝔽$ é
    index = open_doc(make_project, tmp_path, prefix + "\\label{field}")
    (label,) = index.labels["field"]
    line = line_of(index, "\\label{field}")
    col = utf16(prefix + "\\label{")
    assert col == len(prefix + "\\label{") + 1  # 𝔽 is two UTF-16 code units
    assert label.location.range == Range(Position(line, col), Position(line, col + len("field")))


def test_label_range_after_accented_character(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "caf\u00e9 \\label{cafe}")
    (label,) = index.labels["cafe"]
    line = line_of(index, "\\label{cafe}")
    assert label.location.range == Range(Position(line, 12), Position(line, 16))


def test_reference_range_after_non_bmp_characters(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\label{x}\n\U0001D53D\U0001D53D \\cref{x}")
    (ref,) = index.references
    line = line_of(index, "\\cref{x}")
    assert ref.location.range == Range(Position(line, 11), Position(line, 12))


def test_label_range_excludes_surrounding_spaces(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\label{  lem:spaced }")
    (label,) = index.labels["lem:spaced"]
    line = line_of(index, "lem:spaced")
    assert label.location.range == Range(Position(line, 9), Position(line, 19))


def test_labels_in_crlf_file_have_lf_positions(make_project, tmp_path):
    text = doc("first\n\\label{crlf}").replace("\n", "\r\n")
    index = ProjectIndex.open(make_project(tmp_path, {"main.tex": text.encode()}))
    (label,) = index.labels["crlf"]
    assert label.location.range.start == Position(PREAMBLE.count("\n") + 2, 7)


def test_a_lone_carriage_return_ends_a_line_as_in_tex_and_lsp(make_project, tmp_path):
    body = "first\rsecond\r\n\\label{cr} % \\label{hidden}\r\\label{shown}"
    text = doc("BODY").replace("\n", "\r").replace("BODY", body)
    index = ProjectIndex.open(make_project(tmp_path, {"main.tex": text.encode()}))
    first = PREAMBLE.count("\n") + 3  # preamble, \begin{document}, "first", "second"
    assert index.labels["cr"][0].location.range.start == Position(first, 7)
    # the comment ends at the carriage return, so the next line's label is real
    assert "hidden" not in index.labels
    assert index.labels["shown"][0].location.range.start == Position(first + 1, 7)


# ---- project wrappers -----------------------------------------------------------------------------


def test_newcommand_reference_wrapper_range_is_the_argument(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\begin{lemma}\\label{lem:a}A\\end{lemma}\nBy \\lemref{lem:a} we win.",
                     preamble="\\newcommand{\\lemref}[1]{Lemma~\\ref{#1}}\n")
    (ref,) = index.references
    assert ref.label == "lem:a"
    assert ref.command == "lemref"
    line = line_of(index, "By \\lemref")
    assert ref.location.range == Range(Position(line, 11), Position(line, 16))


def test_def_label_wrapper(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\begin{lemma}\\symlabel{x}Statement.\\end{lemma}\nSee \\ref{sym:x}.",
                     preamble="\\def\\symlabel#1{\\label{sym:#1}}\n")
    assert "sym:x" in index.labels
    assert "sym:x" in index.claims  # the wrapper's label is the claim's own label
    (label,) = index.labels["sym:x"]
    line = line_of(index, "\\symlabel{x}")
    assert label.location.range.start.line == line
    assert [r.label for r in index.references] == ["sym:x"]


def test_chapter_wrapper_makes_a_labelled_section(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\Chapter{3}{Title}\nText.",
                     preamble="\\newcommand{\\Chapter}[2]{\\chapter{#2}\\label{ch:#1}}\n")
    assert "ch:3" in index.sections
    section = index.sections["ch:3"]
    assert section.level == "chapter"
    assert section.title == "Title"
    assert section.label == "ch:3"
    assert section.location.range.start.line == line_of(index, "\\Chapter{3}")


def test_wrapper_defining_theorem_environments(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\begin{conj}\\label{conj:a}Every X is Y.\\end{conj}",
                     preamble="\\newcommand{\\defthm}[2]{\\newtheorem{#1}{#2}}\n\\defthm{conj}{Conjecture}\n")
    assert "conj:a" in index.claims
    assert index.claims["conj:a"].kind == "conj"


def test_xparse_reference_wrapper(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\label{a}\\label{b}\nBy \\thmref{a,b}.",
                     preamble="\\NewDocumentCommand{\\thmref}{m}{\\cref{#1}}\n")
    refs = sorted(index.references, key=lambda r: r.label)
    assert [(r.label, r.command) for r in refs] == [("a", "thmref"), ("b", "thmref")]
    line = line_of(index, "By \\thmref")
    assert refs[0].location.range == Range(Position(line, 11), Position(line, 12))
    assert refs[1].location.range == Range(Position(line, 13), Position(line, 14))


def test_xparse_wrapper_with_star_and_optional_argument(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\label{t}\n\\tref*[see]{t} and \\tref{t}",
                     preamble="\\NewDocumentCommand{\\tref}{s o m}{\\ref{#3}}\n")
    assert [r.label for r in index.references] == ["t", "t"]
    line = line_of(index, "\\tref*")
    starts = sorted(r.location.range.start for r in index.references)
    assert starts == [Position(line, 12), Position(line, 25)]


def test_newcommand_with_optional_argument_default(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\label{lem:q}\\label{thm:q}\n\\kref{q} \\kref[thm]{q}",
                     preamble="\\newcommand{\\kref}[2][lem]{\\ref{#1:#2}}\n")
    assert sorted(r.label for r in index.references) == ["lem:q", "thm:q"]


def test_let_alias_of_ref(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\label{x}\n\\myref{x}", preamble="\\let\\myref\\ref\n")
    (ref,) = index.references
    assert ref.label == "x"
    line = line_of(index, "\\myref{x}")
    assert ref.location.range == Range(Position(line, 7), Position(line, 8))


def test_irrelevant_macros_do_not_hide_text(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "$\\R$ \\label{after-r}",
                     preamble="\\newcommand{\\R}{\\mathbb{R}}\n")
    assert "after-r" in index.labels


def test_renewcommand_in_second_root_makes_wrapper_plain_text(make_project, tmp_path):
    root = make_project(tmp_path, {
        "defs.tex": "\\newcommand{\\myref}[1]{\\ref{#1}}\n",
        "body.tex": "\\section{Body}\\label{sec:body}\nSee \\myref{lem:nowhere}.\n",
        "a.tex": "\\documentclass{article}\n\\input{defs}\n\\begin{document}\n\\input{body}\n\\end{document}\n",
        "b.tex": ("\\documentclass{article}\n\\input{defs}\n\\renewcommand{\\myref}[1]{#1}\n"
                  "\\begin{document}\n\\input{body}\n\\end{document}\n"),
    })
    index = ProjectIndex.open(root)
    assert len(index.roots) == 2
    per_root = {r.root.name: [ref.label for ref in r.references] for r in index.root_results}
    assert per_root["a.tex"] == ["lem:nowhere"]
    assert per_root["b.tex"] == []
    undefined = [d for d in index.diagnostics() if d.code == "colosseum/undefined-reference"]
    assert len(undefined) == 1
    assert "a.tex" in undefined[0].message and "b.tex" not in undefined[0].message


def test_configured_label_commands(make_project, tmp_path):
    root = make_project(tmp_path, {
        "colosseum.toml": ('[index]\nlabel_reference_commands = ["\\\\thmlink", "seelemma"]\n'
                           'label_definition_commands = ["mylabel"]\n'),
        "main.tex": doc("\\begin{lemma}\\mylabel{lem:c}X\\end{lemma}\n\\thmlink{lem:c, other}\n\\seelemma{lem:c}"),
    })
    index = ProjectIndex.open(root)
    assert "lem:c" in index.claims
    assert sorted((r.label, r.command) for r in index.references) == [
        ("lem:c", "seelemma"), ("lem:c", "thmlink"), ("other", "thmlink")]
    assert not [d for d in index.diagnostics() if d.code == "colosseum/config-error"]


def test_macros_from_input_file_apply_after_the_input(make_project, tmp_path):
    root = make_project(tmp_path, {
        "macros.tex": "\\newcommand{\\lemref}[1]{Lemma~\\ref{#1}}\n\\newcommand{\\lab}[1]{\\label{lem:#1}}\n",
        "body.tex": "\\begin{lemma}\\lab{two}Y\\end{lemma}\nAgain \\lemref{lem:one}.\n",
        "main.tex": doc("\\input{macros}\n\\begin{lemma}\\lab{one}X\\end{lemma}\nBy \\lemref{lem:two}.\n\\input{body}"),
    })
    index = ProjectIndex.open(root)
    assert {"lem:one", "lem:two"} <= set(index.claims)
    refs = sorted(index.references, key=lambda r: r.label)
    assert [(r.label, r.command, r.location.file.name) for r in refs] == [
        ("lem:one", "lemref", "body.tex"), ("lem:two", "lemref", "main.tex")]
    line = line_of(index, "By \\lemref")
    assert refs[1].location.range == Range(Position(line, 11), Position(line, 18))


def test_wrapper_defined_after_use_does_not_apply_before(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\label{x}\n\\early{x}\n\\newcommand{\\early}[1]{\\ref{#1}}\n\\early{x}")
    assert len(index.references) == 1
    assert index.references[0].location.range.start.line == line_of(index, "\\early{x}") + 2


def test_recursive_wrapper_terminates(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\label{a}\\loopref{a}",
                     preamble="\\newcommand{\\loopref}[1]{\\ref{#1}\\loopref{#1}}\n")
    assert "a" in index.labels
    assert all(r.label == "a" for r in index.references)


def test_label_name_with_non_bmp_characters_has_utf16_length(make_project, tmp_path):
    name = "lem:\U0001D53D\u00e9"
    index = open_doc(make_project, tmp_path, f"\\label{{{name}}} \\ref{{{name}}}")
    (label,) = index.labels[name]
    line = line_of(index, "\\label{lem:")
    assert label.location.range == Range(Position(line, 7), Position(line, 14))
    (ref,) = index.references
    assert ref.location.range == Range(Position(line, 21), Position(line, 28))


def test_empty_items_of_a_reference_list_are_ignored(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\label{a}\\cref{a,}\\cref{,a}\\cref{ , a ,, }\\ref{}")
    assert [r.label for r in index.references] == ["a", "a", "a"]
    assert not [d for d in index.diagnostics() if d.code == "colosseum/undefined-reference"]


def test_unterminated_verb_ends_at_the_line(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\verb|abc\n\\label{after-verb}")
    assert "after-verb" in index.labels


def test_label_split_across_lines_is_normalised(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\label{lem:two\n  words}\\ref{lem:two words}")
    assert "lem:two words" in index.labels
    assert not [d for d in index.diagnostics() if d.code == "colosseum/undefined-reference"]


def test_reference_in_theorem_title_is_a_statement_use(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\begin{lemma}\\label{lem:a}A\\end{lemma}\n"
                     "\\begin{lemma}[Sharper form of \\cref{lem:a}]\\label{lem:b}B\\end{lemma}")
    (ref,) = index.references
    assert (ref.label, ref.owner, ref.part) == ("lem:a", "lem:b", "statement")
    assert "lem:b" in index.claims


def test_wrapper_through_another_wrapper_maps_back_to_the_call(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\label{a}\\label{b}\nX \\A{a} \\two{a}{b}",
                     preamble=("\\newcommand{\\B}[1]{\\ref{#1}}\n\\newcommand{\\A}[1]{see \\B{#1}}\n"
                               "\\newcommand*\\two[2]{\\ref{#1} and \\eqref{#2}}\n"))
    line = line_of(index, "X \\A{a}")
    got = sorted((r.command, r.label, r.location.range.start.character, r.location.range.end.character)
                 for r in index.references)
    assert got == [("A", "a", 5, 6), ("two", "a", 13, 14), ("two", "b", 16, 17)]
    assert all(r.location.range.start.line == line for r in index.references)


def test_label_wrapper_range_is_the_argument(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\begin{lemma}\\lab{lem:x}A\\end{lemma}\\ref{lem:x}",
                     preamble="\\newcommand{\\lab}[1]{\\label{#1}}\n")
    assert list(index.claims) == ["lem:x"]
    (label,) = index.labels["lem:x"]
    line = line_of(index, "\\lab{lem:x}")
    assert label.location.range == Range(Position(line, 18), Position(line, 23))


def test_uses_wrapper_in_a_proof(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\begin{lemma}\\label{a}x\\end{lemma}\\begin{lemma}\\label{b}y\\end{lemma}"
                     "\\begin{proof}\\lemuses{a}ok\\end{proof}",
                     preamble="\\newcommand{\\lemuses}[1]{\\uses{#1}}\n")
    (ref,) = index.references
    assert (ref.label, ref.command, ref.part, ref.owner) == ("a", "lemuses", "proof", "b")


def test_input_through_a_wrapper_is_followed(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\chap{one}", preamble="\\newcommand{\\chap}[1]{\\input{chapters/#1}}\n",
                     extra={"chapters/one.tex": "\\begin{lemma}\\label{lem:c}x\\end{lemma}\n"})
    assert list(index.claims) == ["lem:c"]


def test_let_to_relax_disables_a_wrapper(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\label{a}\\lemref{a}",
                     preamble="\\newcommand{\\lemref}[1]{\\ref{#1}}\n\\let\\lemref\\relax\n")
    assert index.references == []


def test_providecommand_does_not_override(make_project, tmp_path):
    index = open_doc(make_project, tmp_path, "\\label{a}\\lemref{a}",
                     preamble="\\newcommand{\\lemref}[1]{\\ref{#1}}\n\\providecommand{\\lemref}[1]{#1}\n")
    assert [r.label for r in index.references] == ["a"]
