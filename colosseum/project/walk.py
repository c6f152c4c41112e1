"""Walking every root of a project as LaTeX reads it: which files each one reads, in which order,
with which macro table, and what goes wrong on the way (missing files, cycles).

The walk is kept from one build to the next. An edit that leaves the edited file's structure as
it was (the same includes, definitions and ``\\end{document}``, which is almost every edit) reads
the same files in the same order: the last walk is kept, with the edited file's new text and scan
put in its visits, instead of walking a few hundred files again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from colosseum.latex.events import Event, ScanResult
from colosseum.latex.include_names import expand_include_name
from colosseum.latex.macros import MacroTable
from colosseum.latex.scanner import PACKAGE_COMMANDS
from colosseum.project.chunks import Chunk
from colosseum.project.files import (
    FileText,
    IncludeTargetProblem,
    is_within,
    probe_include_target,
    resolve_include,
)
from colosseum.project.generated import generated_by_the_build
from colosseum.settings.boundary import PATH_OUTSIDE_PROJECT, is_under
from colosseum.settings.project import ProjectConfig

MAX_INCLUDE_DEPTH = 64
_ROOT_READ = ("generated-input", "unresolved-input")  # problems judged with the root's text too


class WalkSource(Protocol):
    """What the walk reads of the project: its folder, its files' texts and their cached scans."""

    @property
    def root_dir(self) -> Path: ...

    @property
    def config(self) -> ProjectConfig:
        """Its settings: the read-only paths outside it that the user's config lets it read."""
        ...

    def text_of(self, path: Path) -> FileText | None: ...

    def relative(self, path: Path) -> str: ...

    def scan_file(self, path: Path, text: FileText, table: MacroTable,
                  updates: list[tuple[int, MacroTable]]) -> ScanResult:
        """The scan of ``text`` read with ``table`` (and the tables its includes make, at their
        offsets), cached by the project."""
        ...


@dataclass(slots=True, eq=False)
class Visit:
    """One file as read by one root, with the files it includes (by include index)."""

    path: Path
    rel: str
    text: FileText
    scan: ScanResult  # the scan this visit read
    chunks: list[Chunk] = field(default_factory=list)  # cut by the index (colosseum.project.chunks)
    children: dict[int, "Visit"] = field(default_factory=dict)
    table: MacroTable | None = None  # the table it is read with
    first_scan: ScanResult | None = None  # its scan before what its includes define (== scan without them)
    updates: list[tuple[int, MacroTable]] = field(default_factory=list)  # what its includes define


@dataclass(slots=True)
class IncludeProblem:
    """An \\input or \\include that could not be followed, and why."""

    file: Path
    event: Event  # the include command (its offsets follow edits of the file)
    code: str
    severity: str
    message: str
    root: Path
    target: Path | None = None  # the file it names, when it was found (a path outside the project)

    @property
    def start(self) -> int:
        return self.event.start

    @property
    def end(self) -> int:
        return self.event.end


@dataclass
class Walk:
    """What following the includes from the roots found."""

    walks: list[tuple[Path, Visit]]  # each root kept, with its tree of visits
    visits: list[Visit] = field(default_factory=list)  # every visit, in reading order
    by_path: dict[Path, list[Visit]] = field(default_factory=dict)
    problems: list[IncludeProblem] = field(default_factory=list)
    roots: tuple[Path, ...] = ()  # the roots kept (none another reads, unless they were named)
    candidates: tuple[Path, ...] = ()  # the roots it was asked to walk
    base: str = ""  # the fingerprint of the table the roots are read with
    reused: list[Visit] | None = None  # when the last walk was kept: the visits given new text
    packages: set[Path] = field(default_factory=set)  # project-local .sty/.cls read for definitions

    def scanned(self) -> list:
        """(path, scan, text) of every reading, for the theorem declarations."""
        out = []
        for visit in self.visits:
            out.append((visit.path, visit.first_scan, visit.text))
            if visit.scan is not visit.first_scan:
                out.append((visit.path, visit.scan, visit.text))
        return out


