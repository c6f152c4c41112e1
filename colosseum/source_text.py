"""Offsets in a file's text to LSP positions (0-based line, UTF-16 column), and back."""

from __future__ import annotations

from bisect import bisect_right

from colosseum.structure import Position, Range


class LineIndex:
    """Maps string offsets to positions. Built once per text; lookups are O(log lines)."""

    __slots__ = ("text", "line_starts", "ascii")

    def __init__(self, text: str):
        self.text = text
        # line starts from the lengths of the lines (split and len run in C)
        lengths = map(len, text.split("\n"))
        starts = [0]
        total = 0
        for length in lengths:
            total += length + 1
            starts.append(total)
        starts.pop()
        self.line_starts = starts
        # a whole-ASCII file (most papers) needs no per-line check at all
        self.ascii = text.isascii()

    def line_of(self, offset: int) -> int:
        return bisect_right(self.line_starts, offset) - 1

    def position(self, offset: int) -> Position:
        if offset > len(self.text):
            offset = len(self.text)
        elif offset < 0:
            offset = 0
        line = bisect_right(self.line_starts, offset) - 1
        start = self.line_starts[line]
        if self.ascii:
            return Position(line, offset - start)
        prefix = self.text[start:offset]
        if prefix.isascii():
            return Position(line, offset - start)
        return Position(line, len(prefix.encode("utf-16-le")) // 2)

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(end))

    def offset(self, position: Position) -> int:
        """Offset of an LSP position; clamps positions past the end of a line or file."""
        if position.line >= len(self.line_starts):
            return len(self.text)
        start = self.line_starts[max(0, position.line)]
        end = self.line_starts[position.line + 1] - 1 if position.line + 1 < len(self.line_starts) else len(self.text)
        line_text = self.text[start:end]
        if line_text.isascii():
            return start + min(position.character, len(line_text))
        units = 0
        for i, ch in enumerate(line_text):
            if units >= position.character:
                return start + i
            units += 2 if ord(ch) > 0xFFFF else 1
        return end

    def line_text(self, line: int) -> str:
        start = self.line_starts[line]
        end = self.line_starts[line + 1] - 1 if line + 1 < len(self.line_starts) else len(self.text)
        return self.text[start:end]
