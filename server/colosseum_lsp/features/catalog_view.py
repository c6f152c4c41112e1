"""The knowledge catalog in the editor: the statement behind a \\cite, the entries and failed
routes of a claim, and the catalog's findings (suspect claims, malformed entries)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path

from colosseum.app.knowledge import CatalogRefused, add_entry, catalog_directory, retract
from colosseum.app.knowledge import record_failed_route as record_route
from colosseum.catalog.checks import catalog_diagnostics
from colosseum.catalog.store import load_catalog
from colosseum_lsp import convert
from colosseum_lsp.convert import path_to_uri, uri_to_path
from colosseum_lsp.features import registry
from colosseum_lsp.features.code_actions import claim_at
from colosseum_lsp.features.registry import CommandFailed

_CITE = re.compile(r"\\[A-Za-z]*cite[A-Za-z]*\*?(?:\[[^\]]*\])*\{([^}]*)\}")
SOURCE = "colosseum-catalog"


@dataclass
class _CatalogRead:
    """Per project: its catalog as last read, and the files' modification times it was read at."""

    stamp: tuple | None = None
    catalog: object = None


def project_catalog(project):
    """The project's catalog, read again only when one of its files changed."""
    directory = catalog_directory(project.root_dir)
    stamp = tuple(sorted((p.name, p.stat().st_mtime_ns) for p in directory.rglob("*.md"))) if directory.is_dir() else ()
    read = project.state(_CatalogRead)
    if read.catalog is None or read.stamp != stamp:
        read.stamp, read.catalog = stamp, load_catalog(directory)
    return read.catalog


def publish_catalog_findings(ctx, project) -> None:
    if project.index is None:
        return
    found = catalog_diagnostics(project_catalog(project), project.index)
    for key in [k for k in ctx.extra_diagnostics if k[0] == SOURCE]:
        del ctx.extra_diagnostics[key]
    by_uri: dict[str, list] = {}
    for diag in found:
        by_uri.setdefault(path_to_uri(diag.file), []).append(diag)
    for uri, diags in by_uri.items():
        ctx.extra_diagnostics[(SOURCE, uri)] = (diags, None)


def cite_key_at(line: str, character: int) -> str | None:
    """The \\cite key under ``character`` of ``line`` (the only key, when the cursor is on the command)."""
    for m in _CITE.finditer(line):
        if not (m.start() <= character <= m.end()):
            continue
        offset = m.start(1)
        for key in m.group(1).split(","):
            start = offset + (len(key) - len(key.lstrip()))
            end = offset + len(key.rstrip())
            offset += len(key) + 1
            if start <= character <= end or len(m.group(1).split(",")) == 1:
                return key.strip()
    return None


def literature_text(project, key: str) -> str | None:
    """The catalog's statements of the result cited as ``key``, hypotheses and source."""
    catalog = project_catalog(project)
    matches = [e for e in catalog.entries.values()
               if (e.data.get("source") or {}).get("key") == key or e.id == key]
    if not matches:
        return None
    parts = []
    for e in matches:
        data = e.data
        hyps = "\n".join(f"- {h}" for h in data.get("hypotheses") or [])
        source = data.get("source") or {}
        parts.append(f"**{e.title}** (`{e.id}`, {e.status})\n\n{str(data.get('statement', '')).strip()}\n\n"
                     + (f"Hypotheses:\n{hyps}\n\n" if hyps else "")
                     + f"Source: {source.get('reference', '')} {source.get('locator', '')}".strip())
    return "\n\n---\n\n".join(parts)


def claim_catalog_lines(project, label: str) -> str:
    catalog = project_catalog(project)
    lines = []
    for e in sorted(catalog.entries.values(), key=lambda e: (e.kind != "failed-route", e.id)):
        target = (e.data.get("target") or {}).get("label")
        if label in (e.links.get("labels") or []) or target == label:
            flag = "" if e.status == "active" else f" ({e.status})"
            where = f" — broke at: {str(e.data.get('failure_point', '')).strip()[:120]}" if e.kind == "failed-route" else ""
            lines.append(f"- {e.kind} `{e.id}`{flag}: {e.title}{where}")
    return ("\n\n**Catalog**\n" + "\n".join(lines)) if lines else ""


