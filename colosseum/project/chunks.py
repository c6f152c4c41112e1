"""A file cut into chunks that can be analysed apart and linked one after the other.

An edit in a 10,000-line file should cost what the edited part costs. The file's events are cut
at *quiet points*: line starts where every environment opened before is closed again (or only
``document`` is open), nothing (an event, a skipped verbatim region) straddles the point, and no
pending "% colosseum: obligation" comment waits for the next item. Such a point is taken before a
sectioning command, and before one in a few top-level theorem-like environments (chosen by the
distance from the previous candidate, so the choice depends on nearby text only: an edit moves
the cuts near it and no others). Reading a chunk alone then gives what reading the file gives:
what crosses a cut (the section in effect, the claim a leading proof proves, the ``document``
environment) crosses it the way it crosses a file boundary, and the linker carries it.

Each chunk is analysed on its own text with offsets relative to its start, so an unchanged chunk
keeps its analysis wherever an edit before it moves it. After an edit the cuts are found again
from just before the edit until they fall in step with the old cuts.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from colosseum.project.analysis import FileAnalysis, analyse, has_content
from colosseum.latex.events import Event, ScanResult
from colosseum.core.source_text import Anchor, LineIndex, LineWindow

SPREAD = 7  # about one top-level theorem-like environment in SPREAD starts a chunk
_TOP = ((), ("document",))  # the environments that may be open at a cut


@dataclass(slots=True, eq=False)
class Chunk:
    start: int  # offset of its first character in the file (a line start)
    end: int
    line: int  # line of ``start``
    first: int  # index of its first event in the scan
    last: int  # one past its last event
    stack: tuple[str, ...]  # environments open where it starts: () or ("document",)
    defs: int  # changes of the macro table before it (the file's own definitions)
    includes: int  # include commands before it in the file
    text: str | None  # None once it reads the file's text in place (read_in_place)
    analysis: FileAnalysis | None = None
    anchor: Anchor | None = None  # where it is now: what its items' positions are relative to

    def read_in_place(self, text: str) -> None:
        """An index built for one report: read the file's ``text`` (the text this chunk was cut
        from) where the chunk is, in place of the chunk's own copy of it. Such an index is never
        edited, so the chunk is never compared or cut again."""
        if self.text is text or text[self.start:self.end] != self.text:
            return  # the whole file already, or not the text it was cut from
        window = LineWindow(text, self.start, self.end, self.analysis.lines)
        self.analysis.lines = self.anchor.lines = window
        self.text = None

    def place(self, start: int, end: int, line: int, first: int, last: int, includes: int) -> None:
        """Move it (an edit before it moved its text): its items move with its anchor."""
        self.start, self.end, self.line, self.first, self.last, self.includes = start, end, line, first, last, includes
        self.anchor.move(start, line)


def split(text: str, scan: ScanResult, envs: frozenset[str], previous: list[Chunk] | None = None,
          previous_text: str | None = None) -> tuple[list[Chunk], list[Chunk]]:
    """The chunks of ``text`` (scanned as ``scan``), each with its analysis, and those of them
    that are chunks of the previous text moved. ``previous`` are the chunks of
    ``previous_text``, which ``scan`` was rescanned from (``scan.edit``): a chunk whose text did
    not change is the same object, moved, with its analysis and the items read from it."""
    events = scan.events
    if not scan.ordered:
        return _analysed([_whole(text, events)], text, events, envs), []
    if previous is None or scan.edit is None or previous_text is None:
        return _analysed(_cut(text, scan, envs, _Start(0, 0, 0, (), 0, 0, 0)), text, events, envs), []
    first, old_last, count, sync_old, delta, restart = scan.edit
    shift = first + count - old_last  # events after the edit moved by this many places
    # start over from the chunk before the one the edit is in: the cut at its start may depend
    # on the edited events
    k = max(0, bisect_right([c.start for c in previous], restart) - 2)
    start = previous[k]
    resume = _Start(start.start, start.line, start.first, start.stack, start.defs, start.includes, start.start)
    later = {c.start + delta: c for c in previous[k + 1:] if c.start >= sync_old}
    fresh = _cut(text, scan, envs, resume, later, delta, shift)
    resync = fresh[-1].analysis if fresh and isinstance(fresh[-1].analysis, Chunk) else None
    upto = previous.index(resync) if resync is not None else len(previous)
    # the old chunks of the stretch cut again, by text: a fresh chunk with the same text is one of them
    same: dict[tuple, list[Chunk]] = {}
    for chunk in previous[k:upto]:
        same.setdefault((chunk.text, chunk.defs, chunk.stack), []).append(chunk)
    out = previous[:k]
    moved: list[Chunk] = []
    for chunk in fresh:
        if resync is not None and chunk.analysis is resync:  # in step with the old cuts again: the rest only moves
            lines, includes = chunk.line - resync.line, chunk.includes - resync.includes
            for old in previous[upto:]:
                if delta or lines or includes or shift:
                    old.place(old.start + delta, old.end + delta, old.line + lines, old.first + shift, old.last + shift,
                              old.includes + includes)
                    if delta or lines:
                        moved.append(old)
                out.append(old)
            break
        twins = same.get((chunk.text, chunk.defs, chunk.stack))
        if twins:
            old = twins.pop(0)
            if (old.start, old.line) != (chunk.start, chunk.line):
                moved.append(old)
            old.place(chunk.start, chunk.end, chunk.line, chunk.first, chunk.last, chunk.includes)
            out.append(old)
        else:
            out.append(chunk)
    return _analysed(out, text, events, envs), moved


def whole(text: str, scan: ScanResult, envs: frozenset[str], lines: LineIndex) -> list[Chunk]:
    """The file as one analysed chunk: what an index built for one report reads (it is never
    edited, so cuts would buy nothing, and each chunk costs its own analysis, line index, anchor
    and unit). ``lines``: the file's own line index (of ``text``), shared."""
    chunk = _whole(text, scan.events)
    chunk.analysis = analyse(text, scan.events, lines, envs)
    chunk.anchor = Anchor(lines, 0, 0)
    return [chunk]


