"""What every feature shares: the projects of the workspace, their indexes, open documents,
and the diagnostics store. Heavy work runs in a worker thread; handlers read the last snapshot."""

from __future__ import annotations

import asyncio
import gc
import logging
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Coroutine

from lsprotocol import types

from colosseum.settings.project import load_config
from colosseum.index import IndexSnapshot, ProjectError, ProjectIndex
from colosseum.core.structure import Label, Position, Reference
from colosseum.graph.export import obligation_ids
from colosseum_lsp.convert import path_to_uri
from colosseum_lsp.features.catalog_view import project_catalog, publish_catalog_findings
from colosseum_lsp.features.diagnostics import publish_project
from colosseum_lsp.features.registry import Features
from colosseum_lsp.options import DEFAULTS, EditorOptions, read_options
from colosseum_lsp.progress import CancelledTokens, work_done

log = logging.getLogger(__name__)

# while edits keep coming, the findings of an update already superseded are not sent; after this
# many in a row they are anyway, so that an author who types without pause still sees findings
MAX_SUPERSEDED = 4


@dataclass
class Project:
    root_dir: Path
    index: ProjectIndex | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    pending: asyncio.Task | None = None
    pending_texts: dict = field(default_factory=dict)  # path -> editor text (None: read the disk)
    pending_versions: dict = field(default_factory=dict)  # path -> document version of that text
    indexed_versions: dict = field(default_factory=dict)  # uri -> version the index has read
    error: str | None = None
    _lookup_for: int = -1
    _lookup: dict = field(default_factory=dict)
    reindexes: int = 0  # updates of the index so far (a burst of edits should cost few)
    superseded: int = 0  # updates in a row whose findings were not sent: newer edits had come
    # the features' own state for this project, one object per feature (by its class): a feature
    # never sets attributes on the project
    feature_states: dict = field(default_factory=dict)

    def state(self, kind: type):
        """The project's instance of a feature's state class ``kind``, made on first use."""
        found = self.feature_states.get(kind)
        if found is None:
            found = self.feature_states[kind] = kind()
        return found

    def snapshot(self) -> IndexSnapshot | None:
        return self.index.snapshot if self.index is not None else None

    def lookup(self, path: Path) -> list[tuple[object, list]]:
        """The labels and references of one file for hit tests: per chunk of the file, sorted by
        where the chunk starts, (its anchor, its items sorted by position *in the chunk*). A
        chunk's items keep these positions however far an edit before it moves it: they are
        computed once per chunk, and per snapshot only the chunks are listed."""
        snap = self.snapshot()
        if snap is None:
            return []
        if self._lookup_for != id(snap):
            self._lookup, self._lookup_for = {}, id(snap)
        found = self._lookup.get(path)
        if found is None:
            groups: dict[int, tuple[object, list]] = {}
            for unit in snap.units_of(path):
                items = unit.hits
                if items is None:
                    items = unit.hits = _relative_items(unit)
                for anchor, group in items:
                    mine = groups.get(id(anchor))
                    if mine is None:
                        groups[id(anchor)] = (anchor, list(group))
                    else:
                        mine[1].extend(group)
            found = sorted(groups.values(), key=lambda g: g[0].line)
            for _anchor, group in found:
                group.sort(key=lambda item: (item[0], item[1]))
            self._lookup[path] = found
        return found


    def item_at(self, path: Path, pos: Position) -> tuple[str, Label | Reference] | None:
        """("label" or "ref", the item) at a position of one of the project's files."""
        for anchor, items in self.lookup(path):
            if anchor.line > pos.line:
                break
            if pos.line > anchor.line + len(anchor.lines.line_starts) - 1:
                continue  # a chunk that ends before the position
            rel = Position(pos.line - anchor.line, pos.character)
            i = bisect_right(items, (rel, Position(10**9, 0))) - 1
            while i >= 0:
                start, end, kind, item = items[i]
                if start <= rel <= end:
                    return kind, item
                if end.line < rel.line - 1:
                    break
                i -= 1
        return None