def _shape(scan) -> tuple:
    """What of a file's scan decides the walk: its includes, definitions, \\end{document}."""
    return tuple((ev.kind, ev.name, ev.value, ev.extra.key if ev.kind == "def" else
                  ev.extra if isinstance(ev.extra, str) else None) for ev in scan.structural)


class Walker:
    def __init__(self, source: WalkSource):
        self.source = source
        self._resolved: dict[tuple[Path, ...], Path | IncludeTargetProblem | None] = {}
        self._include_targets: dict[tuple, tuple] = {}
        self.last: Walk | None = None

    def forget(self) -> None:
        """Files appeared or disappeared, or the configuration changed: resolve everything again."""
        self._resolved.clear()
        self._include_targets.clear()
        self.last = None

    def walk(self, roots: list[Path], base: MacroTable, changed: list[Path] | None,
             roots_named: bool = False) -> Walk:
        """Walk ``roots`` (``changed``: the files edited since the last walk, when only they
        changed). ``roots_named``: the roots were named (configured, or given), so none is dropped
        for being read by another; the walk's ``roots`` are the roots kept."""
        kept = self._keep(roots, base, changed) if changed is not None else None
        if kept is not None:
            return kept
        walk = Walk([], roots=tuple(roots), candidates=tuple(roots), base=base.fingerprint)
        self._current = walk
        for root in roots:
            self._document_ended = False
            walked = self._walk(root, root, base, [], None)
            if walked is not None:
                walk.walks.append((root, walked[0]))
        if not roots_named:
            walk.walks, walk.roots = self._drop_included_roots(walk.walks, roots)
        self.last = walk
        return walk

    def _keep(self, roots: list[Path], base: MacroTable, changed: list[Path]) -> Walk | None:
        """The last walk, if the changed files were changed in a way the walk does not see."""
        last = self.last
        source = self.source
        if last is None or tuple(roots) != last.candidates or base.fingerprint != last.base:
            return None
        fresh = []
        for path in changed:
            visits = last.by_path.get(path)
            if not visits:
                continue  # read by no root: it changes nothing here (discovery looks after new roots)
            text = source.text_of(path)
            if text is None or path in last.packages or any(p.file == path or (p.root == path and p.code in _ROOT_READ)
                                                            for p in last.problems):
                return None  # (a problem whose judgement reads the root's text: judged again)
            for visit in visits:
                if visit.updates:
                    return None  # files it includes change its macros: walk it again
                scan = source.scan_file(path, text, visit.table, [])
                if _shape(scan) != _shape(visit.first_scan):
                    return None
                fresh.append((visit, text, scan))
        for visit, text, scan in fresh:
            visit.text, visit.first_scan, visit.scan = text, scan, scan
        last.reused = [visit for visit, _text, _scan in fresh]
        return last

    def _read(self, path: Path, table: MacroTable) -> Visit | None:
        """A file read under ``table``, recorded in the walk; None when it cannot be read."""
        source = self.source
        ft = source.text_of(path)
        if ft is None:
            return None
        first = source.scan_file(path, ft, table, [])
        visit = Visit(path, source.relative(path), ft, first, table=table, first_scan=first)
        self._current.visits.append(visit)
        self._current.by_path.setdefault(path, []).append(visit)
        return visit

    def _defined(self, ev, path: Path, root: Path, current: MacroTable, chain: list[Path],
                 updates: list[tuple[int, MacroTable]]) -> MacroTable:
        """The macro table after ``ev`` of ``path``: a definition adds to it, a project-local
        package adds what it defines (recorded in ``updates`` where it changes the table)."""
        if ev.kind == "def":
            return current.with_def(ev.extra)
        if ev.kind == "package":
            loaded = self._package(ev, path, root, current, chain + [path])
            if loaded is not current:
                updates.append((ev.end, loaded))
            return loaded
        return current

    def _walk(self, path: Path, root: Path, table: MacroTable, chain: list[Path],
              import_base: Path | None) -> tuple[Visit, MacroTable] | None:
        visit = self._read(path, table)
        if visit is None:
            return None
        source, ft, first = self.source, visit.text, visit.first_scan
        current = table
        updates: list[tuple[int, MacroTable]] = []
        include_index = -1
        children: dict[int, Visit] = {}
        for ev in first.structural:
            if ev.kind == "end" and ev.name == "document":
                self._document_ended = True
            if self._document_ended:
                break  # LaTeX reads nothing after \end{document}
            if ev.kind == "def" or ev.kind == "package":
                current = self._defined(ev, path, root, current, chain, updates)
            elif ev.kind == "include":
                include_index += 1
                child = self._follow(ev, path, root, current, chain + [path], import_base)
                if child is None:
                    continue
                child_visit, child_table = child
                if ev.name == "subfile":
                    self._document_ended = False
                children[include_index] = child_visit
                if child_table is not current:
                    updates.append((ev.end, child_table))
                    current = child_table
        if updates:
            visit.scan = source.scan_file(path, ft, table, updates)
            visit.updates = updates
        visit.children = children
        return visit, current

    def _follow(self, ev, path: Path, root: Path, table: MacroTable, chain: list[Path], import_base: Path | None):
        source = self.source
        value = ev.value
        if "\\jobname" in value:  # the name of the document being compiled: the root's
            value = value.replace("\\jobname", root.stem)
        if "\\" in value:  # a file name written with the author's macros
            texts = [ft.text for ft in (source.text_of(path), source.text_of(root)) if ft is not None]
            value, unknown = expand_include_name(value, texts)
            if unknown:
                self._problem(path, ev, "unresolved-input", "warning",
                              f"\\{ev.name}{{{ev.value}}}: the file name uses \\{unknown[0]}, which is not defined "
                              "as plain text in this file or the root; not followed", root)
                return None
        key = (ev.name, value, ev.extra if isinstance(ev.extra, str) else None, path, root, import_base)
        found = self._include_targets.get(key)
        if found is None:  # building and resolving paths costs: once per include until files change
            candidates = tuple(resolve_include(key[0], key[1], key[2], path, root, import_base))
            target = self._resolve_first(candidates) if candidates else None
            inside = isinstance(target, Path) and (is_within(target, source.root_dir) or any(
                is_under(target, allowed) for allowed in source.config.read_only_paths))
            found = self._include_targets[key] = (candidates, target, inside)
        candidates, target, inside = found
        if not candidates:
            return None
        if isinstance(target, IncludeTargetProblem):
            self._target_problem(path, ev, target, root)
            return None
        if target is None:
            if ev.name == "InputIfFileExists":
                return None  # its meaning: read the file only if there is one
            generated = generated_by_the_build(value, [ft.text for ft in (source.text_of(path), source.text_of(root))
                                                       if ft is not None])
            if generated is not None:
                self._problem(path, ev, "generated-input", "hint",
                              f"\\{ev.name}{{{ev.value}}}: not found, and not read ({generated})", root)
                return None
            self._problem(path, ev, "missing-input", "error",
                          f"\\{ev.name}{{{ev.value}}}: file not found (looked for "
                          + ", ".join(source.relative(c) for c in candidates[:3]) + ")", root)
            return None
        if not inside:
            self._problem(path, ev, PATH_OUTSIDE_PROJECT, "warning",
                          f"\\{ev.name}{{{ev.value}}} points outside the project ({target}); not followed", root, target)
            return None
        if target in chain:
            cycle = " -> ".join(source.relative(p) for p in chain[chain.index(target):] + [target])
            self._problem(path, ev, "include-cycle", "error", f"include cycle: {cycle}", root)
            return None
        if len(chain) >= MAX_INCLUDE_DEPTH:
            self._problem(path, ev, "include-cycle", "error",
                          f"includes nested deeper than {MAX_INCLUDE_DEPTH} levels; not followed", root)
            return None
        read = source.text_of(target)
        if read is not None and read.problem is not None and read.problem[1] == "unreadable-file":
            self._target_problem(path, ev, IncludeTargetProblem(target, "unreadable", read.problem[2].split(": ", 1)[-1]),
                                 root)
            return None
        base = import_base
        if ev.name in ("import", "subimport", "inputfrom", "includefrom", "subinputfrom", "subincludefrom"):
            base = target.parent
        return self._walk(target, root, table, chain, base)

    def _package(self, ev, path: Path, root: Path, table: MacroTable, chain: list[Path]) -> MacroTable:
        """The table after ``\\usepackage{ev.value}`` (or a class): a package file of the project
        (next to the root, or to the file that loads it) is read for its definitions only; its
        labels and references are no part of the document. Anything else is a system package."""
        key = (ev.name, ev.value, path.parent, root.parent)
        target = self._include_targets.get(key)
        if target is None:
            name = ev.value + PACKAGE_COMMANDS[ev.name]
            candidates = tuple(dict.fromkeys((root.parent / name, path.parent / name)))
            found = self._resolve_first(candidates)
            inside = isinstance(found, Path) and is_within(found, self.source.root_dir)
            target = self._include_targets[key] = found if inside else ()
        if not target or target in chain or len(chain) >= MAX_INCLUDE_DEPTH:
            return table
        visit = self._read(target, table)
        if visit is None:
            return table
        source, ft, first = self.source, visit.text, visit.first_scan
        self._current.packages.add(target)
        current = table
        updates: list[tuple[int, MacroTable]] = []
        for inner in first.structural:
            current = self._defined(inner, target, root, current, chain, updates)
        if updates:  # what the packages it loads define counts for the rest of it
            visit.scan = source.scan_file(target, ft, table, updates)
            visit.updates = updates
        return current

    def _resolve_first(self, candidates: tuple[Path, ...]):
        """The first candidate that is a file, resolved; else what is wrong with the first one
        that exists (IncludeTargetProblem); None when none exists. Cached until files appear or
        disappear (a re-discovery clears it): resolving costs system calls."""
        cached = self._resolved.get(candidates, False)
        if cached is not False:
            return cached
        target = None
        for candidate in candidates:
            found = probe_include_target(candidate)
            if isinstance(found, Path):
                target = found
                break
            if found is not None and target is None:
                target = found
                if found.reason == "loop":
                    break  # LaTeX would not get past it either
        self._resolved[candidates] = target
        return target

    def _target_problem(self, path: Path, ev, problem: IncludeTargetProblem, root: Path) -> None:
        command = f"\\{ev.name}{{{ev.value}}}"
        where = self.source.relative(problem.path)
        if problem.reason == "loop":
            self._problem(path, ev, "include-cycle", "error",
                          f"{command} goes through a symbolic link cycle ({where}); not followed", root)
        elif problem.reason == "directory":
            self._problem(path, ev, "unreadable-input", "error",
                          f"{command}: {where} is a directory, not a file; not followed", root)
        else:
            self._problem(path, ev, "unreadable-input", "error",
                          f"{command}: {where} cannot be read ({problem.detail}); not followed", root)

    def _problem(self, path: Path, ev, code: str, severity: str, message: str, root: Path,
                 target: Path | None = None) -> None:
        self._current.problems.append(IncludeProblem(path, ev, code, severity, message, root, target))

    @staticmethod
    def _drop_included_roots(walks: list[tuple[Path, Visit]],
                             roots: list[Path]) -> tuple[list[tuple[Path, Visit]], tuple[Path, ...]]:
        """A file with \\documentclass that another root \\inputs (a chapter compiled alone
        through docmute or standalone) is a part of that document, not a document of its own.
        Returns the walks and the roots kept."""
        if len(walks) < 2:
            return walks, tuple(roots)
        reads: dict[Path, set[Path]] = {}
        for root, visit in walks:
            seen: set[Path] = set()
            stack = list(visit.children.values())
            while stack:
                child = stack.pop()
                if child.path not in seen:
                    seen.add(child.path)
                    stack.extend(child.children.values())
            reads[root] = seen
        kept = [(root, visit) for root, visit in walks
                if not any(root in reads[other] and other not in reads[root] for other, _ in walks if other != root)]
        return kept, tuple(root for root, _ in kept)
