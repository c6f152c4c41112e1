"""workspace/executeCommand: re-index and the dependency graph page (the model-backed commands
live in their own feature modules), and the project a command is about, which every command finds
the same way."""

from __future__ import annotations

import asyncio

from colosseum.core.paths import dependency_graph_page, prepare_write
from colosseum.graph.html import dag_html
from colosseum_lsp.convert import uri_to_path
from colosseum_lsp.features.registry import CommandFailed


class CommandError(CommandFailed):
    pass


def command_project(ctx, args):
    """The project a command is about: its document's (first argument), else the one open, else
    the workspace's."""
    path = uri_to_path(args[0]) if args and isinstance(args[0], str) else None
    if path is not None:
        return ctx.project_for(path)
    if ctx.projects:
        return next(iter(ctx.projects.values()))
    if ctx.workspace_roots:
        return ctx.project_for(ctx.workspace_roots[0] / "main.tex")
    raise CommandError("no project: open a .tex file first")


async def indexed(ctx, project):
    """The project's index, built when it is not yet; a project that cannot be indexed is an error
    for the author."""
    index = await ctx.ensure_index(project)
    if index is None:
        raise CommandError(project.error or "the project cannot be indexed")
    return index


async def caught_up(project) -> None:
    """Wait for the edits being indexed, so that what follows reads what the author last typed."""
    if project.pending is not None and not project.pending.done():
        await asyncio.shield(project.pending)


async def document_project(ctx, uri):
    """The project of a command's document (its uri, required) and the project's index, caught up
    with the author's last edits."""
    path = uri_to_path(uri) if isinstance(uri, str) else None
    if path is None:
        raise CommandError(f"not a file: {uri}")
    project = ctx.project_for(path)
    index = await indexed(ctx, project)
    await caught_up(project)
    return project, index


async def reindex(ctx, args) -> dict:
    project = command_project(ctx, args)
    index = await indexed(ctx, project)
    async with project.lock:
        # one reload in a thread cannot be stopped halfway: offer no Cancel that would do nothing
        async with ctx.progress(f"Re-indexing {project.root_dir.name}", cancellable=False) as report:
            report("reading every file again")
            await asyncio.to_thread(index.reload, ctx.project_config(project.root_dir))
    ctx.publish(project)
    snap = project.snapshot()
    return {"claims": len(snap.claims), "sections": len(snap.sections), "files": len(snap.file_roots)}


async def show_dependency_graph(ctx, args) -> dict:
    project = command_project(ctx, args)
    index = await indexed(ctx, project)
    path = dependency_graph_page(project.root_dir)
    prepare_write(path)  # the state folder and its .gitignore, when this is its first file
    path.parent.mkdir(parents=True, exist_ok=True)
    page = dag_html(_with_evidence(project, index), f"{project.root_dir.name}: dependency graph")
    tmp = path.with_suffix(".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(path)
    return {"path": str(path)}



def _with_evidence(project, index):
    """The index as the page draws it: each claim's catalog evidence by kind, so that a claim a probe
    checked on small cases has its mark (never the proved colour)."""
    from colosseum.catalog.evidence import evidence_by_claim
    from colosseum.graph.export import WithEvidence
    from colosseum_lsp.features.catalog_view import project_catalog

    from colosseum.app.knowledge import CatalogOutsideProject

    try:
        catalog = project_catalog(project)
    except CatalogOutsideProject:  # no catalog to read: the page without the marks
        return index
    found = evidence_by_claim(catalog, index.claims)
    return WithEvidence(index, {label: evidence.as_json() for label, evidence in found.items()})
