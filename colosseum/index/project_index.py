"""The project index: every root of a LaTeX project, read as LaTeX reads it, kept up to date.

Costs are kept per file: a file's scan is cached by its text and the macro table it is read
with, and its analysis by that scan and the project's theorem environments. An edit rescans
one file; the roots are then re-walked and re-linked from cached pieces.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path, PurePosixPath

from colosseum.checks.state import DiagnosticState
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic
from colosseum.graph.dag import DependencyGraph
from colosseum.graph.view import GraphInput
from colosseum.index.declarations import DeclaredEnvironments
from colosseum.index.one_reading import EarlyChunks, OneReading
from colosseum.index.snapshot import BuildWork, IndexSnapshot
from colosseum.latex.events import ScanResult
from colosseum.latex.incremental import rescan
from colosseum.latex.macros import MacroTable
from colosseum.latex.scanner import scan
from colosseum.link.linker import Linker
from colosseum.link.state import LinkChange, LinkState
from colosseum.project.chunks import Chunk, split
from colosseum.project.files import (
    FileText,
    PathProblem,
    discover_roots,
    list_project_files,
    no_root_reason,
    project_folder,
    read_file,
    root_outside,
    root_signature,
    text_from_editor,
)
from colosseum.project.generated import build_output_kind
from colosseum.project.root_order import link_order, reading_rank
from colosseum.project.walk import Visit, Walker
from colosseum.settings.project import ProjectConfig, load_config


class ProjectError(Exception):
    """The path given cannot be indexed at all (it does not exist, or holds no root file)."""


@dataclass(slots=True)
class _ScanEntry:
    version: int
    results: dict[str, ScanResult] = field(default_factory=dict)
    chunks: dict[tuple[int, str], list[Chunk]] = field(default_factory=dict)  # (id(scan), env key) ->


class ProjectIndex:
    def __init__(self, root_dir: Path, config: ProjectConfig, explicit_root: Path | None = None,
                 for_edits: bool = True):
        self.root_dir = root_dir
        # False: built for one report (the CLI's check, dag, obligations): what only edits need
        # (the scan events, the chunks' records, the linker's memo) is let go during the build
        self.for_edits = for_edits
        self.config = config
        self.explicit_root = explicit_root
        self._texts: dict[Path, FileText] = {}
        self._overlays: dict[Path, str] = {}
        self._version = 0
        self._scans: dict[Path, _ScanEntry] = {}
        self.roots: list[Path] = []
        # the roots discovery found: the walk starts from them each time, and drops those another root
        # reads (self.roots are the rest), so that one read no longer is a root again
        self._discovered_roots: list[Path] = []
        self.root_problems: list[str | PathProblem] = []  # and the symbolic links out of the project
        self.snapshot = IndexSnapshot()
        self._building: IndexSnapshot | None = None
        self._link_memo: dict = {}
        self._link_memo_key = ""
        self._link_state = LinkState()
        self._diagnostic_state = DiagnosticState()
        self.last_change: LinkChange | None = None  # what the last build changed
        self.last_work = BuildWork()
        self._file_rank: dict[Path, int] = {}
        self._file_chunks: dict[Path, list[Chunk]] = {}  # the chunks of each file's first reading
        self._rescanned: dict[int, tuple[str, ScanResult]] = {}  # id(scan) -> (old text, old scan)
        self._relative: dict = {}  # path -> its name relative to the project
        self._moved_chunks: set[Chunk] = set()  # chunks an edit moved in this build
        self._structural_dirty = False  # scanner errors changed in this build
        self._at_root_end = True  # environments were left open at the end of a root in the last build
        self.config_loader = load_config  # the server adds the editor's settings
        # labels whose Lean proof was checked (the Lean bridge sets it; it outlives rebuilds):
        # their DAG status is "formal", trusted whatever the paper's own proof says
        self.formal_labels: set[str] = set()
        self._walker = Walker(self)
        self._previous_scans: dict[Path, tuple[str, _ScanEntry]] = {}
        self._link_order: list[tuple[Path, Visit]] = []  # the last walk's roots, in linking order
        self._tex_files: list[Path] = []  # the project's .tex files, as the last discovery listed them
        self._signatures: dict[Path, tuple[str, tuple]] = {}  # path -> (a text, its root_signature)
        self._declarations = DeclaredEnvironments()  # the project's theorem declarations, kept with the walk
        self._early: EarlyChunks | None = None  # a report's build: files cut as they are scanned

    # the current snapshot's contents (during a rebuild: the one being built)
    def _current(self) -> IndexSnapshot:
        return self._building if self._building is not None else self.snapshot

    claims = property(lambda self: self._current().claims)
    sections = property(lambda self: self._current().sections)
    labels = property(lambda self: self._current().labels)
    references = property(lambda self: self._current().references)
    root_results = property(lambda self: self._current().root_results)
    include_problems = property(lambda self: self._current().include_problems)
    theorem_environments = property(lambda self: self._current().theorem_environments)
    file_roots = property(lambda self: self._current().file_roots)
    graph = property(lambda self: self._current().graph)
    label_owner = property(lambda self: self._current().label_owner)

    # ---- construction ----------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, config: ProjectConfig | None = None, for_edits: bool = True) -> "ProjectIndex":
        path = Path(path)
        if not path.exists():
            raise ProjectError(f"{path}: no such file or directory")
        path = path.resolve()
        if path.is_file() and (output := build_output_kind(PurePosixPath(path.name))) is not None:
            raise ProjectError(f"{path}: a {output} file is written by a LaTeX run, not a source to check; "
                               "give the root .tex file or the project's folder")
        explicit_root = path if path.is_file() else None
        root_dir = project_folder(path)  # a colosseum.toml above a file marks its project
        index = cls(root_dir, config or load_config(root_dir), explicit_root, for_edits)
        index.rebuild(discover=True)
        if not index.roots:
            raise ProjectError(no_root_reason(path, index._tex_files, index.root_problems))
        return index

    def relative(self, path: Path) -> str:
        found = self._relative.get(path)
        if found is None:
            try:
                found = Path(path).relative_to(self.root_dir).as_posix()
            except ValueError:
                found = Path(path).as_posix()
            if len(self._relative) > 100_000:
                self._relative.clear()
            self._relative[path] = found
        return found

    # ---- file texts ------------------------------------------------------------------------------
    def text_of(self, path: Path) -> FileText | None:
        ft = self._texts.get(path)
        if ft is not None:
            return ft
        self._version += 1
        if path in self._overlays:
            ft = text_from_editor(path, self._overlays[path], self._version)
        else:
            ft = read_file(path, self._version)
        if ft is not None:
            self._texts[path] = ft
        return ft

    def update_document(self, path: Path, text: str | None) -> None:
        """The editor changed ``path`` (``text``), or it changed on disk (``None``)."""
        self.update_documents({path: text})

    def update_documents(self, changes: dict[Path, str | None]) -> bool:
        """Several changes at once (what accumulated while the author typed): one rebuild.
        Returns whether anything changed."""
        collecting = gc.isenabled()
        gc.disable()  # see rebuild(): no collector passes over the whole index in the middle
        try:
            return self._update_documents(changes)
        finally:
            if collecting:
                gc.enable()

    def _update_documents(self, changes: dict[Path, str | None]) -> bool:
        self._refuse_edits_of_a_report()
        changed = []
        same_root: set[Path] = set()
        signature_changed = False
        for path, text in changes.items():
            path = Path(path).resolve()
            if text is None:
                self._overlays.pop(path, None)
            else:
                self._overlays[path] = text
            old = self._texts.pop(path, None)
            new = self.text_of(path)
            if old is not None and new is not None and old.text == new.text:
                self._texts[path] = old  # unchanged: keep the cached scans valid
                continue
            entry = self._scans.pop(path, None)
            if old is not None and entry is not None:
                self._previous_scans[path] = (old.text, entry)  # for rescanning only the edit
            if (old is not None and old.problem is not None) or (new is not None and new.problem is not None):
                self._structural_dirty = True  # a reading problem came or went
            if old is not None and new is not None:
                if self._root_signature(path, old.text) == self._root_signature(path, new.text):
                    same_root.add(path)  # a root (or not) for the same reasons: no discovery needed
                else:
                    signature_changed = True  # e.g. a shared preamble lost its \documentclass
            changed.append(path)
        if not changed:
            return False
        if any(p.name == "colosseum.toml" for p in changed):
            self.config = self.config_loader(self.root_dir)
        rediscover = signature_changed or any(p.name == "colosseum.toml" or (p in self.roots and p not in same_root) or p not in self._texts
                         or (p.suffix == ".tex" and p not in self.file_roots) for p in changed)
        self.rebuild(discover=rediscover, changed=changed)
        return True

    def _root_signature(self, path: Path, text: str) -> tuple:
        """root_signature of a file's text, kept for its last text: each keystroke then reads
        only the new text (the old one was read at the keystroke before)."""
        kept = self._signatures.get(path)
        if kept is None or kept[0] is not text:
            kept = self._signatures[path] = (text, root_signature(text))
        return kept[1]

    def _forget_build_state(self) -> None:
        self._link_memo = {}
        self._link_state = LinkState()
        self._diagnostic_state = DiagnosticState()
        self._walker.last = None
        self._declarations = DeclaredEnvironments()

    def reload(self, config: ProjectConfig | None = None) -> None:
        """Forget every cached reading of the files the editor does not hold, and index again."""
        if config is not None:
            self.config = config
        self._texts = {p: t for p, t in self._texts.items() if p in self._overlays}
        self._scans.clear()
        self._forget_build_state()
        self.rebuild(discover=True)

    def close_document(self, path: Path) -> None:
        path = Path(path).resolve()
        if path in self._overlays:
            self.update_document(path, None)

    def forget_file(self, path: Path) -> None:
        """A file was deleted on disk."""
        self._refuse_edits_of_a_report()
        path = Path(path).resolve()
        self._overlays.pop(path, None)
        self._texts.pop(path, None)
        self._scans.pop(path, None)
        self._signatures.pop(path, None)
        self.rebuild(discover=True)

    def _refuse_edits_of_a_report(self) -> None:
        if not self.for_edits:
            raise RuntimeError("this index was built for one report (for_edits=False): it keeps nothing to update; "
                               "open it with for_edits=True, or reload() it")

    # ---- building --------------------------------------------------------------------------------
    def rebuild(self, discover: bool = False, changed: list[Path] | None = None) -> None:
        """Index again from the cached readings; ``changed``: the files edited since the last
        build, when only they changed (the walk of the roots may then be kept)."""
        if discover:
            self._discover()
            changed = None
        base = MacroTable(label_commands=frozenset(self.config.index.label_definition_commands),
                          reference_commands=frozenset(self.config.index.label_reference_commands),
                          include_commands=frozenset(self.config.index.include_commands))
        snap = self._building = IndexSnapshot()
        self._early = None if self.for_edits else EarlyChunks(self.config.index.theorem_environments)
        # a rebuild allocates many small objects that all live on; the cyclic collector
        # would walk the whole index again and again meanwhile (a third of the time)
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._build(base, snap, changed)
            snap.diagnostics = self._diagnostic_state.update(self.build_view(), self.last_change)
            snap.diagnostics_by_file = self._diagnostic_state.by_file
            snap.bibliography = self._diagnostic_state.bibliography()
            self.last_work.files_with_new_findings = self._diagnostic_state.last_dirty
        except BaseException:
            self._forget_build_state()  # half updated: the next build starts from nothing
            raise
        finally:
            self._building = self._early = None
            self._previous_scans.clear()
            self._rescanned.clear()
            self._moved_chunks = set()
            self._structural_dirty = False
            if collecting:
                gc.enable()
        self.snapshot = snap

    def _build(self, base: MacroTable, snap: IndexSnapshot, changed: list[Path] | None = None) -> None:
        roots_named = bool(self.config.index.roots) or self.explicit_root is not None
        walk = self._walker.walk(self._discovered_roots, base, changed, roots_named)
        self.roots = list(walk.roots)  # a root another root reads is a part of that document
        walks = walk.walks
        work = self.last_work = BuildWork(files_walked=0 if walk.reused is not None else len(walk.visits))
        snap.include_problems = walk.problems
        # the same walk: the same structural events (colosseum.project.walk._shape), so the same
        # \\externaldocument commands; else read them again from every file
        snap.external_documents = (self.snapshot.external_documents if walk.reused is not None
                                   else _external_documents(walks))
        envs, styles = self._declarations.of(walk, self.config.index.theorem_environments)
        snap.theorem_environments = frozenset(envs)
        snap.kind_names = {env: title.strip() for env, (title, _style) in styles.items()
                           if title and title.strip() and "\\" not in title}
        # claims' roles come from the declarations' titles and styles too: part of the key
        env_key = "\0".join(sorted(envs)) + "\1" + repr(sorted(styles.items()))
        if walk.reused is not None and env_key == self._link_memo_key:
            # the same walk: only the edited files' visits are cut into chunks again
            rank, file_chunks = self._file_rank, dict(self._file_chunks)
            for visit in walk.reused:
                self._chunk_visit(visit, env_key)
            for path in {visit.path for visit in walk.reused}:
                file_chunks[path] = walk.by_path[path][0].chunks
        else:
            self._link_order = link_order(walks, self.relative)
            file_chunks = {}
            if self.for_edits:  # else cut as the linker reads (OneReading)
                for _root, visit in self._link_order:
                    self._chunk_tree(visit, env_key, {}, file_chunks)
            rank = reading_rank(self._link_order)
        reuse = env_key == self._link_memo_key and rank == self._file_rank
        if not reuse:  # claims' order numbers and roles change everywhere: link afresh
            self._link_state = LinkState()
        reading = None if self.for_edits else OneReading(self._link_order,
                                                         lambda visit: self._chunk_visit(visit, env_key))
        linker = Linker(self.root_dir, styles, self._link_memo if reuse else None, rank, reading)
        edited = walk.reused if reuse and walk.reused is not None else ()
        # roots are linked in an order of their own (colosseum.project.root_order), not their names'
        results = {root: linker.link_root(root, visit, edited) for root, visit in self._link_order}
        self._file_chunks = file_chunks
        snap.root_results = [results[root] for root, _visit in walks]
        self._link_memo, self._link_memo_key, self._file_rank = linker.memo_for_next(), env_key, rank
        if not self.for_edits:
            self._linked_for_report(env_key, file_chunks)
        snap.claims = linker.claims
        snap.sections = linker.sections
        self.last_change = change = self._link_state.update(linker, linker.claims, linker.sections, rank,
                                                            self._moved_chunks)
        work.units_linked, work.units_moved, work.nodes_settled = len(change.added), len(change.moved), len(change.nodes)
        if not self.for_edits:
            self._link_state.freeze(linker.claims)
        if change.full and not self.for_edits:
            # every name is new: the graph and the checks read which names changed only after an edit
            change.names, change.owners, change.root_names = set(), set(), {}
        # what the reading of files, includes and environments found: to be found again?
        at_root_end = any(len(result.problems) != sum(len(u.problems) for u in units)
                          for result, units in zip(linker.roots, linker.root_units))
        change.structural = (self._structural_dirty or walk.reused is None or at_root_end or self._at_root_end
                             or any(unit.problems for unit in chain(change.added, change.removed, change.moved)))
        self._at_root_end = at_root_end  # environments left open at the end of a root
        snap.labels = self._link_state.labels
        snap.references = self._link_state.references
        snap.units = self._link_state.units
        snap.label_owner = self._link_state.label_owner
        for result in snap.root_results:
            for f in result.files:
                roots = snap.file_roots.setdefault(f, [])
                if result.root not in roots:
                    roots.append(result.root)
        if snap.file_roots == self.snapshot.file_roots:
            snap.file_roots = self.snapshot.file_roots  # the same: keep the last one
        snap.graph = DependencyGraph.build(self._graph_input(), self.snapshot.graph, self.last_change)

    def _linked_for_report(self, env_key: str, file_chunks: dict) -> None:
        """An index built for one report, linked: the files' chunks in reading order (and those of
        the visits never linked, after \\end{document}); the events, the chunks' records and the
        linker's memo are read no more."""
        for _root, visit in self._link_order:
            self._chunk_tree(visit, env_key, {}, file_chunks)
        self._link_memo = {}
        for entry in self._scans.values():
            for result in entry.results.values():
                result.release_events()
            for chunks in entry.chunks.values():
                for chunk in chunks:
                    chunk.analysis.release_records()

    def _discover(self) -> None:
        self._walker.forget()
        if self.explicit_root is not None:
            self.roots = [self.explicit_root]
            self._discovered_roots = list(self.roots)
            outside = root_outside(self.explicit_root)  # a root it names out of reach: not followed
            self.root_problems = [outside] if outside is not None else []
            return
        listing = list_project_files(self.root_dir, self.config.index.exclude, self.config.read_only_paths)
        files = self._tex_files = listing.tex_files
        texts, too_large = {}, []
        for f in files:
            ft = self.text_of(f)
            if ft is not None:
                texts[f] = ft.text
                if ft.problem is not None and ft.problem[1] == "file-too-large":
                    # its text is not read, so whether it is a root is unknown: the finding goes on it
                    # here (a root or not), and an include of it adds none (checks.inputs)
                    too_large.append(PathProblem(f, ft.problem[2], "file-too-large", ft.problem[0]))
        found = discover_roots(self.root_dir, texts, self.config.index.roots)
        self.roots = [r.resolve() for r in found.roots]
        self._discovered_roots = list(self.roots)
        self.root_problems = found.problems + listing.problems + too_large

    def scan_file(self, path: Path, ft: FileText, table: MacroTable,
                  updates: list[tuple[int, MacroTable]]) -> ScanResult:
        """The scan of ``ft`` read with ``table`` (and ``updates``: the tables what it includes
        makes, at their offsets), cached by text version and tables; an edit is rescanned from
        the last scan of the file where it can be (colosseum.latex.incremental)."""
        entry = self._scans.get(path)
        if entry is None or entry.version != ft.version:
            entry = self._scans[path] = _ScanEntry(ft.version)
        key = table.fingerprint + "".join(f"@{off}:{t.fingerprint}" for off, t in updates)
        result = entry.results.get(key)
        if result is None:
            previous = self._previous_scans.get(path)
            if previous is not None and not updates and key in previous[1].results:
                old_result = previous[1].results[key]
                result = rescan(previous[0], ft.text, old_result, table)
                if result is not None:
                    self._rescanned[id(result)] = (previous[0], old_result)
            if result is None:
                result = scan(ft.text, table, updates)
                if self._early is not None:  # a report: cut into chunks now, the events let go
                    self._early.scanned(ft, result, table, updates)
            entry.results[key] = result
        return result

    def _chunk_tree(self, visit: Visit, env_key: str, rank: dict[Path, int], file_chunks: dict) -> None:
        """Cut every file of a root's walk into analysed chunks (colosseum.project.chunks), reusing the
        chunks of the text before the edit; note the order in which files are first read."""
        rank.setdefault(visit.path, len(rank))
        self._chunk_visit(visit, env_key)
        file_chunks.setdefault(visit.path, visit.chunks)
        for child in visit.children.values():
            self._chunk_tree(child, env_key, rank, file_chunks)

    def _chunk_visit(self, visit: Visit, env_key: str) -> None:
        entry = self._scans[visit.path]
        key = (id(visit.scan), env_key)
        chunks = entry.chunks.get(key)
        if chunks is None and self._early is not None:
            chunks = entry.chunks[key] = self._early.chunks(visit, self.theorem_environments)
            self._structural_dirty = True
        if chunks is None:
            previous = None
            origin = self._rescanned.get(id(visit.scan))
            if origin is not None:
                old = self._previous_scans.get(visit.path)
                previous = old[1].chunks.get((id(origin[1]), env_key)) if old is not None else None
            chunks, moved = split(visit.text.text, visit.scan, self.theorem_environments, previous,
                                  origin[0] if origin is not None else None)
            kept = set(map(id, previous)) if previous else ()
            fresh = [chunk for chunk in chunks if id(chunk) not in kept]
            self.last_work.chunks_analysed += len(fresh)
            if previous is None:
                self._structural_dirty = True  # read from nothing: what it had is not known here
            else:
                now = set(map(id, chunks))
                if any(c.analysis.errors for c in chain(fresh, moved)) \
                        or any(c.analysis.errors for c in previous if id(c) not in now):
                    self._structural_dirty = True  # scanner errors came, went or moved
            entry.chunks[key] = chunks
            self._moved_chunks.update(moved)
            if not self.for_edits:  # analysed: its events are read no more (freed now, the records reuse their memory)
                visit.scan.release_events()
                for chunk in chunks:
                    chunk.read_in_place(visit.text.text)  # the file's text once, not twice
        visit.chunks = chunks

    # ---- what the later stages read ----------------------------------------------------------------
    def _graph_input(self) -> GraphInput:
        """The current build (during a rebuild: the one being built), as the graph reads it."""
        current = self._current()
        return GraphInput(current.claims, current.sections, current.label_owner, self._link_state,
                          frozenset(self.formal_labels), current.external_documents, current.root_results,
                          self.for_edits)

    def build_view(self) -> BuildView:
        """The current build (during a rebuild: the one being built), as the checks read it."""
        current = self._current()
        return BuildView(
            root_dir=self.root_dir, roots=self.roots, root_problems=self.root_problems,
            config_path=self.config.path, config_problems=self.config.problems,
            file_roots=current.file_roots, root_results=current.root_results,
            include_problems=current.include_problems, file_chunks=self._file_chunks,
            claims=current.claims, sections=current.sections, labels=current.labels,
            label_owner=current.label_owner, graph=current.graph, links=self._link_state,
            text_of=self.text_of, relative=self.relative, tex_files=self._tex_files,
            external_documents=current.external_documents, read_only_paths=self.config.read_only_paths,
        )

    # ---- results ---------------------------------------------------------------------------------
    def diagnostics(self) -> list[Diagnostic]:
        return list(self.snapshot.diagnostics or ())

    def set_formal_labels(self, labels) -> bool:
        """Make exactly ``labels`` formal (their Lean proofs were checked): their DAG status is
        ``formal``, and what was conditional only through them is not. Cheap: no file is read or
        linked again; a new snapshot gets a graph made from the last one and the findings that
        depend on statuses. Returns whether anything changed."""
        labels = set(labels)
        if labels == self.formal_labels:
            return False
        self.formal_labels.clear()
        self.formal_labels.update(labels)
        current = self.snapshot
        snap = self._building = replace(current, _units_by_path=None)
        change = LinkChange(full=False)  # no unit changed: only statuses
        try:
            # a report's graph keeps nothing to be updated from: made afresh
            snap.graph = DependencyGraph.build(self._graph_input(), current.graph if self.for_edits else None, change)
            snap.diagnostics = self._diagnostic_state.update(self.build_view(), change)
            snap.diagnostics_by_file = self._diagnostic_state.by_file
        except BaseException:
            self._forget_build_state()
            raise
        finally:
            self._building = None
        self.snapshot = snap
        return True

    def files(self) -> list[Path]:
        return sorted(self.file_roots)


def _external_documents(walks: list[tuple[Path, Visit]]) -> dict[Path, tuple[tuple[str, Path], ...]]:
    """Per root, the documents it names with xr's ``\\externaldocument[prefix]{doc}`` (read from
    the folder of the root, as LaTeX reads ``doc.aux``): (prefix, ``doc.tex``)."""
    found: dict[Path, tuple[tuple[str, Path], ...]] = {}
    for root, visit in walks:
        named: list[tuple[str, Path]] = []
        stack = [visit]
        seen: set[int] = set()
        while stack:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            for ev in current.scan.structural:
                if ev.kind == "external":
                    doc = ev.value if ev.value.endswith(".tex") else ev.value + ".tex"
                    named.append((ev.extra if isinstance(ev.extra, str) else "", (root.parent / doc).resolve()))
            stack.extend(current.children.values())
        if named:
            found[root] = tuple(dict.fromkeys(named))
    return found
