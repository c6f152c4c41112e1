""""Solve obligation": the inner loop from the editor, with progress, cancellation, the proof
offered as an edit checked against the document version, and the surviving critiques as
diagnostics on the obligation."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types

from colosseum.core.exception_groups import first_leaf
from colosseum.models import ProviderError
from colosseum.core.structure import Diagnostic, RelatedInfo
from colosseum_lsp.convert import path_to_uri, range_
from colosseum_lsp.features.commands import caught_up, document_project
from colosseum_lsp.features.registry import CommandFailed
from colosseum_lsp.progress import ProgressCancelled

log = logging.getLogger(__name__)
SOURCE = "colosseum-solve"


class SolveError(CommandFailed):
    pass


def _provider(ctx, project):
    from colosseum.settings.project import valid_table
    from colosseum.models.configured import configured_provider

    try:
        return configured_provider(valid_table(project.index.config, "models"),
                                   project.root_dir / ".colosseum" / "cache", ctx.options.get("model"))
    except ProviderError as exc:
        raise SolveError(exc.message) from exc


def _config(ctx, project):
    from colosseum.cli.solve import inner_loop_config

    budget = ctx.options.get("budget")
    return inner_loop_config(project.index.config, budget.get("max_calls") if isinstance(budget, dict) else None)[0]


async def solve_obligation(ctx, args) -> dict:
    from colosseum.catalog.store import load_catalog
    from colosseum.loops.inner.context import obligation_context
    from colosseum.loops.inner.run_record import RunRecorder, run_directory
    from colosseum.models.errors import BudgetExceeded, BudgetReached
    from colosseum.loops.inner.solve import solve
    from colosseum.cli.knowledge import catalog_directory

    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise SolveError("usage: colosseum.solveObligation [document uri, claim label]")
    label = args[1]
    project, index = await document_project(ctx, args[0])
    snap = project.snapshot()
    claim = snap.claims.get(label)
    if claim is None:
        raise SolveError(f"no claim `{label}` in the project")
    doc = ctx.server.workspace.text_documents.get(path_to_uri(claim.file))
    version_at_start = doc.version if doc else None
    catalog = await asyncio.to_thread(load_catalog, catalog_directory(project.root_dir))
    context = await asyncio.to_thread(obligation_context, index, label, catalog)
    provider, model = _provider(ctx, project)
    config = _config(ctx, project)
    from colosseum.lean.evidence import cached_evidence_section

    formal = await asyncio.to_thread(cached_evidence_section, index, label)
    recorder = RunRecorder(run_directory(project.root_dir, label), label, config, model, None,
                           lambda: getattr(provider, "hits", 0), context, formal)
    async with ctx.progress(f"Solving {label}") as report:
        def progress(stage: str, done: int, total: int) -> None:
            report(f"{stage} {done}/{total}" if total else stage)
        try:
            result = await solve(context, provider, config, progress, recorder)
        except BudgetExceeded as exc:
            raise SolveError(str(exc)) from exc
        except ExceptionGroup as group:
            cancelled = group.subgroup(lambda e: isinstance(e, ProgressCancelled))
            if cancelled is not None:
                return {"status": "cancelled", "report": str(recorder.directory),
                        "message": f"solving {label} was cancelled; what was done is in {recorder.directory.name}"}
            if group.subgroup(lambda e: isinstance(e, BudgetReached)) is not None:
                raise SolveError(f"stopped at the budget; what was done is in {recorder.directory.name}") from None
            failure = first_leaf(group, ProviderError)
            if failure is None:
                raise
            raise SolveError(f"the model could not be reached: {failure}") from None
    directory = recorder.directory
    _critique_diagnostics(ctx, project, label, result, directory)
    curated = await _curate(project, label, context.statement, result, directory, model)
    applied = await _offer_proof(ctx, project, label, result.root.candidate.proof, version_at_start)
    if applied and not any(c.severity == "fatal" for c in result.surviving_critiques):
        curated += await _curate_result(project, label, context.statement, directory.name, model)
    return {"status": "done", "label": label, "calls": result.usage.calls,
            "critiques": len(result.surviving_critiques), "report": str(directory / "report.md"),
            "applied": applied, "catalog": curated,
            "message": f"{label}: proof offered; {len(result.surviving_critiques)} critique(s) survived; report in "
                       f"{directory.name}" + (f"; catalog: {', '.join(curated)}" if curated else "")}


async def _curate(project, label: str, statement: str, result, directory: Path, model: str) -> list[str]:
    """The run's lessons into the catalog; a catalog that cannot be written costs the lessons, not the run."""
    from colosseum.catalog.curator import record_run_outcome
    from colosseum.cli.knowledge import catalog_directory

    report = str((directory / "report.md").relative_to(project.root_dir))
    try:
        return await asyncio.to_thread(record_run_outcome, catalog_directory(project.root_dir), label, statement,
                                       result, directory.name, model, report)
    except (OSError, TimeoutError, ValueError) as exc:
        log.warning("the catalog was not updated after solving %s: %s", label, exc)
        return []


