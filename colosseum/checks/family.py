"""What every family of findings shares: the store findings are kept in, what a build changed,
and the shape of a family (colosseum.checks.registry lists them).

A family is one kind of finding with its stable codes (``colosseum/<name>``). It keeps its findings
in the store under keys of its own (its ``name`` first) and, on each build, judges again only
what the build changed that its findings rest on (``depends_on``: the fields of the build view it
reads). Families that find few things and rest on reading files (``EveryBuild``) are judged again
on every build that may have changed them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Protocol

from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic, Position, Range
from colosseum.link.state import LinkChange
from colosseum.link.units import Unit

PREFIX = "colosseum/"

Entry = tuple[Diagnostic, Path | None]  # a finding and the root that made it (None: not per root)


def code(name: str) -> str:
    return PREFIX + name


def range_at(view: BuildView, path: Path, start: int, end: int) -> Range:
    ft = view.text_of(path)
    if ft is None:
        return Range(Position(0, 0), Position(0, 0))
    return ft.lines.range(start, end)


class Findings:
    """Findings by what they are about, and the keys of each file's findings."""

    def __init__(self):
        self.items: dict[tuple, list[Entry]] = {}
        self.by_file: dict[Path, set[tuple]] = {}
        self.dirty: set[Path] = set()  # files whose findings changed since the last assembly

    def set(self, key: tuple, entries: list[Entry]) -> None:
        old = self.items.get(key)
        if old == entries or (old is None and not entries):
            return
        if old:
            for diag, _root in old:
                self.dirty.add(diag.file)
                keys = self.by_file.get(diag.file)
                if keys is not None:
                    keys.discard(key)
        if entries:
            self.items[key] = entries
            for diag, _root in entries:
                self.dirty.add(diag.file)
                self.by_file.setdefault(diag.file, set()).add(key)
        else:
            self.items.pop(key, None)

    def of_file(self, path: Path) -> list[Entry]:
        return [entry for key in self.by_file.get(path, ()) for entry in self.items[key] if entry[0].file == path]


@dataclass(frozen=True, slots=True)
class Edit:
    """What a build changed, as the families read it."""

    change: LinkChange  # full when everything is new (the first build, or a build from nothing)
    # units kept as they were whose chunk moved: what is found about them is found again, at
    # its new place
    moved: list[Unit] = field(default_factory=list)
    moved_nodes: frozenset[str] = frozenset()

    @property
    def full(self) -> bool:
        return self.change.full

    @classmethod
    def of(cls, change: LinkChange | None) -> "Edit":
        if change is None or change.full:
            return cls(change if change is not None else LinkChange(full=True))
        moved = change.moved
        nodes = frozenset(node for unit in moved for node in (*unit.claim_map, *unit.section_map))
        return cls(change, moved, nodes)


class Family(Protocol):
    """One family of findings: ``judge`` brings its findings in ``findings`` up to date."""

    name: ClassVar[str]  # the first part of its keys in the store
    codes: ClassVar[tuple[str, ...]]  # the codes of its findings (colosseum/<code>)
    depends_on: ClassVar[tuple[str, ...]]  # the fields of BuildView it reads

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None: ...


class EveryBuild(ABC):
    """A family found again from nothing on every build that may have changed it (the first
    build, and builds whose reading of files, includes or environments changed): few findings."""

    name: ClassVar[str]
    codes: ClassVar[tuple[str, ...]]
    depends_on: ClassVar[tuple[str, ...]]

    def __init__(self):
        self.files: set[Path] = set()  # files it has findings in

    @abstractmethod
    def find(self, view: BuildView) -> Iterable[Entry]:
        """Every finding of the family in this build."""

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        if not (edit.full or edit.change.structural):
            return
        self.publish(view, findings)

    def publish(self, view: BuildView, findings: Findings) -> None:
        """Every finding of this build, filed per file; files that had findings and have none now
        are emptied."""
        per_file: dict[Path, list[Entry]] = {}
        for diag, root in self.find(view):
            per_file.setdefault(diag.file, []).append((diag, root))
        for path in self.files - per_file.keys():
            findings.set((self.name, path), [])
        for path, entries in per_file.items():
            findings.set((self.name, path), entries)
        self.files = set(per_file)