def claim_evidence_text(project, label: str) -> str:
    """The catalog's evidence for the claim, one section per kind (computation, model review,
    Lean) as the engine words it (colosseum.catalog.evidence): computation is never a proof."""
    from colosseum.catalog.evidence import claim_evidence, evidence_sections

    lines = evidence_sections(claim_evidence(project_catalog(project), label))
    return ("\n\n---\n\n" + "\n".join(lines)) if lines else ""


def entry_path(project, entry_id: str) -> Path | None:
    entry = project_catalog(project).entries.get(entry_id)
    return entry.file if entry else None


class CatalogCommandError(CommandFailed):
    pass


async def add_to_catalog(ctx, args) -> dict:
    if len(args) < 2:
        raise CatalogCommandError("usage: colosseum.addToCatalog [document uri, claim label]")
    path = uri_to_path(args[0])
    project = ctx.project_for(path) if path else None
    if project is not None:
        await ctx.ensure_index(project)
    snap = project.snapshot() if project else None
    claim = snap.claims.get(args[1]) if snap else None
    if claim is None:
        raise CatalogCommandError(f"no claim `{args[1]}` in the project")
    written, _problems = await asyncio.to_thread(add_entry, project.root_dir, claim)
    await _show(ctx, written)
    ctx.publish(project)
    return {"path": str(written)}


async def record_failed_route(ctx, args) -> dict:
    if len(args) < 3:
        raise CatalogCommandError("usage: colosseum.recordFailedRoute [document uri, claim label, critique]")
    path = uri_to_path(args[0])
    project = ctx.project_for(path) if path else None
    if project is None or await ctx.ensure_index(project) is None:
        raise CatalogCommandError("no project for this document")
    critique = str(args[2])
    written = await asyncio.to_thread(record_route, project.root_dir, args[1], critique)
    await _show(ctx, written)
    ctx.publish(project)
    return {"path": str(written)}


async def _show(ctx, path: Path) -> None:
    try:
        await ctx.server.window_show_document_async(convert.show_document(path.as_uri()))
    except Exception:  # a client that cannot show documents still has the file
        pass


def _linked_project_entries(project, label: str) -> list:
    catalog = project_catalog(project)
    return sorted((e for e in catalog.entries.values()
                   if e.layer == "project" and e.status == "active"
                   and (label in (e.links.get("labels") or []) or (e.data.get("target") or {}).get("label") == label)),
                  key=lambda e: e.id)


@registry.code_action_provider
def retract_actions(ctx, path: Path, uri: str, params, snap, version) -> list:
    """"Retract" on a claim, one per active catalog entry that names it. The reason is asked by the
    client (LSP has no text prompt): our VS Code and Neovim clients prompt, then call the command
    again with the reason as third argument."""
    claim = claim_at(snap, path, convert.engine_position(params.range.start))
    if claim is None:
        return []
    project = ctx.project_for(path)
    return [convert.code_action(f"Retract catalog entry `{e.id}` ({e.kind})…", "empty",
                                command=convert.command_call(f"Retract `{e.id}`", "colosseum.retractEntry",
                                                             [uri, e.id]))
            for e in _linked_project_entries(project, claim.id)]


@registry.command("colosseum.retractEntry")
async def retract_entry(ctx, args) -> dict:
    """[document uri, entry id, reason]: retract a project entry; what depends on it turns suspect."""
    if len(args) < 2 or not all(isinstance(a, str) for a in args[:2]):
        raise CatalogCommandError("usage: colosseum.retractEntry [document uri, entry id, reason]")
    reason = str(args[2]).strip() if len(args) > 2 and args[2] is not None else ""
    if not reason:
        raise CatalogCommandError(f"retracting `{args[1]}` needs a reason; from a terminal: "
                                  f"colosseum knowledge retract PATH {args[1]} --reason '...'")
    path = uri_to_path(args[0])
    project = ctx.project_for(path) if path else None
    if project is None or await ctx.ensure_index(project) is None:
        raise CatalogCommandError("no project for this document")
    try:
        retraction = await asyncio.to_thread(retract, project.root_dir, args[1], reason)
    except CatalogRefused as exc:
        raise CatalogCommandError(str(exc)) from exc
    problems, suspect = retraction.problems, retraction.suspect
    project.state(_CatalogRead).catalog = None  # read again: the entry and what it makes suspect changed
    ctx.publish(project)
    return {"retracted": args[1], "suspect": suspect, "problems": [p.message for p in problems],
            "message": f"retracted `{args[1]}`; now suspect: {', '.join(suspect) or 'nothing else'}"}
