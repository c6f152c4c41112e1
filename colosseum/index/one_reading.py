"""How an index built for one report (``ProjectIndex(for_edits=False)``: check, dag, obligations)
reads its files: each is cut into chunks and analysed when the linker first reads it, and the
records of its chunks (colosseum.project.records) are let go after the linker's last reading of
it. The records of every file then never live at once (they were a fifth of the peak), and the
memory of one file's records is reused by the next file's. Such an index is never edited."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


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
