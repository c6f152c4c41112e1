"""Open documents as the protocol defines their lines.

pygls applies an incremental change by splitting the whole document with ``str.splitlines``,
which also breaks lines at form feeds, vertical tabs and U+2028 (TeX files do contain ``^^L``
page breaks): an edit below such a character lands on the wrong line. It also rebuilds the text
line by line, a few milliseconds per keystroke in a 10,000-line file. Here a change finds its
two offsets with the protocol's line ends only (``\\n``, ``\\r\\n``, ``\\r``) and splices the
text once.
"""

from __future__ import annotations

import re
from itertools import islice

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from colosseum_lsp.convert import utf16_to_index

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# what str.splitlines also treats as a line end, though the protocol does not
_NOT_A_LINE_BREAK = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def line_start(text: str, line: int) -> int | None:
    """Offset where ``line`` (0-based) starts, or None when the text has fewer lines."""
    if line <= 0:
        return 0
    if "\r" not in text:
        parts = text.split("\n", line)  # the last part is whatever follows the line's start
        return len(text) - len(parts[-1]) if len(parts) > line else None
    found = None
    for found in islice(_LINE_BREAK.finditer(text), line - 1, line):
        pass
    return found.end() if found is not None else None


def line_end(text: str, start: int) -> int:
    """Offset of the line end (before its break) of the line starting at ``start``."""
    if "\r" not in text:
        end = text.find("\n", start)
        return len(text) if end < 0 else end
    found = _LINE_BREAK.search(text, start)
    return len(text) if found is None else found.start()


def utf16_column(line_text: str, units: int) -> int:
    """The code-point column of ``units`` UTF-16 code units into ``line_text``, at most its
    length (the protocol: a character past the line's end means the end)."""
    if line_text.isascii():
        return min(units, len(line_text))
    return utf16_to_index(line_text, units)


def offset_at(text: str, position: types.Position) -> int:
    """Offset in ``text`` of a UTF-16 position; past the last line is the end of the text."""
    start = line_start(text, position.line)
    if start is None:
        return len(text)
    end = line_end(text, start)
    return start + utf16_column(text[start:end], max(0, position.character))


def lsp_lines(text: str) -> tuple[str, ...]:
    """The document's lines with their ends, split where the protocol splits them."""
    if _NOT_A_LINE_BREAK.search(text) is None:
        return tuple(text.splitlines(True))  # the same split, done in C
    return tuple(_LINE.findall(text))


class LspTextDocument(TextDocument):
    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        text = self.source
        start = offset_at(text, change.range.start)
        end = max(start, offset_at(text, change.range.end))
        self._source = text[:start] + change.text + text[end:]

    @property
    def lines(self):
        return lsp_lines(self.source)


class LspLineWorkspace(Workspace):
    """pygls's workspace, whose open documents are :class:`LspTextDocument`. Positions are
    always UTF-16 here (see protocol.py), which is what :func:`offset_at` counts."""

    def _create_text_document(self, doc_uri, source=None, version=None, language_id=None) -> TextDocument:
        return LspTextDocument(doc_uri, source=source, version=version, language_id=language_id,
                               sync_kind=self._sync_kind, position_codec=self.position_codec)
