"""How a hover and a completion show a claim's statement (audit D14), and where completion finds
the reference argument the cursor is in."""

from __future__ import annotations

from colosseum_lsp.features.completion import completion_context, text_before_cursor
from colosseum_lsp.features.statement_text import as_text, clean_statement, first_line

TITLED = r"""[Lov\'asz~\cite[Thm.~1]{EL75} and $[x]$]\label{thm:lll}
  \uses{def:dep}\leanok
  Events with a dependency graph (\cref{def:dep}, \Cref{lem:a,lem:b}) and \eqref{eq:c};
  see \ref{lem:a}, \crefrange{lem:a}{lem:b} and \citep{Sp77,AS}.
"""


def test_a_statement_shows_labels_for_references_and_keys_for_citations():
    text = as_text(TITLED, describe=lambda label: f"Lemma {label}")
    assert [line.strip() for line in text.splitlines()] == [
        "Events with a dependency graph (Lemma def:dep, Lemma lem:a, Lemma lem:b) and (eq:c);",
        "see lem:a, Lemma lem:a to lem:b and [Sp77, AS].",
    ]


def test_a_title_as_text_keeps_its_citation_and_note():
    assert as_text(r"Lov\'asz~\cite[Thm.~1]{EL75}") == "Lovász [EL75, Thm. 1]"


def test_the_first_line_skips_the_title_label_and_blueprint_commands():
    assert first_line(TITLED) == "Events with a dependency graph (def:dep, lem:a, lem:b) and (eq:c);"
    assert first_line("[Expected number of resamplings]\\label{lem:r}\n  \\obligation\n  Let $k \\ge 2$.\n") \
        == "Let $k \\ge 2$."
    assert clean_statement("No title \\label{x} here.") == "No title  here."


def test_completion_inside_a_list_begun_on_an_earlier_line():
    lines = ["Text.\n", "\\uses{lem:a,\n", "  lem:b,\n", "  thm:m"]
    assert completion_context(text_before_cursor(lines, 3, len(lines[3])), set()) == "thm:m"
    # a closed argument, or a paragraph break since it began: not in a reference
    closed = ["\\uses{lem:a}\n", "  thm:m"]
    assert completion_context(text_before_cursor(closed, 1, 7), set()) is None
    broken = ["\\cref{lem:a,\n", "\n", "  thm:m"]
    assert completion_context(text_before_cursor(broken, 2, 7), set()) is None
    # further up than the look-back: not looked for
    far = ["\\uses{lem:a,\n"] + ["  x,\n"] * 25 + ["  thm:m"]
    assert completion_context(text_before_cursor(far, 26, 7), set()) is None
    assert completion_context(text_before_cursor(["\\Lem{a,\n", " lem:x"], 1, 6), {"Lem"}) == "lem:x"
