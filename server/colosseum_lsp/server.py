"""Builds the pygls server: registers each LSP method once and hands it to its feature module.

Every handler has the same short shape (resolve the document, ask the feature, return), and a
failing feature answers with an error or nothing: it never takes the server down."""

from __future__ import annotations

import functools
import logging
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from colosseum import __version__
from colosseum_lsp import progress
from colosseum_lsp.context import ServerContext
from colosseum_lsp.protocol import ColosseumProtocol
from colosseum_lsp.convert import engine_position, path_to_uri, uri_to_path, utf16_to_index
from colosseum_lsp.features import (
    catalog_view,
    code_actions,
    commands,
    completion,
    navigation,
    registry,
    rename,
    solve,
    symbols,
)

log = logging.getLogger(__name__)


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
                log.exception("%s failed", fn.__name__)
                return default
        return run
    return wrap


def build_server() -> LanguageServer:
    server = LanguageServer("colosseum", __version__, protocol_cls=ColosseumProtocol)
    ctx = ServerContext(server)
    server.colosseum = ctx  # for tests and debugging

    def served_path(uri: str, in_editor: bool = True) -> Path | None:
        """The path of a TeX document of a project the server serves, else None (not ours: outside
        the workspace, or a file that exists nowhere). A closed document (``in_editor=False``)
        counts only when it is on disk."""
        path = uri_to_path(uri)
        if path is None or path.suffix not in (".tex", ".sty", ".cls", ".ltx"):
            return None
        return path if ctx.may_index(path, uri if in_editor else None) else None

    async def ready(uri: str):
        path = served_path(uri)
        if path is None:
            return None
        project = ctx.project_for(path)
        if await ctx.ensure_index(project) is None:
            return None
        return path

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        caps = server.client_capabilities
        ws = caps.workspace if caps else None
        ctx.watched_files_supported = bool(ws and ws.did_change_watched_files
                                           and ws.did_change_watched_files.dynamic_registration)
        if ctx.watched_files_supported:
            try:
                await server.client_register_capability_async(types.RegistrationParams(registrations=[
                    types.Registration(id="colosseum-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                       register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[
                                           types.FileSystemWatcher(glob_pattern="**/*.tex"),
                                           # a project's own packages and classes: their definitions count
                                           types.FileSystemWatcher(glob_pattern="**/*.sty"),
                                           types.FileSystemWatcher(glob_pattern="**/*.cls"),
                                           types.FileSystemWatcher(glob_pattern="**/colosseum.toml"),
                                           types.FileSystemWatcher(glob_pattern="**/knowledge/**/*.md")]))]))
            except Exception as exc:  # a client that advertises but refuses: watch the disk ourselves
                log.info("file watching not registered (%s); using watchdog", exc)
                ctx.watched_files_supported = False
        if not ctx.watched_files_supported:
            from colosseum_lsp.watcher import start_watching

            start_watching(ctx)

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        folders = params.workspace_folders or []
        roots = [uri_to_path(f.uri) for f in folders]
        if not roots and params.root_uri:
            roots = [uri_to_path(params.root_uri)]
        ctx.workspace_roots = [r for r in roots if r is not None]
        ctx.options = params.initialization_options if isinstance(params.initialization_options, dict) else {}

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings if isinstance(params.settings, dict) else {}
        options = settings.get("colosseum", settings)
        if not isinstance(options, dict):
            return
        changed_commands = any(options.get(k) != ctx.options.get(k)
                               for k in ("labelDefinitionCommands", "labelReferenceCommands"))
        ctx.options.update(options)
        if changed_commands:
            for project in ctx.projects.values():
                if project.index is not None:
                    ctx.spawn(commands.reindex(ctx, [path_to_uri(project.root_dir / "colosseum.toml")]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = await ready(uri)
        if path is not None:
            # the editor's copy now, not the one opened: an edit may have come in meanwhile
            doc = server.workspace.get_text_document(uri)
            ctx.schedule_update(path, doc.source, doc.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(params: types.DidChangeTextDocumentParams) -> None:
        path = served_path(params.text_document.uri)
        if path is None:
            return
        doc = server.workspace.get_text_document(params.text_document.uri)
        ctx.schedule_update(path, doc.source, doc.version)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(params: types.DidSaveTextDocumentParams) -> None:
        path = served_path(params.text_document.uri)
        if path is None:
            return
        for hook in registry.SAVE_HOOKS:
            try:
                hook(ctx, path, params.text_document.uri)
            except Exception:
                log.exception("save hook %s failed", getattr(hook, "__name__", hook))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(params: types.DidCloseTextDocumentParams) -> None:
        path = served_path(params.text_document.uri, in_editor=False)
        if path is not None:
            ctx.schedule_update(path, None)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched(params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            path = uri_to_path(change.uri)
            if path is None or server.workspace.text_documents.get(change.uri) is not None:
                continue  # the editor's copy wins over the disk
            if not ctx.may_index(path, None, must_exist=False):
                continue
            ctx.schedule_update(path, None)

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def cancel_progress(params: types.WorkDoneProgressCancelParams) -> None:
        progress.CANCELLED.add(str(params.token))

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded([])
    async def document_symbol(params: types.DocumentSymbolParams):
        path = await ready(params.text_document.uri)
        return symbols.document_symbols(ctx, path) if path else []

    def at_position(method: str, feature, default=None) -> None:
        """A request about one position of one document, answered by ``feature(ctx, path, pos)``."""

        @server.feature(method)
        @guarded(default)
        async def handler(params):
            path = await ready(params.text_document.uri)
            return feature(ctx, path, engine_position(params.position)) if path else default

    at_position(types.TEXT_DOCUMENT_DEFINITION, navigation.definition)
    at_position(types.TEXT_DOCUMENT_HOVER, navigation.hover)
    at_position(types.TEXT_DOCUMENT_PREPARE_RENAME, rename.prepare_rename)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @guarded()
    async def references(params: types.ReferenceParams):
        path = await ready(params.text_document.uri)
        if path is None:
            return None
        return navigation.references(ctx, path, engine_position(params.position), params.context.include_declaration)

    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=["{", ","]))
    @guarded()
    async def complete(params: types.CompletionParams):
        path = await ready(params.text_document.uri)
        if path is None:
            return None
        doc = server.workspace.get_text_document(params.text_document.uri)
        lines, at = doc.lines, params.position.line
        character = utf16_to_index(lines[at], params.position.character) if at < len(lines) else 0
        line_after = lines[at][character:] if at < len(lines) else ""
        caps = server.client_capabilities.text_document if server.client_capabilities else None
        item_caps = caps.completion.completion_item if caps and caps.completion else None
        return completion.completions(ctx, path, completion.text_before_cursor(lines, at, character), line_after,
                                      params.position, bool(item_caps and item_caps.insert_replace_support))

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    @guarded()
    async def do_rename(params: types.RenameParams):
        path = await ready(params.text_document.uri)
        if path is None:
            return None
        return rename.rename(ctx, path, engine_position(params.position), params.new_name)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    @guarded([])
    async def code_lens(params: types.CodeLensParams):
        path = await ready(params.text_document.uri)
        return symbols.code_lenses(ctx, path, params.text_document.uri) if path else []

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
    @guarded([])
    async def code_action(params: types.CodeActionParams):
        path = await ready(params.text_document.uri)
        return code_actions.code_actions(ctx, path, params.text_document.uri, params) if path else []

    def command(name, handler):
        @server.command(name)
        async def run(*args):
            arguments = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
            try:
                return await handler(ctx, arguments)
            except registry.CommandFailed as exc:
                raise RequestFailed(str(exc)) from exc
        return run

    command("colosseum.reindex", commands.reindex)
    command("colosseum.showDependencyGraph", commands.show_dependency_graph)
    command("colosseum.solveObligation", solve.solve_obligation)
    command("colosseum.openReport", solve.open_report)
    command("colosseum.addToCatalog", catalog_view.add_to_catalog)
    command("colosseum.recordFailedRoute", catalog_view.record_failed_route)
    registry.load_feature_modules()
    for name, handler in registry.COMMANDS.items():
        command(name, handler)
    return server