def _whole(text: str, events: list[Event]) -> Chunk:
    return Chunk(0, len(text), 0, 0, len(events), (), 0, 0, text)


def _analysed(chunks: list[Chunk], text: str, events: list[Event], envs: frozenset[str]) -> list[Chunk]:
    for chunk in chunks:
        if chunk.analysis is None:
            chunk.analysis = analyse(chunk.text, events, LineIndex(chunk.text), envs, chunk.start, chunk.first, chunk.last)
            chunk.anchor = Anchor(chunk.analysis.lines, chunk.start, chunk.line)
    return chunks


@dataclass(slots=True)
class _Start:
    offset: int
    line: int
    event: int
    stack: tuple[str, ...]
    defs: int
    includes: int
    candidate: int  # line start of the last cut candidate


def _cut(text: str, scan: ScanResult, envs: frozenset[str], at: _Start, later: dict[int, Chunk] | None = None,
         delta: int = 0, shift: int = 0) -> list[Chunk]:
    """Cut from ``at`` on. With ``later`` (old chunks after the edit, by their new start), stop
    at the first cut that an old chunk starts at in the same state: that chunk is returned in
    place of the analysis of the last one, as the sign that the rest is the old chunks moved."""
    events, skips = scan.events, scan.skips
    changes = [at for at, _table in scan.table_changes]
    out: list[Chunk] = []
    stack = list(at.stack)
    chunk_start, chunk_line, chunk_event = at.offset, at.line, at.event
    chunk_stack, chunk_defs, chunk_includes = at.stack, at.defs, at.includes
    includes = at.includes
    candidate = at.candidate
    reach = at.offset  # the furthest end of the events read so far
    section_end = -1  # end of the last sectioning command in this chunk
    after_marker = False
    skip_index = bisect_right(skips, (at.offset, 1 << 62)) - 1 if skips else 0
    skip_index = max(skip_index, 0)
    n = len(events)
    i = at.event
    while i < n:
        ev = events[i]
        kind = ev.kind
        if kind == "section" or (kind == "begin" and ev.name in envs and ev.extra != "verbatim"):
            line_start = text.rfind("\n", 0, ev.start) + 1
            spread = line_start - candidate
            candidate = line_start
            if (line_start > chunk_start and reach <= line_start and not after_marker
                    and tuple(stack) in _TOP and (line_start == ev.start or text[line_start:ev.start].isspace())
                    and (kind == "section" or spread % SPREAD == 0)
                    and (kind == "section" or section_end < 0 or has_content(text, section_end, line_start))):
                while skip_index < len(skips) and skips[skip_index][1] <= line_start:
                    skip_index += 1
                if skip_index >= len(skips) or skips[skip_index][0] >= line_start:
                    chunk_text = text[chunk_start:line_start]
                    out.append(Chunk(chunk_start, line_start, chunk_line, chunk_event, i, chunk_stack, chunk_defs,
                                     chunk_includes, chunk_text))
                    chunk_line += chunk_text.count("\n")
                    chunk_start, chunk_event, chunk_stack = line_start, i, tuple(stack)
                    chunk_defs, chunk_includes = bisect_right(changes, line_start), includes
                    section_end = -1
                    if later is not None:
                        old = later.get(line_start)
                        if old is not None and old.stack == chunk_stack and old.first + shift == i:
                            out.append(Chunk(line_start, old.end + delta, chunk_line, i, old.last + shift, chunk_stack,
                                             chunk_defs, chunk_includes, old.text, old))
                            return out
        if kind == "begin":
            stack.append(ev.name)
        elif kind == "end":
            name = ev.name
            if name == "document":
                break  # LaTeX reads nothing after it: the rest is one chunk
            if stack and stack[-1] == name:
                stack.pop()
            elif name in stack:
                while stack.pop() != name:
                    pass
        elif kind == "section":
            section_end = ev.end
        elif kind == "include":
            includes += 1
        after_marker = kind == "marker" and ev.name == "obligation-comment"
        if ev.end > reach:
            reach = ev.end
        i += 1
    out.append(Chunk(chunk_start, len(text), chunk_line, chunk_event, n, chunk_stack, chunk_defs, chunk_includes,
                     text[chunk_start:]))
    return out
