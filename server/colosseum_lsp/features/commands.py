"""workspace/executeCommand: re-index and the dependency graph page (the model-backed commands
live in their own feature modules)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from colosseum.graph_html import dag_html
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


async def reindex(ctx, args) -> dict:
    project = command_project(ctx, args)
    index = await ctx.ensure_index(project)
    if index is None:
        raise CommandError(project.error or "the project cannot be indexed")
    async with project.lock:
        async with ctx.progress(f"Re-indexing {project.root_dir.name}") as report:
            report("reading every file again")
            await asyncio.to_thread(index.reload, ctx.project_config(project.root_dir))
    ctx.publish(project)
    snap = project.snapshot()
    return {"claims": len(snap.claims), "sections": len(snap.sections), "files": len(snap.file_roots)}


async def show_dependency_graph(ctx, args) -> dict:
    project = command_project(ctx, args)
    index = await ctx.ensure_index(project)
    if index is None:
        raise CommandError(project.error or "the project cannot be indexed")
    out_dir = project.root_dir / ".colosseum"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "dependency-graph.html"
    page = dag_html(index, f"{project.root_dir.name}: dependency graph")
    tmp = path.with_suffix(".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(path)
    return {"path": str(path)}



def project_path(args) -> Path | None:
    return uri_to_path(args[0]) if args and isinstance(args[0], str) else None