@dataclass(frozen=True)
class FeatureContext:
    """What a feature is given to answer a request about one document: the document's project
    and the index snapshot the answer reads, the editor's options, and what the server lends a
    feature: ``spawn`` (a task the server owns), ``progress`` (work-done progress that always
    ends), ``publish`` (the project's findings, after a feature changed its own), ``state`` (the
    feature's own state object for this server: ``state(Kind)``) and ``document_version`` (of the
    editor's copy of a uri, None when it is not open)."""

    path: Path
    project: Project
    snapshot: IndexSnapshot
    options: EditorOptions
    spawn: Callable[[Coroutine], asyncio.Task]
    progress: Callable
    publish: Callable[[], None]
    state: Callable[[type], object]
    document_version: Callable[[str], int | None]


def _relative_items(unit) -> list[tuple[object, list]]:
    """A unit's labels and references, by anchor, at their positions relative to it."""
    by_anchor: dict[int, tuple[object, list]] = {}
    for kind, group in (("label", unit.labels), ("ref", unit.refs)):
        for item in group:
            anchor = item._lines
            if anchor is None:
                continue
            lines = anchor.lines
            found = by_anchor.get(id(anchor))
            if found is None:
                found = by_anchor[id(anchor)] = (anchor, [])
            found[1].append((lines.position(item._start), lines.position(item._end), kind, item))
    return list(by_anchor.values())


def _settle_memory() -> None:
    """A freshly indexed project is a large heap of objects that live as long as the server: the
    cyclic collector would walk them all again and again while the author types. Collect once,
    then set what is alive now aside from future collections (the index makes no cycles: what
    it drops later is freed when its last reference goes)."""
    gc.collect()
    gc.freeze()