async def _curate_result(project, label: str, statement: str, run_id: str, model: str) -> list[str]:
    """The author applied the proof: the result now lives in the paper under its label."""
    from colosseum.catalog.curator import record_result
    from colosseum.cli.knowledge import catalog_directory

    try:
        return [await asyncio.to_thread(record_result, catalog_directory(project.root_dir), label, statement,
                                        run_id, model)]
    except (OSError, TimeoutError, ValueError) as exc:
        log.warning("the catalog was not updated with the result %s: %s", label, exc)
        return []


def _critique_diagnostics(ctx, project, label: str, result, directory: Path) -> None:
    snap = project.snapshot()
    claim = snap.claims.get(label)
    if claim is None:
        return
    severity = {"fatal": "error", "major": "warning", "minor": "information"}
    ft = project.index.text_of(claim.file)
    found = []
    for c in result.surviving_critiques:
        related = (RelatedInfo(claim.location, f"full refutation: {directory / 'report.md'}"),)
        where = _quoted_range(ft, c.quote) or claim.location.range  # the span it quotes, where it is found
        found.append(Diagnostic(claim.file, where, severity.get(c.severity, "warning"),
                                f"colosseum/critique-{c.kind}",
                                f"{c.severity} {c.kind}: {c.explanation}" + ("" if c.anchored else " (unanchored)"),
                                related, SOURCE))
    ctx.extra_diagnostics[(SOURCE, path_to_uri(claim.file))] = (found, str(directory / "report.md"))
    ctx.publish(project)


def _quoted_range(ft, quote: str):
    """The document range of a quoted span (whitespace-insensitive), or None when it is not there
    (a critique of a candidate proof usually quotes the candidate, not the paper)."""
    import re

    words = quote.split()
    if ft is None or len(words) < 2:
        return None
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
    m = pattern.search(ft.text)
    return ft.lines.range(m.start(), m.end()) if m else None


async def _offer_proof(ctx, project, label: str, proof: str, version_at_start) -> bool:
    """Insert the proof after the claim (or replace its empty proof), only at the version the
    solve started from; after other edits the claim is found again by its label."""
    await caught_up(project)
    snap = project.snapshot()
    claim = snap.claims.get(label)
    if claim is None:
        raise SolveError(f"`{label}` is no longer in the document: the proof was not inserted")
    uri = path_to_uri(claim.file)
    doc = ctx.server.workspace.text_documents.get(uri)
    if doc is not None and version_at_start is not None and doc.version != version_at_start:
        log.info("%s changed while solving: re-anchored by its label", label)
    # the positions come from the text the index read: the edit names that version, so an editor
    # whose document moved on since refuses it instead of inserting at the wrong place
    version = project.indexed_versions.get(uri, doc.version if doc else None) if doc is not None else None
    text = f"\n\\begin{{proof}}\n{proof.strip()}\n\\end{{proof}}\n"
    if claim.proof is not None and not claim.proof.has_content:  # replace the empty proof
        edit = types.TextEdit(range=types.Range(start=range_(claim.proof.location.range).start,
                                                end=range_(claim.proof.end.range).end), new_text=text.strip("\n"))
    else:
        after = range_(claim.end.range).end
        edit = types.TextEdit(range=types.Range(start=after, end=after), new_text=text)
    change = types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=[edit])
    try:
        response = await ctx.server.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
            edit=types.WorkspaceEdit(document_changes=[change]), label=f"Proof of {label}"))
    except Exception as exc:  # a client without applyEdit still gets the report and the critiques
        log.info("applyEdit failed: %s", exc)
        return False
    return bool(getattr(response, "applied", False))


async def open_report(ctx, args) -> dict:
    if not args or not isinstance(args[0], str):
        raise SolveError("usage: colosseum.openReport [path]")
    target = Path(args[0])
    if not target.is_file():
        raise SolveError(f"no report at {target}")
    try:
        await ctx.server.window_show_document_async(types.ShowDocumentParams(uri=target.as_uri(), take_focus=True))
    except Exception as exc:
        log.info("showDocument failed: %s", exc)
    return {"path": str(target)}
