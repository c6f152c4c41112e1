"""Builds the pygls server: registers each LSP method once, in ``Handlers.METHODS``, and hands it
to the features that implement it.

Every request handler has the same short shape (resolve the document, ask the feature, return),
and a failing feature answers with an error or nothing: it never takes the server down. The
notifications that several features care about (a save, an index) fan out to each of them in
turn, each isolated from the others (``features.registry.Features``)."""

from __future__ import annotations

import asyncio
import functools
import logging
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from colosseum import __version__
from colosseum_lsp.context import FeatureContext, ServerContext
from colosseum_lsp.convert import CompletionClient, engine_position, path_to_uri, uri_to_path, utf16_to_index
from colosseum_lsp.features import (
    catalog_view,
    code_actions,
    commands,
    completion,
    document_links,
    folding,
    latex_completion,
    navigation,
    registry,
    rename,
    solve,
    symbols,
    workspace_symbols,
)
from colosseum_lsp.options import settings_object
from colosseum_lsp.protocol import ColosseumProtocol, ColosseumServer
from colosseum_lsp.watcher import start_watching

log = logging.getLogger(__name__)

TEX_SUFFIXES = (".tex", ".sty", ".cls", ".ltx")
# what the client watches for us: a project's sources, its own packages and classes (their
# definitions count), its settings and its catalog
WATCHED_GLOBS = ("**/*.tex", "**/*.sty", "**/*.cls", "**/*.bib", "**/colosseum.toml", "**/knowledge/**/*.md")
BIB_SUFFIX = ".bib"  # not a document the server holds: the disk's copy is what citations are judged against
# the commands whose modules the server names itself (the others register with @registry.command)
CORE_COMMANDS = {
    "colosseum.reindex": commands.reindex,
    "colosseum.showDependencyGraph": commands.show_dependency_graph,
    "colosseum.solveObligation": solve.solve_obligation,
    "colosseum.openReport": solve.open_report,
    "colosseum.addToCatalog": catalog_view.add_to_catalog,
    "colosseum.recordFailedRoute": catalog_view.record_failed_route,
}


class RequestFailed(JsonRpcException):
    CODE = -32803  # RequestFailed (LSP 3.17)


def guarded(default=None):
    """Isolate a feature: log and answer ``default`` instead of failing the whole server."""

    def wrap(fn):
        @functools.wraps(fn)
        async def run(*args, **kwargs):
            try:
                return await fn(*args, **kwargs)
            except (JsonRpcException, registry.CommandFailed):
                raise
            except rename.RenameError as exc:  # a rename refused: the author reads why
                raise RequestFailed(str(exc)) from exc
            except Exception:
                log.exception("%s failed", getattr(fn, "__name__", fn))
                return default
        return run
    return wrap


def _plain(method):
    """A bound method as the plain function pygls registers (it marks what it registers)."""
    if asyncio.iscoroutinefunction(method):
        async def handler(params):
            return await method(params)
    else:
        def handler(params):
            return method(params)
    handler.__name__ = handler.__qualname__ = method.__name__
    return handler


