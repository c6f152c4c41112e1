"""Rescanning only the part of a file that an edit touched.

A keystroke changes a few characters of a 10,000-line file; the events before the edit stay as
they were and the events after it only move. The scanner carries no state across a line break
except the regions it skips (verbatim, ``\\iffalse``, brace groups of the text that span lines)
and the arguments it reads, so the edited lines are rescanned from a line start that no event or
skipped region straddles, up to a line start after the edit that none straddles either.
Whenever that cannot be guaranteed (a definition changed, an argument, verbatim block or open
group runs across the boundary, the file's macro table switches inside it) the answer is None and the caller scans the whole file: the result is
always the one a full scan gives, which the tests check on random edits.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate, chain
from operator import attrgetter

from colosseum.latex.events import Event, ScanResult, _is_structural
from colosseum.latex.scanner import UNBOUNDED, new_scanner, run
from colosseum.latex.macros import MacroTable
from colosseum.latex.state import ScanState

_START = attrgetter("start")


def _extent(event: Event) -> int:
    """Where the scanner's reading for an event ends: past its own text, and past an argument it
    read beyond it (a ``\\begin{env}[title`` whose title runs on to later lines)."""
    return event.end if event.vend < event.end else event.vend + 1
MAX_REGION = 200_000  # an edit larger than this (a paste of a chapter) is scanned in full


_BLOCK = 4096


def common_prefix(a: str, b: str) -> int:
    """Length of the common prefix: blocks compared in C, then the one that differs."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i:i + _BLOCK] == b[i:i + _BLOCK]:
        i += _BLOCK
    if i >= n:
        return n
    end = min(n, i + _BLOCK)
    while i < end and a[i] == b[i]:
        i += 1
    return i


def common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the common suffix, at most ``limit``."""
    la, lb = len(a), len(b)
    k = 0
    while k < limit:
        step = min(_BLOCK, limit - k)
        if a[la - k - step:la - k] != b[lb - k - step:lb - k]:
            break
        k += step
    else:
        return limit
    while k < limit and a[la - k - 1] == b[lb - k - 1]:
        k += 1
    return k


def _reach(scan: ScanResult, upto: int) -> list[int]:
    """``reach[i]``: the furthest end of the events up to ``i``, for ``i < upto``. It is kept in
    the scan and extended when asked: after an edit, what lies before the edit stays valid, and
    the next edit, usually nearby, asks for little more."""
    reach = scan._reach
    if reach is None:
        reach = scan._reach = []
    known = len(reach)
    if known < upto:
        events = scan.events[known:upto]
        reach.extend(accumulate(chain((reach[-1] if reach else -1,), map(_extent, events)), max))
        del reach[known]  # the seed of the running maximum
    return reach


def _straddles(scan: ScanResult, skips: list[tuple[int, int]], point: int) -> int | None:
    """The earliest start of an event or skipped region that begins before ``point`` and ends
    after it, or None. The furthest end reached only grows along the events: the first event
    that reaches past ``point`` is found by bisection."""
    earliest = None
    for start, end in skips:
        if start < point < end:
            earliest = start if earliest is None else min(earliest, start)
    events = scan.events
    before = bisect_left(events, point, key=_START)  # events are in start order: only these can straddle
    first = bisect_right(_reach(scan, before), point, 0, before)
    if first < before:
        start = events[first].start
        earliest = start if earliest is None else min(earliest, start)
    return earliest


def rescan(old_text: str, new_text: str, old: ScanResult, table: MacroTable) -> ScanResult | None:
    """The scan of ``new_text``, reusing ``old`` (the scan of ``old_text`` with ``table``).
    ``old`` is consumed: its events after the edit are moved into the result."""
    prefix = common_prefix(old_text, new_text)
    suffix = common_suffix(old_text, new_text, min(len(old_text), len(new_text)) - prefix)
    old_end, new_end = len(old_text) - suffix, len(new_text) - suffix
    if new_end - prefix > MAX_REGION or old_end - prefix > MAX_REGION:
        return None
    delta = len(new_text) - len(old_text)
    if not old.ordered:
        return None  # positions out of order (an error reported behind its command)
    if old.endinput:
        return None  # an edit before an \\endinput may open or close the conditional around it
    restart = _restart_point(old, old_text, prefix)
    if restart is None:
        return None
    sync_old = _sync_point(old, old_text, restart, old_end)
    if sync_old is None:
        return None
    sync_new = sync_old + delta
    if sync_new < restart or sync_new < new_end:
        return None
    events = old.events
    first, last = bisect_left(events, restart, key=_START), bisect_left(events, sync_old, key=_START)
    changes = old.table_changes
    if any(ev.kind in ("def", "magic-root") for ev in events[first:last]) \
            or any(restart < at <= sync_old for at, _table in changes):
        return None  # the macro table may change from here on: scan it all
    region = _scan_region(new_text, _table_at(table, changes, restart), restart, sync_new)
    if region is None:
        return None
    tail = events[last:]
    old_region = events[first:last]
    if delta:
        _shift(tail, delta)
    merged = events[:first] + region.events + tail
    merged_skips = [s for s in old.skips if s[1] <= restart] + region.skips + [
        (s + delta, e if e == UNBOUNDED else e + delta) for s, e in old.skips if s >= sync_old]
    result = ScanResult(merged, old.table_out, skips=merged_skips,
                        table_changes=[(at, t) if at <= restart else (at + delta, t) for at, t in changes])
    result.edit = (first, last, len(region.events), sync_old, delta, restart)
    if old._reach is not None:
        result._reach = old._reach[:first]  # still true before the edit
    _carry_over(old, result, first, last, region.events, old_region)
    return result


def _restart_point(old: ScanResult, old_text: str, prefix: int) -> int | None:
    """Where to start: a line start before the edit (which starts at ``prefix``) that nothing
    straddles; None when none is found in a few steps back."""
    restart = old_text.rfind("\n", 0, prefix) + 1
    for _ in range(64):
        earlier = _straddles(old, old.skips, restart)
        if earlier is None:
            return restart
        restart = old_text.rfind("\n", 0, earlier) + 1
    return None


def _sync_point(old: ScanResult, old_text: str, restart: int, old_end: int) -> int | None:
    """Where to stop: a line start after the edit (which ends at ``old_end``, old coordinates)
    that nothing read from ``restart`` on straddles; None when none is found in a few steps."""
    events, skips = old.events, old.skips
    newline = old_text.find("\n", old_end)
    sync_old = len(old_text) if newline == -1 else newline + 1
    # the furthest extent of the events read so far, extended by the events each step adds (not
    # the whole stretch again each step: a group left open made that tens of thousands of events)
    read, furthest = bisect_left(events, restart, key=_START), -1
    for _ in range(64):
        upto = bisect_left(events, sync_old, key=_START)
        if upto > read:
            furthest = max(furthest, max(map(_extent, events[read:upto])))
            read = upto
        later = [furthest] if furthest > sync_old else []
        later += [end for start, end in skips if start < sync_old < end]
        if not later:
            return sync_old
        if sync_old == len(old_text):
            return None  # straddled at the end of the text (a group left open): no line start after it
        newline = old_text.find("\n", max(later))
        sync_old = len(old_text) if newline == -1 else newline + 1
    return None


def _table_at(table: MacroTable, changes: list[tuple[int, MacroTable]], offset: int) -> MacroTable:
    """The table in effect at ``offset``: the file's own definitions before it count."""
    in_effect = table
    for at, changed in changes:
        if at > offset:
            break
        in_effect = changed
    return in_effect


def _scan_region(new_text: str, table: MacroTable, restart: int, sync_new: int) -> ScanState | None:
    """The scan of new_text[restart:sync_new]; None when what it read depends on text outside
    the region (or changes what the text after it means)."""
    state = new_scanner(new_text, table)
    reached = run(state, restart, sync_new)
    if state.endinput:
        return None  # the new text has an \\endinput: the whole text decides what it stops
    if reached > sync_new or state.braces or state.table_changes or any(ev.kind == "def" for ev in state.events):
        return None  # (a group left open runs past the region: where it closes decides what it means)
    if any(end > sync_new for _start, end in state.skips) or any(ev.end > sync_new for ev in state.events):
        return None
    return state


def _shift(events: list[Event], delta: int) -> None:
    """Move ``events`` by ``delta`` in place (the tail of a long file is thousands of events)."""
    for ev in events:
        ev.start += delta
        ev.end += delta
        if ev.vstart >= 0:
            ev.vstart += delta
        if ev.vend >= 0:
            ev.vend += delta
        if ev.kind == "lean" and ev.extra:
            ev.extra = [(name, s + delta, e + delta) for name, s, e in ev.extra]


_DECLARATIONS = ("thmdecl", "theoremstyle")


def _carry_over(old: ScanResult, new: ScanResult, first: int, last: int, region: list[Event],
                old_region: list[Event]) -> None:
    """What the old scan had computed about its events, for the events that did not change: the
    walk's structural events, the theorem declarations, whether the events are in order."""
    if old._structural_index is not None:
        shift = first + len(region) - last
        new._structural_index = ([i for i in old._structural_index if i < first]
                                 + [first + j for j, ev in enumerate(region) if _is_structural(ev)]
                                 + [i + shift for i in old._structural_index if i >= last])
    if old._theorem_decls is not None and not any(ev.kind in _DECLARATIONS for ev in region) \
            and not any(ev.kind in _DECLARATIONS for ev in old_region):
        new._theorem_decls = old._theorem_decls  # declarations' offsets are not read
    if old._ordered:
        events = new.events
        lo, hi = max(first - 1, 0), min(first + len(region) + 1, len(events))
        starts = [ev.start for ev in events[lo:hi]]
        new._ordered = all(map(int.__le__, starts, starts[1:]))
