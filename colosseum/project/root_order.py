"""The order a project's roots are read in, and the order of its files, whatever the roots are called.

What the project says must not depend on the roots' names. Where roots read a shared place
differently (other macros, other surroundings), the first reading makes its claim, section,
labels and references (colosseum.link.linker); so the roots are read in an order of their own: the
root that reads the most files first (a book's full root before its per-chapter roots), then by
the files each reads; only roots that tie on both are taken in the order of their paths (not of
their texts: an edit to a root must not reorder the project). Claims and sections are numbered by an order of the files
that keeps every root's reading order where the roots agree (reading_rank).
"""

from __future__ import annotations

import heapq
from pathlib import Path


def link_order(walks: list, relative) -> list:
    """The (root, visit) pairs of a walk in the order their roots are linked."""
    if len(walks) < 2:
        return list(walks)
    keyed = []
    for root, visit in walks:
        files = [relative(path) for path in _reading(visit)[1:]]
        keyed.append(((-len(set(files)), files, relative(root)), root, visit))
    keyed.sort(key=lambda item: item[0])
    return [(root, visit) for _key, root, visit in keyed]


def _reading(visit) -> list[Path]:
    """The files of one root's walk, each where it is first read."""
    seen: dict[Path, None] = {}
    stack = [visit]
    while stack:
        visit = stack.pop()
        seen.setdefault(visit.path)
        stack.extend(reversed(list(visit.children.values())))
    return list(seen)


def reading_rank(walks: list) -> dict[Path, int]:
    """File -> its rank in reading order: one order of all files that keeps each root's order
    (a file read after another in some root comes after it), as far as the roots agree; where they
    do not, and between files no root orders, the first reading (in linking order) decides."""
    readings = [_reading(visit) for _root, visit in walks]
    if len(readings) == 1:
        return {path: i for i, path in enumerate(readings[0])}
    priority: dict[Path, int] = {}
    after: dict[Path, set[Path]] = {}
    waiting: dict[Path, int] = {}
    for files in readings:
        for path in files:
            if path not in priority:
                priority[path] = len(priority)
                after[path] = set()
                waiting[path] = 0
        for before, path in zip(files, files[1:]):
            if path not in after[before]:
                after[before].add(path)
                waiting[path] += 1
    ready = [(priority[path], path) for path, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    rank: dict[Path, int] = {}
    while len(rank) < len(priority):
        if not ready:  # the roots disagree (a circle of orders): the earliest first reading goes first
            path = min((p for p in priority if p not in rank), key=priority.__getitem__)
            waiting[path] = 0
        else:
            path = heapq.heappop(ready)[1]
            if path in rank:
                continue
        rank[path] = len(rank)
        for nxt in after[path]:
            if nxt not in rank:
                waiting[nxt] -= 1
                if waiting[nxt] == 0:
                    heapq.heappush(ready, (priority[nxt], nxt))
    return rank
