"""How an index built for one report (``ProjectIndex(for_edits=False)``: check, dag, obligations)
reads its files: each is cut into chunks and analysed when the linker first reads it, and the
records of its chunks (colosseum.project.records) are let go after the linker's last reading of
it. The records of every file then never live at once (they were a fifth of the peak), and the
memory of one file's records is reused by the next file's. Such an index is never edited."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from colosseum.latex.scanner import scan
from colosseum.project.analysis import DEFAULT_THEOREM_ENVIRONMENTS, theorem_declarations
from colosseum.project.chunks import whole


class OneReading:
    __slots__ = ("chunk_visit", "left")

    def __init__(self, link_order: list, chunk_visit: Callable):
        self.chunk_visit = chunk_visit  # cuts a visit's file into analysed chunks (cached per scan)
        self.left: dict[Path, int] = {}  # path -> readings of it the linker has still to make
        stack = [visit for _root, visit in link_order]
        while stack:
            visit = stack.pop()
            self.left[visit.path] = self.left.get(visit.path, 0) + 1
            stack.extend(visit.children.values())

    def enter(self, visit) -> None:
        self.chunk_visit(visit)

    def leave(self, visit) -> None:
        left = self.left[visit.path] = self.left[visit.path] - 1
        if left == 0:  # read for the last time in this build (a reading the linker skips keeps them to the end)
            for chunk in visit.chunks:
                chunk.analysis.release_records()


class EarlyChunks:
    """An index built for one report cuts each file into analysed chunks right after scanning it
    (ProjectIndex.scan_file) and lets its scan's events go at once: the events of every file then
    never live at once (they were the largest part of the peak, and left the memory they took
    scattered). The theorem-like environments are not all known before the walk ends; a file is
    cut with those declared so far (the defaults, the settings' and every file scanned before it,
    itself included), which is the project's set unless a later file declares more. A file cut
    with another set than the project's is scanned and cut again when the linker reads it."""

    __slots__ = ("envs", "cut", "frozen")

    def __init__(self, configured):
        self.envs = set(DEFAULT_THEOREM_ENVIRONMENTS) | set(configured)
        self.frozen = frozenset(self.envs)
        self.cut: dict[int, tuple] = {}  # id(scan) -> (environments, chunks, table, updates)

    def scanned(self, ft, result, table, updates) -> None:
        text = ft.text
        declared = {decl.env for decl in result.theorem_declarations(theorem_declarations)}
        if not declared <= self.envs:
            self.envs |= declared
            self.frozen = frozenset(self.envs)
        chunks = whole(text, result, self.frozen, ft.lines)
        result.release_events()
        self.cut[id(result)] = (self.frozen, chunks, table, updates)

    def chunks(self, visit, envs: frozenset[str]):
        """The chunks cut from ``visit``'s scan with ``envs``; None when cut with another set."""
        found = self.cut.get(id(visit.scan))
        if found is None:
            return None
        if found[0] == envs:
            return found[1]
        rescanned = scan(visit.text.text, found[2], found[3])
        return whole(visit.text.text, rescanned, envs, visit.text.lines)