class ServerContext:
    def __init__(self, server, features: Features | None = None):
        self.server = server
        self.features = features if features is not None else Features()
        self.workspace_roots: list[Path] = []
        self.boundary_set = False  # the first initialize fixed workspace_roots: no later one changes them
        self.projects: dict[Path, Project] = {}
        self.options: EditorOptions = DEFAULTS
        self.settings: dict = {}  # the editor's settings object as last merged (untyped, as sent)
        self.option_messages: list[str] = []  # what is wrong with it, still to be told
        self._option_messages_told: set[str] = set()
        self.cancelled_progress = CancelledTokens()  # work-done tokens the client asked to cancel
        self._feature_states: dict[type, object] = {}
        # findings from other sources than the index, keyed by (source, uri): (diagnostics, extra)
        self.extra_diagnostics: dict[tuple[str, str], tuple[list, object]] = {}
        self.tasks: set[asyncio.Task] = set()
        self.watched_files_supported = False
        self.observer = None
        self._obligations: dict[Path, tuple] = {}  # project -> (graph, how many open obligations it has)

    def set_workspace(self, roots: list[Path]) -> bool:
        """The folders the server serves, from the first initialize only. A second initialize (a
        protocol error) must not widen them: with no folder it would serve any file it is shown.
        Returns whether they were set."""
        if self.boundary_set:
            return False
        self.workspace_roots = roots
        self.boundary_set = True
        return True

    # ---- settings and feature state ------------------------------------------------------------
    def settings_received(self, settings, replace: bool = False) -> None:
        """The editor's settings, from initializationOptions (``replace``) or a configuration change
        (merged: a key left out keeps its value, ``null`` unsets it); typed again as a whole."""
        if replace or not isinstance(settings, dict):
            self.settings = dict(settings) if isinstance(settings, dict) else {}
            raw = settings if settings is not None else {}
        else:
            self.settings.update(settings)
            raw = self.settings
        self.options, self.option_messages = read_options(raw)

    def report_option_problems(self) -> None:
        """Tell the author once about each problem in the settings (an invalid value: its default
        is used; an unknown key: ignored), in the log and as a warning in the editor."""
        for message in self.option_messages:
            log.warning("editor settings: %s", message)
            if message in self._option_messages_told:
                continue
            self._option_messages_told.add(message)
            try:
                self.server.window_show_message(types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"Colosseum: {message}"))
            except Exception:  # a closed transport must not break the settings
                log.debug("showMessage failed", exc_info=True)
        self.option_messages = []

    def feature_state(self, kind: type):
        """The state a feature keeps for this server: one instance of ``kind``, made on first use
        (a feature's own object, not attributes set on projects or module globals)."""
        state = self._feature_states.get(kind)
        if state is None:
            state = self._feature_states[kind] = kind()
        return state

    # ---- projects ------------------------------------------------------------------------------
    def project_dir_for(self, path: Path) -> Path:
        probe = path.parent
        while True:
            if (probe / "colosseum.toml").is_file():
                return probe
            if probe == probe.parent:
                break
            probe = probe.parent
        candidates = [w for w in self.workspace_roots if path == w or w in path.parents]
        if candidates:
            return max(candidates, key=lambda p: len(p.parts))
        return path.parent

    def project_for(self, path: Path) -> Project:
        for project in self.projects.values():
            if project.index is not None and (path in project.index.file_roots or path in project.index.roots):
                return project
        root_dir = self.project_dir_for(path)
        project = self.projects.get(root_dir)
        if project is None:
            project = self.projects[root_dir] = Project(root_dir)
        return project

    async def ensure_index(self, project: Project, progress_title: str = "Indexing") -> ProjectIndex | None:
        if project.index is not None:
            return project.index
        async with project.lock:
            if project.index is None:
                # not cancellable: it runs in a worker thread (requests meanwhile are answered),
                # takes about a second for the largest papers, and without it nothing else works
                async with self.progress(f"{progress_title} {project.root_dir.name}", cancellable=False) as report:
                    report("reading files")
                    self.notify_status("indexing")
                    try:
                        config = self.project_config(project.root_dir)
                        project.index = await asyncio.to_thread(ProjectIndex.open, project.root_dir, config)
                        project.index.config_loader = self.project_config
                        project.error = None
                    except ProjectError as exc:
                        project.error = str(exc)
                        log.warning("cannot index %s: %s", project.root_dir, exc)
                        return None
                self.after_index(project)
                # the paper's findings first: the author is waiting for them; the catalog's
                # (reading it parses YAML) and setting the heap aside follow
                publish_project(self, project)
                _settle_memory()
                try:
                    await asyncio.to_thread(project_catalog, project)
                except Exception:  # publish() says what is wrong with it
                    pass
                self.publish(project)
        return project.index

    def project_config(self, root_dir: Path):
        """colosseum.toml, with what the editor's settings add (texlab's option names)."""
        config = load_config(root_dir)
        for attribute in ("label_definition_commands", "label_reference_commands"):
            current = getattr(config.index, attribute)
            current.extend(c for c in getattr(self.options, attribute) if c not in current)
        return config

    def notify_status(self, state: str) -> None:
        obligations = 0
        for project in self.projects.values():
            snap = project.snapshot()
            if snap is not None and snap.graph is not None:
                graph = snap.graph
                counted = self._obligations.get(project.root_dir)
                if counted is None or counted[0] is not graph:  # counted once per graph
                    # the obligations `colosseum obligations` lists, not the nodes of that status
                    counted = self._obligations[project.root_dir] = (graph, len(obligation_ids(snap)))
                obligations += counted[1]
        try:
            self.server.protocol.notify("colosseum/status", {"state": state, "obligations": obligations})
        except Exception:  # a closed transport must not break indexing
            log.debug("status notification failed", exc_info=True)

    # ---- edits ---------------------------------------------------------------------------------
    def may_index(self, path: Path, uri: str | None, must_exist: bool = True) -> bool:
        """Whether a file belongs to a project we serve: inside a workspace folder or under a
        colosseum.toml, and open in the editor or on disk. Anything else (a stray file in /tmp)
        never makes the server index its whole folder."""
        if must_exist and not (uri and self.server.workspace.text_documents.get(uri) is not None) \
                and not path.is_file():
            return False
        if any(root == path or root in path.parents for root in self.workspace_roots):
            return True
        probe = path.parent
        while probe != probe.parent:
            if (probe / "colosseum.toml").is_file():
                return True
            probe = probe.parent
        return not self.workspace_roots  # a client that named no workspace: the file's own folder

    def schedule_update(self, path: Path, text: str | None, version: int | None = None) -> None:
        """An edit is indexed at once when the project is idle; the edits that arrive while it
        indexes are gathered and indexed together right after. None is dropped, and none waits
        on purpose: an edit costs milliseconds, so the author sees its findings as they type."""
        project = self.project_for(path)
        project.pending_texts[path] = text
        project.pending_versions[path] = version
        if project.pending is None or project.pending.done():
            project.pending = self.spawn(self._update_soon(project))

    async def _update_soon(self, project: Project) -> None:
        await asyncio.sleep(0)  # the rest of a burst already read from the wire joins this update
        while project.pending_texts:
            index = await self.ensure_index(project)
            if index is None:
                project.pending_texts.clear()
                return
            changes, project.pending_texts = project.pending_texts, {}
            versions, project.pending_versions = project.pending_versions, {}
            async with project.lock:
                await asyncio.to_thread(index.update_documents, changes)
            project.reindexes += 1
            edited = []
            for path, version in versions.items():  # what the published findings are about
                uri = path_to_uri(path)  # the client's spelling of it (a symlinked folder)
                project.indexed_versions[uri] = version
                edited.append(uri)
            self.after_index(project)
            if project.pending_texts and project.superseded < MAX_SUPERSEDED:
                # the author typed on meanwhile: these findings are already stale, and sending
                # them (and warming lookups for them) would only delay the fresh ones
                project.superseded += 1
                continue
            project.superseded = 0
            self.publish(project, first=edited)  # sends only what differs from what the editor has
            if project.pending_texts:
                continue
            # then the lookup tables requests will need, so that the first hover or definition
            # after an edit does not pay for them (the author sees the findings first)
            await asyncio.to_thread(self._warm, project, list(changes))

    @staticmethod
    def _warm(project: Project, paths: list) -> None:
        for path in paths:
            project.lookup(Path(path).resolve())

    def spawn(self, coro) -> asyncio.Task:
        """Start a task that the context owns (a strong reference until it finishes)."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    # ---- diagnostics ---------------------------------------------------------------------------
    def after_index(self, project: Project) -> None:
        """The features' steps after each (re)index, before its findings go out (e.g. Lean's
        findings placed again, formal claims from the cache); a failing one is logged, never fatal."""
        self.features.indexed(self, project)

    def publish(self, project: Project, first=()) -> None:
        try:
            publish_catalog_findings(self, project)
        except Exception:  # a broken catalog must never keep the paper's findings from the editor
            log.exception("catalog findings failed")
        publish_project(self, project, first)
        self.notify_status("ready")

    def document_version(self, uri: str) -> int | None:
        """The version of the editor's copy of a document; None when it is not open."""
        doc = self.server.workspace.text_documents.get(uri)
        return doc.version if doc is not None else None

    # ---- lookups -------------------------------------------------------------------------------
    def item_at(self, path: Path, pos: Position) -> tuple[Project, str, Label | Reference] | None:
        project = self.project_for(path)
        found = project.item_at(path, pos)
        return (project, *found) if found is not None else None

    def feature_context(self, project: Project, path: Path) -> FeatureContext:
        return FeatureContext(path, project, project.snapshot(), self.options, self.spawn, self.progress,
                              lambda: self.publish(project), self.feature_state, self.document_version)

    # ---- progress ------------------------------------------------------------------------------
    def progress(self, title: str, cancellable: bool = True):
        return work_done(self.server, title, cancellable, self.cancelled_progress)
