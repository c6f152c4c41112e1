"""Quote verification: a quoted span is found in whichever file, modulo whitespace and comments,
and mapped to an exact range (0-based line, UTF-16 columns); what is not there is never pinned."""

from __future__ import annotations

from colosseum.index import ProjectIndex
from colosseum.loops.review import anchor_quote
from colosseum.loops.review.anchoring import DocumentText, normalize_quote, strip_comment

FILES = {
    "main.tex": r"""
        \documentclass{article}
        \begin{document}
        \input{a}
        \input{b}
        \end{document}
    """,
    "a.tex": r"""
        \section{One}\label{sec:one}
        Let $x$ be positive. % the author's note
        % a whole comment line between the two halves
        Then the bound
            holds for every $n$.
        The same sentence appears twice.
    """,
    "b.tex": """
        \\section{Two}
        The same sentence appears twice.
        \U0001D53D and \u00e9 come before the target words here.
        A percent sign \\% is text, not a comment.
    """,
}


def _index(make_project, tmp_path) -> ProjectIndex:
    return ProjectIndex.open(make_project(tmp_path, FILES))


def test_a_quote_across_lines_and_a_comment_maps_to_the_exact_range(make_project, tmp_path):
    index = _index(make_project, tmp_path)
    path, rng = anchor_quote(index, "positive.   Then the bound holds for every $n$.")
    assert path.name == "a.tex"
    lines = (tmp_path / "a.tex").read_text().splitlines()
    assert (rng.start.line, rng.start.character) == (1, lines[1].index("positive"))
    assert (rng.end.line, rng.end.character) == (4, len(lines[4]))
    # a quote that copied the comment line too is the same span
    assert anchor_quote(index, "positive.\n% a whole comment line between the two halves\nThen the bound") is not None


def test_the_file_is_whichever_holds_the_quote_and_the_hint_only_chooses_among_occurrences(make_project, tmp_path):
    index = _index(make_project, tmp_path)
    path, rng = anchor_quote(index, "The same sentence appears twice.")
    assert path.name == "a.tex" and rng.start.line == 5  # no hint: the first in reading order
    path, rng = anchor_quote(index, "The same sentence appears twice.", hint_file="b.tex", hint_line=2)
    assert path.name == "b.tex" and rng.start.line == 1
    # a wrong hint never moves a quote that occurs once
    path, rng = anchor_quote(index, "Then the bound", hint_file="b.tex", hint_line=40)
    assert path.name == "a.tex" and rng.start.line == 3


def test_columns_are_utf16_code_units(make_project, tmp_path):
    index = _index(make_project, tmp_path)
    path, rng = anchor_quote(index, "the target words")
    line = (tmp_path / "b.tex").read_text().splitlines()[2]
    before = line[: line.index("the target words")]
    assert path.name == "b.tex" and rng.start.line == 2
    assert rng.start.character == len(before.encode("utf-16-le")) // 2 == len(before) + 1  # the non-BMP letter


def test_an_unfound_quote_is_not_anchored_anywhere(make_project, tmp_path):
    index = _index(make_project, tmp_path)
    assert anchor_quote(index, "Then the bound fails for every $n$.") is None
    assert anchor_quote(index, "the author's note") is None  # comments are not the paper
    assert anchor_quote(index, "   ") is None
    assert anchor_quote(index, "A percent sign \\% is text") is not None


def test_line_number_prefixes_and_an_ellipsis_are_understood(make_project, tmp_path):
    index = _index(make_project, tmp_path)
    path, rng = anchor_quote(index, "4| Then the bound\n5|     holds for every")
    assert path.name == "a.tex" and rng.start.line == 3
    path, rng = anchor_quote(index, "Let $x$ be positive. ... holds for every $n$.")
    assert (rng.start.line, rng.end.line) == (1, 4)
    assert anchor_quote(index, "holds for every $n$. ... Let $x$") is None  # the pieces must be in order
    assert normalize_quote("a  ... b") == ["a", "b"] and strip_comment(r"50\% off % note") == r"50\% off "


def test_the_rendering_numbers_every_line_and_leaves_comments_out(make_project, tmp_path):
    index = _index(make_project, tmp_path)
    doc = DocumentText(index)
    assert [p.name for p in doc.files] == ["main.tex", "a.tex", "b.tex"]
    text = doc.render_all()
    assert '<file path="a.tex">' in text and "2| Let $x$ be positive." in text
    assert "note" not in text and "whole comment line" not in text and "4| Then the bound" in text
