"""Splicing an edited file into the last build's reading of a root.

An edit of one file changes only that file's units: the root's units before it are read in the
same states as last time, and so are the units after it when the file leaves the same state
behind and takes no node id another unit had. The linker then reads only the edited file, and
takes the rest as the last build read it, with their node ids merged beforehand (kept for the
next edit of the same file). When that would not be what reading the whole root gives, it reads
the whole root instead.
"""

from __future__ import annotations

from pathlib import Path

from colosseum.link.units import RootResult, Unit, _Blocks, _State


class Splicing:
    """The linker's splicing of an edited file (colosseum.link.linker.Linker is one)."""

    def _splice(self, root: Path, edited, result: RootResult, units: list[Unit]) -> _State | None:
        """Read the one edited file of this root afresh and take the root's other units as the
        last build read them; None (and nothing changed) when that would not be what reading the
        whole root gives: the edited file now leaves another state behind, takes a node id
        someone after it had, or a later unit had to fall back from an id."""
        old = self._old_roots.get(root)
        if old is None or self._places:
            return None
        mine = [visit for visit in edited if visit in old.spans]
        if len(mine) != 1 or mine[0].path in self._read:
            return None
        visit = mine[0]
        a, b, entry, exit_state = old.spans[visit]
        blocks = old.blocks.get(visit)
        if blocks is None or blocks.a != a or blocks.b != b:
            blocks = _Blocks(old.units, a, b)
        if blocks.fallbacks:
            return None
        saved = (dict(self.claims), dict(self.sections), len(self.units), set(self._read))
        self._append(blocks.before, blocks.before_claims, blocks.before_sections, blocks.before_paths, units)
        state = entry.copy()
        start = len(units)
        self._visit(visit, state, result, units, record_file=False)
        fresh = units[start:]
        before = {node for unit in old.units[a:b] for node in (*unit.claim_map, *unit.section_map)}
        old_claims, old_sections = self._old_ids
        if state.signature() != exit_state.signature() or any(
                node not in before and (node in old_claims or node in old_sections)
                for unit in fresh for node in (*unit.claim_map, *unit.section_map)):
            self._undo(saved, units)  # read the whole root instead
            return None
        self._append(blocks.after, blocks.after_claims, blocks.after_sections, blocks.after_paths, units)
        shift = len(fresh) - (b - a)
        spans = {}
        for other, (a2, b2, entry2, exit2) in old.spans.items():
            if other is visit:
                spans[other] = (a, a + len(fresh), entry, state.frozen())
            else:
                spans[other] = (a2, b2, entry2, exit2) if b2 <= a else (a2 + shift, b2 + shift, entry2, exit2)
        self._spans = spans
        self._blocks = {visit: blocks.moved(a, a + len(fresh))}  # the next edit of this file reuses them
        result.files = list(old.files)
        return old.final.copy()

    def _append(self, block: list[Unit], claims: dict, sections: dict, paths: set, units: list[Unit]) -> None:
        """Units taken as the last build read them (their ids merged beforehand: ``claims``)."""
        self.claims.update(claims)
        self.sections.update(sections)
        self._read.update(paths)
        units.extend(block)
        in_build = self._in_build
        if not in_build.isdisjoint(map(id, block)):
            block = [u for u in block if id(u) not in in_build]
        count = len(in_build)
        in_build.update(map(id, block))
        if len(in_build) - count != len(block):  # a file read twice in the root: its replays come twice
            block = list({id(u): u for u in block}.values())  # the build holds each unit once
        self.units.extend(block)

    def _undo(self, saved: tuple, units: list[Unit]) -> None:
        claims, sections, count, read = saved
        self.claims.clear()
        self.claims.update(claims)
        self.sections.clear()
        self.sections.update(sections)
        self._read = read
        for unit in self.units[count:]:
            self._in_build.discard(id(unit))
        del self.units[count:]
        units.clear()
        self._spans = {}