class Handlers:
    """One handler per LSP method, each a few lines: find the document, call the feature."""

    # (method, handler, registration options); requests are guarded by ``guarded(default)``
    METHODS = (
        (types.INITIALIZE, "initialize", None),
        (types.INITIALIZED, "initialized", None),
        (types.WORKSPACE_DID_CHANGE_CONFIGURATION, "did_change_configuration", None),
        (types.TEXT_DOCUMENT_DID_OPEN, "did_open", None),
        (types.TEXT_DOCUMENT_DID_CHANGE, "did_change", None),
        (types.TEXT_DOCUMENT_DID_SAVE, "did_save", None),
        (types.TEXT_DOCUMENT_DID_CLOSE, "did_close", None),
        (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, "did_change_watched_files", None),
        (types.WINDOW_WORK_DONE_PROGRESS_CANCEL, "cancel_progress", None),
    )
    REQUESTS = (
        (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, "document_symbol", None, []),
        (types.TEXT_DOCUMENT_DEFINITION, "definition", None, None),
        (types.TEXT_DOCUMENT_HOVER, "hover", None, None),
        (types.TEXT_DOCUMENT_PREPARE_RENAME, "prepare_rename", None, None),
        (types.TEXT_DOCUMENT_REFERENCES, "references", None, None),
        (types.TEXT_DOCUMENT_COMPLETION, "completion", types.CompletionOptions(trigger_characters=["{", ",", "/"]), None),
        (types.TEXT_DOCUMENT_RENAME, "rename", None, None),
        (types.TEXT_DOCUMENT_CODE_LENS, "code_lens", None, []),
        (types.TEXT_DOCUMENT_CODE_ACTION, "code_action", None, []),
        (types.TEXT_DOCUMENT_FOLDING_RANGE, "folding_range", None, []),
        (types.WORKSPACE_SYMBOL, "workspace_symbol", None, []),
        (types.TEXT_DOCUMENT_DOCUMENT_LINK, "document_link", None, []),
    )

    def __init__(self, server: LanguageServer, ctx: ServerContext):
        self.server, self.ctx = server, ctx

    def register(self) -> None:
        for method, name, options in self.METHODS:
            self.server.feature(method, options)(_plain(getattr(self, name)))
        for method, name, options, default in self.REQUESTS:
            self.server.feature(method, options)(guarded(default)(getattr(self, name)))
        for name, handler in self.ctx.features.commands.items():
            self.server.command(name)(self._command(handler))

    def _command(self, handler):
        async def run(*args):
            arguments = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
            try:
                return await handler(self.ctx, arguments)
            except registry.CommandFailed as exc:
                raise RequestFailed(str(exc)) from exc
        return run

    # ---- which documents are ours --------------------------------------------------------------
    def served_path(self, uri: str, in_editor: bool = True) -> Path | None:
        """The path of a TeX document of a project the server serves, else None (not ours: outside
        the workspace, or a file that exists nowhere). A closed document (``in_editor=False``)
        counts only when it is on disk."""
        path = uri_to_path(uri)
        if path is None or path.suffix not in TEX_SUFFIXES:
            return None
        return path if self.ctx.may_index(path, uri if in_editor else None) else None

    async def ready(self, uri: str) -> FeatureContext | None:
        """What a feature needs to answer about the document, once its project is indexed; None
        when the document is not ours or its project cannot be indexed."""
        path = self.served_path(uri)
        if path is None:
            return None
        project = self.ctx.project_for(path)
        if await self.ctx.ensure_index(project) is None:
            return None
        return self.ctx.feature_context(project, path)

    async def ready_path(self, uri: str) -> Path | None:
        fc = await self.ready(uri)
        return fc.path if fc is not None else None

    # ---- lifecycle and settings ----------------------------------------------------------------
    def initialize(self, params: types.InitializeParams) -> None:
        folders = params.workspace_folders or []
        roots = [uri_to_path(f.uri) for f in folders]
        if not roots and params.root_uri:
            roots = [uri_to_path(params.root_uri)]
        if not self.ctx.set_workspace([r for r in roots if r is not None]):
            log.warning("a second initialize request was ignored: the workspace stays %s", self.ctx.workspace_roots)
            return
        self.ctx.settings_received(params.initialization_options, replace=True)

    async def initialized(self, params: types.InitializedParams) -> None:
        self.ctx.report_option_problems()
        self._report_user_config_problems()
        caps = self.server.client_capabilities
        ws = caps.workspace if caps else None
        self.ctx.watched_files_supported = bool(ws and ws.did_change_watched_files
                                                and ws.did_change_watched_files.dynamic_registration)
        if self.ctx.watched_files_supported:
            try:
                await self.server.client_register_capability_async(types.RegistrationParams(registrations=[
                    types.Registration(id="colosseum-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                       register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                           watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCHED_GLOBS]))]))
            except Exception as exc:  # a client that advertises but refuses: watch the disk ourselves
                log.info("file watching not registered (%s); using watchdog", exc)
                self.ctx.watched_files_supported = False
        if not self.ctx.watched_files_supported:
            start_watching(self.ctx)

    def _report_user_config_problems(self) -> None:
        """The user's own config lies outside the workspace, where the editor shows no diagnostics:
        its problems go in one warning per server start, naming the file and each line."""
        from colosseum.settings.user import load_user_config

        config = load_user_config()
        if config.problems:
            said = "; ".join(f"{config.path}:{p.line + 1}: {p.message}" for p in config.problems)
            self.server.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"Colosseum: your config has problems: {said}"))

    async def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        settings = settings_object(params.settings)
        if settings is None:
            return
        before = self.ctx.options
        self.ctx.settings_received(settings)
        self.ctx.report_option_problems()
        after = self.ctx.options
        if before.ignored_diagnostics != after.ignored_diagnostics:
            for project in list(self.ctx.projects.values()):
                if project.index is not None:  # what the editor is sent changed: send it again
                    self.ctx.publish(project)
        if (before.label_definition_commands, before.label_reference_commands) != (
                after.label_definition_commands, after.label_reference_commands):
            for project in self.ctx.projects.values():
                if project.index is not None:  # what counts as a label changed: read them again
                    self.ctx.spawn(commands.reindex(self.ctx, [path_to_uri(project.root_dir / "colosseum.toml")]))

    def cancel_progress(self, params: types.WorkDoneProgressCancelParams) -> None:
        self.ctx.cancelled_progress.add(str(params.token))

    # ---- documents -----------------------------------------------------------------------------
    async def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = await self.ready_path(uri)
        if path is not None:
            # the editor's copy now, not the one opened: an edit may have come in meanwhile
            doc = self.server.workspace.get_text_document(uri)
            self.ctx.schedule_update(path, doc.source, doc.version)

    async def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        path = self.served_path(params.text_document.uri)
        if path is not None:
            doc = self.server.workspace.get_text_document(params.text_document.uri)
            self.ctx.schedule_update(path, doc.source, doc.version)

    async def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        bib = uri_to_path(params.text_document.uri)
        if bib is not None and bib.suffix == BIB_SUFFIX and self.ctx.may_index(bib, None):
            self.ctx.schedule_update(bib, None)  # citations are judged again against what was saved
            return
        path = self.served_path(params.text_document.uri)
        if path is not None:
            self.ctx.features.saved(self.ctx, path, params.text_document.uri)

    async def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        path = self.served_path(params.text_document.uri, in_editor=False)
        if path is not None:
            self.ctx.schedule_update(path, None)

    async def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            path = uri_to_path(change.uri)
            if path is None or (path.suffix != BIB_SUFFIX
                                and self.server.workspace.text_documents.get(change.uri) is not None):
                continue  # the editor's copy wins over the disk (a .bib's is not ours)
            if self.ctx.may_index(path, None, must_exist=False):
                self.ctx.schedule_update(path, None)

    # ---- requests ------------------------------------------------------------------------------
    async def document_symbol(self, params: types.DocumentSymbolParams):
        fc = await self.ready(params.text_document.uri)
        return symbols.document_symbols(fc) if fc else []

    async def definition(self, params: types.DefinitionParams):
        fc = await self.ready(params.text_document.uri)
        return navigation.definition(fc, engine_position(params.position)) if fc else None

    async def hover(self, params: types.HoverParams):
        fc = await self.ready(params.text_document.uri)
        return navigation.hover(fc, engine_position(params.position)) if fc else None

    async def prepare_rename(self, params: types.PrepareRenameParams):
        fc = await self.ready(params.text_document.uri)
        return rename.prepare_rename(fc, engine_position(params.position)) if fc else None

    async def references(self, params: types.ReferenceParams):
        fc = await self.ready(params.text_document.uri)
        if fc is None:
            return None
        return navigation.references(fc, engine_position(params.position), params.context.include_declaration)

    async def completion(self, params: types.CompletionParams):
        fc = await self.ready(params.text_document.uri)
        if fc is None:
            return None
        doc = self.server.workspace.get_text_document(params.text_document.uri)
        lines, at = doc.lines, params.position.line
        character = utf16_to_index(lines[at], params.position.character) if at < len(lines) else 0
        request = completion.CompletionRequest(
            text_before=completion.text_before_cursor(lines, at, character),
            line_after=lines[at][character:] if at < len(lines) else "",
            position=(at, params.position.character),
            offset=sum(map(len, lines[:at])) + character,  # where in the text, for the ranking
            client=CompletionClient.of(self.server.client_capabilities))
        # each completion feature answers only inside its own kind of argument
        for feature in (latex_completion.completions, completion.completions):
            answer = feature(fc, request)
            if answer is not None:
                return answer
        return None

    async def rename(self, params: types.RenameParams):
        fc = await self.ready(params.text_document.uri)
        return rename.rename(fc, engine_position(params.position), params.new_name) if fc else None

    async def code_lens(self, params: types.CodeLensParams):
        fc = await self.ready(params.text_document.uri)
        return symbols.code_lenses(fc, params.text_document.uri) if fc else []

    async def code_action(self, params: types.CodeActionParams):
        path = await self.ready_path(params.text_document.uri)
        return code_actions.code_actions(self.ctx, path, params.text_document.uri, params) if path else []

    async def folding_range(self, params: types.FoldingRangeParams):
        fc = await self.ready(params.text_document.uri)
        return folding.folding_ranges(fc) if fc else []

    async def workspace_symbol(self, params: types.WorkspaceSymbolParams):
        indexed = [(p, p.snapshot()) for p in list(self.ctx.projects.values()) if p.index is not None]
        return workspace_symbols.workspace_symbols([(p, snap) for p, snap in indexed if snap is not None], params.query)

    async def document_link(self, params: types.DocumentLinkParams):
        fc = await self.ready(params.text_document.uri)
        return document_links.document_links(fc) if fc else []


def build_server() -> LanguageServer:
    server = ColosseumServer("colosseum", __version__, protocol_cls=ColosseumProtocol)
    ctx = ServerContext(server, registry.load_features(CORE_COMMANDS))
    server.colosseum = ctx  # for tests and debugging
    Handlers(server, ctx).register()
    return server
