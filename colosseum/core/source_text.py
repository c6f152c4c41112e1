"""Offsets in a file's text to LSP positions (0-based line, UTF-16 column), and back."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

from colosseum.core.structure import Position, Range


MAX_LINE_CHARS = 2 * 1024 * 1024  # a file with a longer line is reported, not indexed (generated data)


def longest_line_over(text: str, limit: int = MAX_LINE_CHARS) -> int | None:
    """The length of the first line longer than ``limit``, else None; O(lines), no copies."""
    if len(text) <= limit:
        return None
    start = 0
    while True:
        end = text.find("\n", start)
        if end == -1:
            end = len(text)
        if end - start > limit:
            return end - start
        if end == len(text):
            return None
        start = end + 1


class LineIndex:
    """Maps string offsets to positions. Built when first asked (an edited file's new text may
    never be asked for a position); lookups are O(log lines)."""

    __slots__ = ("text", "_starts", "_ascii")

    def __init__(self, text: str):
        self.text = text
        self._starts: array | None = None
        self._ascii: bool | None = None

    @property
    def line_starts(self) -> Sequence[int]:
        starts = self._starts
        if starts is None:
            # line starts from the lengths of the lines, all in C; an array of machine integers
            # (8 bytes a line) where a list of ints took 36: a twentieth of the index's memory
            starts = array("q", accumulate(map((1).__add__, map(len, self.text.split("\n"))), initial=0))
            starts.pop()
            self._starts = starts
        return starts

    @property
    def ascii(self) -> bool:
        # a whole-ASCII file (most papers) needs no per-line check at all
        if self._ascii is None:
            self._ascii = self.text.isascii()
        return self._ascii

    def line_of(self, offset: int) -> int:
        starts = self._starts
        return bisect_right(starts if starts is not None else self.line_starts, offset) - 1

    def position(self, offset: int) -> Position:
        if offset > len(self.text):
            offset = len(self.text)
        elif offset < 0:
            offset = 0
        starts = self._starts
        if starts is None:
            starts = self.line_starts
        line = bisect_right(starts, offset) - 1
        start = starts[line]
        if self._ascii or (self._ascii is None and self.ascii):
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


class LineWindow(LineIndex):
    """A stretch ``[base, stop)`` of a larger text, read as if it were the whole text (offsets
    count from its start): what a chunk's line index becomes in an index built for one report,
    which then holds each file's text once, not once more in its chunks' copies. The line starts
    and the ASCII test of the chunk's own index are kept; ``text`` is sliced when read (a claim's
    statement, an offset from an editor's position: neither is on a report's path)."""

    __slots__ = ("_whole", "_base", "_stop")

    def __init__(self, whole: str, base: int, stop: int, like: LineIndex):
        self._whole, self._base, self._stop = whole, base, stop
        self._starts = like._starts  # (made from ``text`` when first asked, if not yet made)
        self._ascii = like._ascii

    @property
    def text(self) -> str:  # type: ignore[override]
        return self._whole[self._base:self._stop]

    def position(self, offset: int) -> Position:
        offset = min(max(offset, 0), self._stop - self._base)
        starts = self._starts if self._starts is not None else self.line_starts
        line = bisect_right(starts, offset) - 1
        start = starts[line]
        if self._ascii or (self._ascii is None and self.ascii):
            return Position(line, offset - start)
        prefix = self._whole[self._base + start:self._base + offset]
        if prefix.isascii():
            return Position(line, offset - start)
        return Position(line, len(prefix.encode("utf-16-le")) // 2)


class Anchor:
    """Where a chunk of a file (colosseum.project.chunks) sits in the file's current text. The items read
    from the chunk keep offsets relative to it and their lines are counted by the chunk's own
    index; an edit before the chunk moves the anchor, and with it every item, without touching
    them. ``version`` counts the moves: a position computed before a move is stale."""

    __slots__ = ("lines", "offset", "line", "version")

    def __init__(self, lines: LineIndex, offset: int, line: int):
        self.lines, self.offset, self.line = lines, offset, line
        self.version = 0

    def move(self, offset: int, line: int) -> None:
        if offset != self.offset or line != self.line:
            self.offset, self.line = offset, line
            self.version += 1

    def line_of(self, rel: int) -> int:
        """The file's line of an offset relative to the chunk."""
        return self.lines.line_of(rel) + self.line

    def position(self, rel: int) -> Position:
        pos = self.lines.position(rel)
        return Position(pos.line + self.line, pos.character) if self.line else pos

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(end))
