"""Which proofs are a model's drafts: the marker ``% colosseum: draft <run-id>``
(colosseum.latex.draft_marker) on the proof's first line.

The analysis of a file (colosseum.project.analysis) asks this of each ``\\begin{proof}`` it reads:
the marker may stand on the rest of that line, or, when nothing follows the ``\\begin{proof}``
there, on the line after it. Nowhere else: a marker deep inside a proof is a comment about
something else, and reading the whole proof would cost a scan per edit.
"""

from __future__ import annotations

from dataclasses import dataclass

from colosseum.latex.draft_marker import draft_run, marker_span


@dataclass(frozen=True, slots=True)
class DraftMark:
    run: str  # the run id ("" when the marker names none)
    start: int  # offsets of the marker comment in the text it was read from
    end: int


def draft_mark(text: str, begin_end: int) -> DraftMark | None:
    """The marker on the first line of the proof whose ``\\begin{proof}`` (and its optional
    argument) ends at ``begin_end`` in ``text``, or None for a proof of the author's own."""
    line_end = text.find("\n", begin_end)
    line_end = len(text) if line_end < 0 else line_end
    found = _mark_in(text, begin_end, line_end)
    if found is not None or text[begin_end:line_end].strip() or line_end >= len(text):
        return found
    next_end = text.find("\n", line_end + 1)
    return _mark_in(text, line_end + 1, len(text) if next_end < 0 else next_end)


def _mark_in(text: str, start: int, end: int) -> DraftMark | None:
    line = text[start:end]
    run = draft_run(line)
    if run is None:
        return None
    first, last = marker_span(line)
    return DraftMark(run, start + first, start + last)
