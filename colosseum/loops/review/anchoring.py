"""The document as the reviewers read it (every file in reading order, each line with its number)
and quote verification: a quoted span is looked up in every file, modulo whitespace and
comments, and mapped to an exact range (0-based line, UTF-16 columns). A quote that is not there
is unanchored: it is never pinned to a guessed line."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from colosseum.core.structure import Range

MAX_ELLIPSIS_SPAN = 4000  # characters a quote "A ... B" may cover in the document
_ANCHOR_PREFIX = re.compile(r"^\s*(?:[\w./-]+\.tex:)?\d+\s*\|\s?", re.M)  # our own "12| " rendering
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|\u2026|\[\.\.\.\])\s*")


def strip_comment(line: str) -> str:
    """The line without its comment (from an unescaped % to the end), as LaTeX reads it."""
    start = 0
    while True:
        i = line.find("%", start)
        if i < 0:
            return line
        backslashes = 0
        j = i - 1
        while j >= 0 and line[j] == "\\":
            backslashes += 1
            j -= 1
        if backslashes % 2 == 0:
            return line[:i]
        start = i + 1


def _is_comment_line(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith("%")


@dataclass
class _Searchable:
    """A file's text without comments and with whitespace runs collapsed to one space, and for
    each character of it the offset in the file it came from."""

    path: Path
    text: str
    offsets: list[int]
    lines: object  # the file's LineIndex


def _searchable(path: Path, text: str, lines) -> _Searchable:
    out: list[str] = []
    offsets: list[int] = []
    pending_space = -1
    position = 0
    for raw in text.split("\n"):
        kept = strip_comment(raw)
        for i, ch in enumerate(kept):
            if ch.isspace():
                if pending_space < 0:
                    pending_space = position + i
                continue
            if pending_space >= 0 and out:
                out.append(" ")
                offsets.append(pending_space)
            pending_space = -1
            out.append(ch)
            offsets.append(position + i)
        if pending_space < 0:
            pending_space = position + len(raw)  # the newline (or the comment that ends the line)
        position += len(raw) + 1
    return _Searchable(path, "".join(out), offsets, lines)


def normalize_quote(quote: str) -> list[str]:
    """The quote as searchable pieces: our line-number prefixes and comments removed, whitespace
    collapsed, split at an ellipsis ("A ... B" is two pieces that must occur in order)."""
    text = _ANCHOR_PREFIX.sub("", quote)
    text = "\n".join(strip_comment(line) for line in text.split("\n"))
    pieces = [re.sub(r"\s+", " ", p).strip() for p in _ELLIPSIS.split(text)]
    return [p for p in pieces if p]


class DocumentText:
    """Every file of every root, in reading order, ready to render and to search."""

    def __init__(self, index):
        self.root_dir: Path = index.root_dir
        self.files: list[Path] = []
        for result in index.root_results:
            for path in result.files:
                if path not in self.files:
                    self.files.append(path)
        self._index = index
        # the texts as they are now: a review reads one consistent version even if the author
        # edits meanwhile (the server indexes edits in a worker thread)
        self._texts = {path: index.text_of(path) for path in self.files}
        self._search: dict[Path, _Searchable] = {}

    def relative(self, path: Path) -> str:
        return self._index.relative(path)

    def carry_over(self, previous: "DocumentText | None") -> None:
        """Reuse ``previous``'s searchable form of every file whose text is the same object (an
        unchanged file): following quotes after an edit then costs only the edited files."""
        if previous is None:
            return
        for path, found in previous._search.items():
            old, new = previous._texts.get(path), self._texts.get(path)
            if old is not None and new is not None and (old is new or old.text is new.text):
                self._search.setdefault(path, found)

    def follow(self, quote: str, last_file: Path, last_line: int | None) -> tuple[Path, Range] | None:
        """Where a quote last seen at ``last_file``:``last_line`` (1-based) is now: the nearest
        occurrence in that file, else in any file, else None. Only the last file is read unless
        the quote left it."""
        if last_file in self._texts:
            found = self.find(quote, last_file, last_line, within=[(last_file, 0, 1 << 30)], only_within=True)
            if found is not None:
                return found
        return self.find(quote, last_file, last_line)

    def file_text(self, path: Path):
        if path not in self._texts:
            self._texts[path] = self._index.text_of(path)
        return self._texts[path]

    def searchable(self, path: Path) -> _Searchable | None:
        found = self._search.get(path)
        if found is None:
            ft = self.file_text(path)
            if ft is None:
                return None
            found = self._search[path] = _searchable(path, ft.text, ft.lines)
        return found

    # ---- rendering ------------------------------------------------------------------------------
    def render(self, path: Path, first_line: int = 0, last_line: int | None = None) -> str:
        """Lines ``first_line..last_line`` (0-based, inclusive) of a file, each as ``N| text``
        with N 1-based; comment-only lines are left out and trailing comments cut (LaTeX ignores
        them; the numbers of the other lines stay exact)."""
        ft = self.file_text(path)
        if ft is None:
            return ""
        lines = ft.text.split("\n")
        last = len(lines) - 1 if last_line is None else min(last_line, len(lines) - 1)
        out = []
        for number in range(max(0, first_line), last + 1):
            line = lines[number]
            if _is_comment_line(line):
                continue
            out.append(f"{number + 1}| {strip_comment(line).rstrip()}".rstrip())
        return "\n".join(out)

    def render_block(self, path: Path, first_line: int = 0, last_line: int | None = None) -> str:
        body = self.render(path, first_line, last_line)
        span = "" if first_line == 0 and last_line is None else f' lines="{first_line + 1}-{(last_line or 0) + 1}"'
        return f'<file path="{self.relative(path)}"{span}>\n{body}\n</file>'

    def render_all(self) -> str:
        return "\n\n".join(self.render_block(path) for path in self.files)

    def extent(self, path: Path, where: Range) -> tuple[int, int]:
        """A range of a file as (start, end) offsets in its text."""
        lines = self.file_text(path).lines
        return lines.offset(where.start), lines.offset(where.end)

    def line_count(self, path: Path) -> int:
        ft = self.file_text(path)
        return 0 if ft is None else ft.text.count("\n") + 1

    # ---- quotes ---------------------------------------------------------------------------------
    def find(self, quote: str, hint_file: str | Path | None = None, hint_line: int | None = None,
             within: list[tuple[Path, int, int]] | None = None, only_within: bool = False) -> tuple[Path, Range] | None:
        """Where ``quote`` is: (file, range), or None. ``within`` (line spans: path, first,
        last; 0-based inclusive) is searched first, and alone with ``only_within``; the hint (a
        file as the reviewer named it, a 1-based line) only chooses among several occurrences."""
        pieces = normalize_quote(quote)
        if not pieces:
            return None
        hint_path = self._hint_path(hint_file)
        if within:
            found = self._occurrences(pieces, [p for p, _, _ in within])
            inside = [(path, start, end) for path, start, end in found
                      if any(path == p and a <= self._line(path, start) <= b for p, a, b in within)]
            if inside:
                return self._choose(inside, hint_path, hint_line)
        if only_within:
            return None
        found = self._occurrences(pieces, self.files)
        return self._choose(found, hint_path, hint_line) if found else None

    def _hint_path(self, hint: str | Path | None) -> Path | None:
        if not hint:
            return None
        if isinstance(hint, Path) and hint in self._texts:
            return hint
        text = str(hint).strip().lstrip("./")
        for path in self.files:
            rel = self.relative(path)
            if rel == text or rel.removesuffix(".tex") == text.removesuffix(".tex") or path.name == text:
                return path
        return None

    def _line(self, path: Path, offset: int) -> int:
        return self.searchable(path).lines.line_of(offset)

    def _occurrences(self, pieces: list[str], files: list[Path]) -> list[tuple[Path, int, int]]:
        """Every (file, start offset, end offset) where the pieces occur in order."""
        found = []
        for path in dict.fromkeys(files):
            s = self.searchable(path)
            if s is None:
                continue
            start = s.text.find(pieces[0])
            while start >= 0:
                end = start + len(pieces[0])
                ok = True
                for piece in pieces[1:]:
                    nxt = s.text.find(piece, end)
                    if nxt < 0 or s.offsets[nxt] - s.offsets[start] > MAX_ELLIPSIS_SPAN:
                        ok = False
                        break
                    end = nxt + len(piece)
                if ok:
                    found.append((path, s.offsets[start], s.offsets[end - 1] + 1))
                start = s.text.find(pieces[0], start + 1)
        return found

    def _choose(self, found: list[tuple[Path, int, int]], hint_path: Path | None,
                hint_line: int | None) -> tuple[Path, Range]:
        def distance(item) -> tuple:
            path, start, _ = item
            if hint_path is None:
                return (0, 0)
            line = self._line(path, start) + 1
            return (path != hint_path, abs(line - hint_line) if hint_line else 0)

        path, start, end = min(found, key=distance)  # min is stable: ties keep reading order
        return path, self.searchable(path).lines.range(start, end)


def document_text(index) -> DocumentText:
    """The DocumentText of one consistent reading of the index (built once per IndexView)."""
    from colosseum.loops.review.view import frozen

    view = frozen(index)
    if view.document is None:
        view.document = DocumentText(view)
    return view.document


def anchor_quote(index, quote: str, hint_file: str | Path | None = None,
                 hint_line: int | None = None) -> tuple[Path, Range] | None:
    """(file, Range) of a quoted span in whichever file of the project, or None when it is not
    there (modulo whitespace and comments)."""
    return document_text(index).find(quote, hint_file, hint_line)
