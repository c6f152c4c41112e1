"""A document too long for one request, cut into parts along the DAG.

Units are the top-level sections in reading order (with the front matter before the first);
a unit too long alone is cut at its subsections, and at blank lines as a last resort. Units are
ordered by the dependency DAG between them (a unit comes after the units whose results it uses;
reading order breaks ties and cycles), then packed greedily into parts under the token budget,
so that a part relies only on statements of earlier parts wherever the DAG allows. Each part
carries the statements of every result outside it that its text refers to, or whose proof it
holds. Token counts come from the provider's counter (``count_tokens``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from colosseum.models import Message, ModelRequest
from colosseum.loops.review.anchoring import DocumentText, strip_comment

MAX_SECTION_DEPTH = 6
MIN_CHUNK_LINES = 5


@dataclass
class Segment:
    path: Path
    first: int  # 0-based, inclusive
    last: int

    def holds(self, path: Path, line: int) -> bool:
        return path == self.path and self.first <= line <= self.last


@dataclass
class Unit:
    title: str
    segments: list[Segment]
    rank: int  # reading order
    tokens: int = 0
    depth: int = 0

    def holds(self, path: Path, line: int) -> bool:
        return any(s.holds(path, line) for s in self.segments)


@dataclass
class Part:
    units: list[Unit]
    relies_on: list[str] = field(default_factory=list)  # claim ids
    tokens: int = 0

    def holds(self, path: Path, line: int) -> bool:
        return any(u.holds(path, line) for u in self.units)

    @property
    def segments(self) -> list[Segment]:
        return [s for u in self.units for s in u.segments]


def render_units(doc: DocumentText, units: list[Unit]) -> str:
    blocks = []
    for unit in units:
        for s in unit.segments:
            whole = s.first == 0 and s.last >= doc.line_count(s.path) - 1
            blocks.append(doc.render_block(s.path) if whole else doc.render_block(s.path, s.first, s.last))
    return "\n\n".join(blocks)


def render_statements(index, doc: DocumentText, labels: list[str]) -> str:
    if not labels:
        return "(none)"
    out = []
    for label in labels:
        claim = index.claims.get(label)
        if claim is None:
            continue
        title = f" ({claim.title})" if claim.title else ""
        where = f"{doc.relative(claim.file)}:{claim.location.range.start.line + 1}"
        out.append(f"[{label}] {claim.kind}{title}, {where}:\n{claim.statement_text.strip()}")
    return "\n\n".join(out) or "(none)"


# ---- units ---------------------------------------------------------------------------------------
def _positions(doc: DocumentText) -> dict[Path, int]:
    return {path: i for i, path in enumerate(doc.files)}


def _cut(doc: DocumentText, span: list[Segment], starts: list[tuple[Path, int, str]], depth: int,
         rank: int) -> list[Unit]:
    """``span`` (segments in reading order) cut at the given (file, line, title) starts."""
    order = _positions(doc)
    starts = sorted((s for s in starts if any(seg.holds(s[0], s[1]) for seg in span)),
                    key=lambda s: (order.get(s[0], 0), s[1]))
    units: list[Unit] = []
    current: list[Segment] = []
    title = "front matter" if depth == 0 else "opening"
    pending = list(starts)
    for seg in span:
        first = seg.first
        for path, line, name in [s for s in pending if seg.holds(s[0], s[1])]:
            if line > first:
                current.append(Segment(seg.path, first, line - 1))
            if current:
                units.append(Unit(title, current, rank + len(units), depth=depth))
            current, title, first = [], name, line
            pending.remove((path, line, name))
        current.append(Segment(seg.path, first, seg.last))
    if current:
        units.append(Unit(title, current, rank + len(units), depth=depth))
    for unit in units:  # a file's "% !TEX root" line alone is no part of a section
        unit.segments = [seg for seg in unit.segments if _has_content(doc, seg)] or unit.segments[:1]
    return units


def _has_content(doc: DocumentText, seg: Segment) -> bool:
    ft = doc.file_text(seg.path)
    if ft is None:
        return False
    last = min(seg.last, len(ft.lines.line_starts) - 1)
    return any(strip_comment(ft.lines.line_text(n)).strip() for n in range(seg.first, last + 1))


def _section_starts(index, depth: int) -> list[tuple[Path, int, str]]:
    """(file, line, title) of the sections exactly ``depth`` levels below a top-level one."""
    sections = index.sections

    def level(sid: str) -> int:
        seen, node, d = set(), sections[sid].parent, 0
        while node is not None and node in sections and node not in seen and d < 64:
            seen.add(node)
            node, d = sections[node].parent, d + 1
        return d

    return [(s.file, s.location.range.start.line, s.title or sid) for sid, s in sections.items() if level(sid) == depth]


def _chunks(doc: DocumentText, unit: Unit, pieces: int) -> list[Unit]:
    """A unit with no subsections left, cut into ``pieces`` runs of lines at blank lines."""
    lines = [(s.path, n) for s in unit.segments for n in range(s.first, s.last + 1)]
    size = max(MIN_CHUNK_LINES, -(-len(lines) // pieces))
    out: list[Unit] = []
    i = 0
    while i < len(lines):
        j = min(len(lines), i + size)
        while j < len(lines) and j - i < size * 2:  # end at a blank line when one is near
            ft = doc.file_text(lines[j - 1][0])
            if ft is None or not ft.lines.line_text(lines[j - 1][1]).strip():
                break
            j += 1
        run = lines[i:j]
        segments: list[Segment] = []
        for path, n in run:
            if segments and segments[-1].path == path and segments[-1].last == n - 1:
                segments[-1].last = n
            else:
                segments.append(Segment(path, n, n))
        first, last = run[0], run[-1]
        span = (f"{doc.relative(first[0])}:{first[1] + 1}-{last[1] + 1}" if first[0] == last[0] else
                f"{doc.relative(first[0])}:{first[1] + 1} to {doc.relative(last[0])}:{last[1] + 1}")
        out.append(Unit(f"{unit.title} ({span})", segments, unit.rank, depth=MAX_SECTION_DEPTH + 1))
        i = j
    return out


async def count_units(units: list[Unit], doc: DocumentText, counter, overhead: int) -> None:
    import asyncio

    async def count(unit: Unit) -> None:
        unit.tokens = max(1, await counter(render_units(doc, [unit])) - overhead)

    async with asyncio.TaskGroup() as group:
        for unit in units:
            group.create_task(count(unit))


async def make_units(index, doc: DocumentText, budget: int, counter, overhead: int) -> list[Unit]:
    """The units, none longer than ``budget`` tokens (each counted)."""
    whole = [Segment(path, 0, max(0, doc.line_count(path) - 1)) for path in doc.files]
    units = _cut(doc, whole, _section_starts(index, 0), 0, 0)
    await count_units(units, doc, counter, overhead)
    for _round in range(MAX_SECTION_DEPTH + 2):  # bounded: each round cuts one level finer
        too_long = [u for u in units if u.tokens > budget]
        if not too_long:
            break
        finer: list[Unit] = []
        for unit in units:
            if unit.tokens <= budget:
                finer.append(unit)
                continue
            if unit.depth < MAX_SECTION_DEPTH:
                pieces = _cut(doc, unit.segments, _section_starts(index, unit.depth + 1), unit.depth + 1, unit.rank)
                if len(pieces) > 1:
                    for p in pieces:
                        p.title = f"{unit.title} / {p.title}" if p.title not in ("opening",) else unit.title
                    await count_units(pieces, doc, counter, overhead)
                    finer.extend(pieces)
                    continue
                unit.depth = MAX_SECTION_DEPTH
            pieces = _chunks(doc, unit, -(-unit.tokens // max(1, budget)) + 1)
            await count_units(pieces, doc, counter, overhead)
            finer.extend(pieces)
        units = finer
    for i, unit in enumerate(units):
        unit.rank = i
    return units


# ---- ordering along the DAG ------------------------------------------------------------------------
def dag_order(index, units: list[Unit]) -> list[Unit]:
    """Units in an order where each comes after the units whose results it uses (the DAG between
    units, cycles collapsed), reading order among the rest."""
    def unit_of(path: Path, line: int) -> int | None:
        for i, u in enumerate(units):
            if u.holds(path, line):
                return i
        return None

    where: dict[str, set[int]] = {}
    for cid, claim in index.claims.items():
        places = {unit_of(claim.file, claim.location.range.start.line)}
        if claim.proof is not None:
            places.add(unit_of(claim.proof.file, claim.proof.location.range.start.line))
        where[cid] = {p for p in places if p is not None}
    uses: dict[int, set[int]] = {i: set() for i in range(len(units))}
    for ref in index.references:
        user = unit_of(ref.file, ref.location.range.start.line)
        owner = index.label_owner.get(ref.label)
        claim = index.claims.get(owner) if owner else None
        if user is None or claim is None:
            continue
        home = unit_of(claim.file, claim.location.range.start.line)
        if home is not None and home != user:
            uses[user].add(home)
    # Kahn's algorithm, smallest reading rank first; what is left on a cycle goes in reading order
    indegree = {i: len(uses[i]) for i in uses}
    users: dict[int, set[int]] = {i: set() for i in uses}
    for i, used in uses.items():
        for j in used:
            users[j].add(i)
    import heapq

    ready = [i for i, d in indegree.items() if d == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for j in users[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                heapq.heappush(ready, j)
    order += sorted(i for i in uses if i not in order)
    return [units[i] for i in order]


def relies_on(index, part: Part) -> list[str]:
    """Claims outside the part whose statements its text refers to, or whose proof it holds."""
    found: dict[str, None] = {}
    for ref in index.references:
        if not part.holds(ref.file, ref.location.range.start.line):
            continue
        owner = index.label_owner.get(ref.label)
        claim = index.claims.get(owner) if owner else None
        if claim is not None and not part.holds(claim.file, claim.location.range.start.line):
            found[claim.id] = None
    for cid, claim in index.claims.items():
        proof = claim.proof
        if proof is not None and part.holds(proof.file, proof.location.range.start.line) \
                and not part.holds(claim.file, claim.location.range.start.line):
            found[cid] = None
    return sorted(found, key=lambda cid: index.claims[cid].order)


def pack(index, ordered: list[Unit], budget: int, label_tokens: dict[str, int]) -> list[Part]:
    """Consecutive units (in DAG order) into parts of at most ``budget`` tokens: the units'
    counted tokens plus those of the statements the part must carry (counted one by one)."""
    parts: list[Part] = []
    current = Part([])
    for unit in ordered:
        trial = Part(current.units + [unit])
        trial.relies_on = relies_on(index, trial)
        size = sum(u.tokens for u in trial.units) + sum(label_tokens.get(c, 0) for c in trial.relies_on)
        if current.units and size > budget:
            parts.append(current)
            current = Part([unit])
            current.relies_on = relies_on(index, current)
        else:
            current = trial
    if current.units:
        parts.append(current)
    return parts


def counting_request(system: str, schema: dict | None, model: str | None) -> ModelRequest:
    return ModelRequest(system, (Message("user", "."),), schema=schema, model=model)
