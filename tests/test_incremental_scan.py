"""An edit rescans only the lines it touched; the result must be exactly what a full scan gives."""

from __future__ import annotations

from itertools import accumulate
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from colosseum.project.analysis import theorem_declarations
from colosseum.latex.incremental import _extent, common_prefix, common_suffix, rescan
from colosseum.latex.scanner import scan
from colosseum.latex.macros import MacroTable

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
# braces of the text (checked for balance) in groups over lines, around environments, escaped
BRACES = ("\\begin{document}\n{\\bf A group\nover lines \\ref{a}}\n\\begin{lemma}\\label{l} { x \\end{lemma}\n"
          "x } y \\{ \\} \\left\\{ {a {b\n\n c} d}\n\\begin{proof}{\\begin{center}\nz\\end{center}}\\end{proof}\n"
          "\\section{T {\\em e}\\label{s}}\n" + "Line {with} a {group}.\n" * 20 + "{ open\nat the end\n")
TEXTS = [p.read_text() for p in sorted(EXAMPLE.rglob("*.tex"))] + [BRACES]
SNIPPETS = ["x", "\n", "\n\n", "\\label{new}", "\\cref{a,b}", "}", "{", "%", "% colosseum: obligation\n",
            "\\begin{verbatim}", "\\end{verbatim}", "\\iffalse", "\\fi", "\\begin{lemma}", "\\end{lemma}",
            "\\newcommand{\\foo}[1]{\\ref{#1}}", "\\uses{p,\n q}", "\\\\", "\\%", "\\section{T}", "é𝔽", "",
            "{\n", "}\n", "\\{", "\\}", "\\verb|{|", "{ x \\end{lemma}", "\\begin{proof}{", "}\\end{proof}",
            "\\begin{definition}[", "[", "]", "]\n"]


def _key(result):
    return ([(e.kind, e.start, e.end, e.name, e.value, e.vstart, e.vend, repr(e.extra)) for e in result.events],
            result.skips)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(TEXTS), st.floats(0, 1), st.integers(0, 60), st.lists(st.sampled_from(SNIPPETS), max_size=3))
def test_rescan_equals_full_scan(text, where, length, inserted):
    table = MacroTable()
    start = int(where * len(text))
    new_text = text[:start] + "".join(inserted) + text[start + length:]
    old = scan(text, table)
    old.structural, old.ordered, old.theorem_declarations(theorem_declarations)  # what a rescan carries over
    incremental = rescan(text, new_text, old, table)
    if incremental is not None:
        full = scan(new_text, table)
        assert _key(incremental) == _key(full)
        # what it carried over from the old scan is what the full scan computes
        assert [(e.kind, e.start, e.name, e.value) for e in incremental.structural] == \
            [(e.kind, e.start, e.name, e.value) for e in full.structural]
        assert incremental.ordered == full.ordered
        assert [(d.env, d.title, d.style) for d in incremental.theorem_declarations(theorem_declarations)] == \
            [(d.env, d.title, d.style) for d in full.theorem_declarations(theorem_declarations)]
        reach = incremental._reach or []
        assert reach == list(accumulate((_extent(e) for e in incremental.events[:len(reach)]), max))


def test_an_edit_inside_a_title_begun_on_an_earlier_line_reads_the_title_again():
    """``\\begin{definition}[`` whose title runs on: an edit on a later line changes the title
    (found by the random edits of the whole index: the title of the earlier scan stayed)."""
    text = "\\begin{definition}[\n  Let $x$ be \\cref{a}.\n  More.\n\\end{definition}\n" + "$P[A]$ text.\n" * 3
    new_text = text.replace("[\n  Let", "[\n}  Let")
    table = MacroTable()
    old = scan(text, table)
    assert old.events[0].kind == "begin" and "Let" in old.events[0].value  # the title ran on to `P[A]`
    incremental = rescan(text, new_text, old, table)
    assert incremental is None or _key(incremental) == _key(scan(new_text, table))
    assert (incremental or scan(new_text, table)).events[0].value == ""


def test_rescan_reads_with_the_macros_the_file_defined_before_the_edit():
    text = "\\newcommand{\\foo}[1]{\\ref{#1}}\n" + "Text.\n" * 40 + "End.\n"
    new_text = text.replace("End.", "End \\foo{lem:x}.")
    table = MacroTable()
    incremental = rescan(text, new_text, scan(text, table), table)
    assert incremental is not None
    assert _key(incremental) == _key(scan(new_text, table))
    assert any(e.kind == "ref" and e.value == "lem:x" for e in incremental.events)


def test_rescan_is_used_for_an_ordinary_edit():
    text = TEXTS[0]
    line_start = text.index("\n", len(text) // 2) + 1
    new_text = text[:line_start] + "Some words and \\cref{lem:resampling}.\n" + text[line_start:]
    result = rescan(text, new_text, scan(text, MacroTable()), MacroTable())
    assert result is not None
    assert any(e.kind == "ref" and e.value == "lem:resampling" and e.vstart > line_start for e in result.events)


def test_a_new_definition_falls_back_to_a_full_scan():
    text = TEXTS[0]
    new_text = text.replace("\n", "\n\\newcommand{\\lemref}[1]{\\ref{#1}}\n", 1)
    assert rescan(text, new_text, scan(text, MacroTable()), MacroTable()) is None


def test_common_prefix_and_suffix():
    assert common_prefix("abcdef", "abXdef") == 2
    assert common_suffix("abcdef", "abXdef", 3) == 3
    assert common_prefix("", "abc") == 0
