"""Rescanning only the part of a file that an edit touched.

A keystroke changes a few characters of a 10,000-line file; the events before the edit stay as
they were and the events after it only move. The scanner carries no state across a line break
except the regions it skips (verbatim, ``\\iffalse``) and the arguments it reads, so the edited
lines are rescanned from a line start that no event or skipped region straddles, up to a line
start after the edit that none straddles either. Whenever that cannot be guaranteed (a
definition changed, an argument or verbatim block runs across the boundary, the file's macro
table switches inside it) the answer is None and the caller scans the whole file: the result is
always the one a full scan gives, which the tests check on random edits.
"""

from __future__ import annotations

from bisect import bisect_left

from colosseum.latex_scanner import Event, ScanResult, new_scanner
from colosseum.macros import MacroTable

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


def _shift(ev: Event, delta: int) -> Event:
    """Move an event of the old scan by ``delta``, in place: the old scan is not used again."""
    ev.start += delta
    ev.end += delta
    if ev.vstart >= 0:
        ev.vstart += delta
    if ev.vend >= 0:
        ev.vend += delta
    if ev.kind == "lean" and ev.extra:
        ev.extra = [(name, s + delta, e + delta) for name, s, e in ev.extra]
    return ev


def _straddles(events: list[Event], starts: list[int], skips: list[tuple[int, int]], point: int) -> int | None:
    """The earliest start of an event or skipped region that begins before ``point`` and ends
    after it, or None."""
    earliest = None
    for start, end in skips:
        if start < point < end:
            earliest = start if earliest is None else min(earliest, start)
    # events are in start order; only those starting before point can straddle it
    for ev in events[: bisect_left(starts, point)]:
        if ev.end > point and ev.start < point:
            earliest = ev.start if earliest is None else min(earliest, ev.start)
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
    events, skips = old.events, old.skips
    starts = [e.start for e in events]
    if any(a > b for a, b in zip(starts, starts[1:])):
        return None  # positions out of order (an error reported behind its command)

    # where to start: a line start before the edit that nothing straddles
    restart = old_text.rfind("\n", 0, prefix) + 1
    for _ in range(64):
        earlier = _straddles(events, starts, skips, restart)
        if earlier is None:
            break
        restart = old_text.rfind("\n", 0, earlier) + 1
    else:
        return None
    # where to stop: a line start after the edit (old coordinates) that nothing straddles
    newline = old_text.find("\n", old_end)
    sync_old = len(old_text) if newline == -1 else newline + 1
    for _ in range(64):
        later = [ev.end for ev in events[bisect_left(starts, restart):bisect_left(starts, sync_old)] if ev.end > sync_old]
        later += [end for start, end in skips if start < sync_old < end]
        if not later:
            break
        newline = old_text.find("\n", max(later))
        sync_old = len(old_text) if newline == -1 else newline + 1
    else:
        return None
    sync_new = sync_old + delta
    if sync_new < restart or sync_new < new_end:
        return None

    first, last = bisect_left(starts, restart), bisect_left(starts, sync_old)
    if any(ev.kind in ("def", "magic-root") for ev in events[first:last]):
        return None  # the macro table may change from here on: scan it all
    scanner = new_scanner(new_text, table)
    reached = scanner.run(restart, sync_new)
    if reached > sync_new or any(ev.kind == "def" for ev in scanner.events):
        return None
    if any(end > sync_new for _start, end in scanner.skips) or any(ev.end > sync_new for ev in scanner.events):
        return None
    tail = events[last:]
    if delta:
        for ev in tail:
            _shift(ev, delta)
    merged = events[:first] + scanner.events + tail
    merged_skips = [s for s in skips if s[1] <= restart] + scanner.skips + [
        (s + delta, e + delta) for s, e in skips if s >= sync_old]
    return ScanResult(merged, old.table_out, skips=merged_skips)
