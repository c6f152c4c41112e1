"""Open documents (server/colosseum_lsp/documents.py): an incremental change lands where the
protocol's positions say, compared with a slow reading of the protocol on random texts."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from colosseum_lsp.documents import LspTextDocument, lsp_lines, offset_at


def _reference_offset(text: str, line: int, units: int) -> int:
    """The protocol read literally: lines end at \\n, \\r\\n or \\r; a column counts UTF-16 code
    units and stops at the line's end; a line past the last is the end of the text."""
    pieces = re.split(r"(\r\n|\r|\n)", text)
    contents, breaks = pieces[0::2], pieces[1::2]
    if line >= len(contents):
        return len(text)
    offset = sum(len(c) for c in contents[:line]) + sum(len(b) for b in breaks[:line])
    counted = 0
    for char in contents[line]:
        if counted >= units:
            break
        counted += 2 if ord(char) > 0xFFFF else 1
        offset += 1
    return offset


_ALPHABET = st.sampled_from(list("ab \\{}") + ["\n", "\r", "\r\n", "\x0c", "\u2028", "\x85", "é", "😀"])
texts = st.lists(_ALPHABET, max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts, st.integers(0, 12), st.integers(0, 12))
def test_offsets_follow_the_protocol(text, line, units):
    assert offset_at(text, types.Position(line=line, character=units)) == _reference_offset(text, line, units)


@settings(max_examples=300, deadline=None)
@given(texts, st.integers(0, 12), st.integers(0, 12), st.integers(0, 12), st.integers(0, 12), texts)
def test_a_change_replaces_exactly_its_range(text, l1, c1, l2, c2, new):
    (l1, c1), (l2, c2) = sorted([(l1, c1), (l2, c2)])
    start, end = _reference_offset(text, l1, c1), _reference_offset(text, l2, c2)
    doc = LspTextDocument("file:///x.tex", text)
    doc.apply_change(types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=l1, character=c1), end=types.Position(line=l2, character=c2)),
        text=new))
    assert doc.source == text[:start] + new + text[max(start, end):]


@settings(max_examples=300, deadline=None)
@given(texts)
def test_lines_split_only_at_protocol_line_ends(text):
    lines = lsp_lines(text)
    assert "".join(lines) == text
    for piece in lines[:-1]:
        assert piece.endswith(("\n", "\r"))
        assert "\n" not in piece.rstrip("\r\n") and "\r" not in piece.rstrip("\r\n")
    assert len(lines) == len(re.findall(r"\r\n|\r|\n", text)) + (0 if not text or text.endswith(("\n", "\r")) else 1)


def test_a_whole_document_change_replaces_the_text():
    doc = LspTextDocument("file:///x.tex", "old\x0ctext\n")
    doc.apply_change(types.TextDocumentContentChangeWholeDocument(text="new"))
    assert doc.source == "new"
