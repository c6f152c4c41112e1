"""What the scanner reports: one ``Event`` per structural fact, and a file's ``ScanResult``.

Kept apart from the scanner (colosseum.latex.scanner) so that the modules which only read events
(chunks, file analysis, the project walk) do not depend on how they are found.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from colosseum.latex.macros import MacroTable


@dataclass(slots=True)
class Event:
    """One structural fact found in the text; offsets are into the scanned file."""

    kind: str  # begin end section label ref include thmdecl theoremstyle marker lean discussion
    #            def magic-root leannode error package external
    start: int
    end: int
    name: str = ""
    value: str = ""
    vstart: int = -1
    vend: int = -1
    extra: object = None


@dataclass(slots=True)
class ScanResult:
    """What scanning one file found."""

    events: list[Event] = field(default_factory=list)
    table_out: MacroTable | None = None
    skips: list[tuple[int, int]] = field(default_factory=list)
    # (offset, table): from each offset on the text was read with that table (its own definitions)
    table_changes: list[tuple[int, MacroTable]] = field(default_factory=list)
    # an \\endinput was read: where the file stops depends on the conditionals before it, so an
    # edit anywhere may change it
    endinput: bool = False
    _structural: list[Event] | None = None
    _structural_index: list[int] | None = None
    _theorem_decls: list | None = None
    _ordered: bool | None = None
    _reach: list[int] | None = None  # running furthest end of the events (incremental_scan)
    # set by colosseum.latex.incremental.rescan: what changed since the scan it started from,
    # (first event rescanned, old index where the unchanged tail began, events rescanned,
    # old offset where the tail began, shift of the tail, offset where the rescan began)
    edit: tuple[int, int, int, int, int, int] | None = None

    def theorem_declarations(self, extract) -> list:
        """``extract(events)``, computed once per scan (the index asks on every rebuild)."""
        if self._theorem_decls is None:
            self._theorem_decls = extract(self.events)
        return self._theorem_decls

    def release_events(self) -> None:
        """Let the events go, keeping what the later stages of a build read from them (the
        structural events, the theorem declarations, the order): a report that never edits needs
        no more, and the events are a sixth of a cold index."""
        _ = self.structural, self.ordered
        self._structural_index = None
        self.events = ReleasedEvents()
        self._reach = None

    @property
    def structural(self) -> list[Event]:
        """The events that shape the walk of a project: definitions, includes, packages,
        \\end{document}; and the external documents (xr) a root's references may name."""
        if self._structural is None:
            if self._structural_index is None:
                self._structural_index = [i for i, ev in enumerate(self.events) if _is_structural(ev)]
            events = self.events
            self._structural = [events[i] for i in self._structural_index]
        return self._structural

    @property
    def ordered(self) -> bool:
        """Whether the events are in the order of their offsets (an error can be reported behind
        the command it is about)."""
        if self._ordered is None:
            starts = [ev.start for ev in self.events]
            self._ordered = all(map(int.__le__, starts, starts[1:]))
        return self._ordered


class ReleasedEvents:
    """What stands for a scan's events once an index built for one report let them go
    (``ScanResult.release_events``): any use is a mistake, and says so."""

    __slots__ = ()

    def _refuse(self, *_args):
        raise RuntimeError("the scan's events were released: this index was built for one report, not for edits")

    __len__ = __iter__ = __getitem__ = __bool__ = _refuse


def _is_structural(ev: Event) -> bool:
    return ev.kind in ("def", "include", "package", "external") or (ev.kind == "end" and ev.name == "document")
