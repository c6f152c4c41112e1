"""Lean in the editor: the command ``colosseum.checkLean`` (also run in the background when a
``.tex`` file is saved), its findings published under their own source, and "Add \\leanok" where
Lean checked a claim that is not marked yet.

leanclient is synchronous: the check runs in a worker thread and the event loop only waits for it
(and passes on its progress). Cancelling the progress, or the request, kills ``lake serve`` at
once. One check per project at a time; a save during a check asks for one more run after it."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.app.lean import lean_setup, lean_trust, plan_lean_check, record_evidence, results_and_findings
from colosseum.core.structure import Range
from colosseum.lean import (
    SOURCE,
    CancelToken,
    apply_cached_results,
    claim_results,
    lean_diagnostics,
    lean_settings,
    leanok_insertions,
    run_plan,
)
from colosseum.lean.findings import CODE_CHECKED, checked_claim
from colosseum_lsp import convert
from colosseum_lsp.convert import path_to_uri
from colosseum_lsp.features import registry
from colosseum_lsp.features.code_actions import claim_at
from colosseum_lsp.features.commands import caught_up, command_project, indexed
from colosseum_lsp.progress import ProgressCancelled

log = logging.getLogger(__name__)
POLL_SECONDS = 1.0  # how often the wait passes progress on (and notices a cancelled progress)


@dataclass
class _LeanState:
    """Per project: the check running now, whether a save asked for another, the last report."""

    running: asyncio.Task | None = None
    rerun: bool = False
    report: object = None
    token: CancelToken | None = None
    published: set = field(default_factory=set)  # uris with Lean findings
    findings_for: object = None  # the index snapshot the published findings were placed on
    formal_task: asyncio.Task | None = None  # formal claims from the cache, after an index update
    told_untrusted: bool = False  # the author was told once that Lean waits for their trust


def _state(project) -> _LeanState:
    return project.state(_LeanState)


@dataclass
class _ProblemsTold:
    """Per server: the Lean problems already shown to the author."""

    problems: set = field(default_factory=set)


@registry.command("colosseum.checkLean")
async def check_lean_command(ctx, args) -> dict:
    """[document uri?] -> the check's summary. A check already running is waited for."""
    project = command_project(ctx, args)
    await indexed(ctx, project)
    state = _state(project)
    if state.running is None or state.running.done():
        state.running = ctx.spawn(_check(ctx, project))
    try:
        return await asyncio.shield(state.running)
    except asyncio.CancelledError:  # the editor cancelled the request: stop the check too
        if state.token is not None:
            state.token.cancel()
        raise


@registry.on_save
def check_on_save(ctx, path: Path, uri: str) -> None:
    project = ctx.project_for(path)
    if project.index is not None and not lean_settings(project.index.config).check_on_save:
        return
    state = _state(project)
    if state.running is not None and not state.running.done():
        state.rerun = True
        return
    state.running = ctx.spawn(_check(ctx, project, on_save=True))


async def _check(ctx, project, on_save: bool = False) -> dict:
    state = _state(project)
    while True:
        state.rerun = False
        summary = await _check_once(ctx, project, on_save)
        if not state.rerun or summary.get("status") == "cancelled":
            return summary


def _untrusted(ctx, project) -> dict | None:
    """None when the project may run its code; else the summary of a check that did not start
    (lake serve elaborates the project's lakefile.lean), told to the author once per project."""
    trust = lean_trust(project.root_dir, editor_trusted=ctx.options.trusted)
    if trust:
        return None
    state = _state(project)
    if not state.told_untrusted:
        state.told_untrusted = True
        try:
            ctx.server.window_show_message(convert.warning_message(f"Colosseum: Lean: {trust.reason}"))
        except Exception:
            log.info("Lean: %s", trust.reason)
    return {"status": "untrusted", "message": f"Lean: {trust.reason}"}


async def _check_once(ctx, project, on_save: bool) -> dict:
    refused = _untrusted(ctx, project)
    if refused is not None:
        return refused
    index = await ctx.ensure_index(project)
    await caught_up(project)  # check what the author has just written
    if index is None or (on_save and not lean_settings(index.config).check_on_save):
        return {"status": "done", "message": "nothing to check"}
    async with project.lock:
        plan = await asyncio.to_thread(plan_lean_check, index, lean_setup(index))
    if on_save and not plan.names and not plan.units:
        return {"status": "done", "message": "no Lean in this paper"}
    state = _state(project)
    token = state.token = CancelToken()
    latest: list = []
    async with ctx.progress(f"Checking Lean ({project.root_dir.name})") as report:
        work = asyncio.ensure_future(asyncio.to_thread(run_plan, plan, token=token, progress=latest.append))
        seconds = 0
        try:
            while not work.done():
                await asyncio.wait({work}, timeout=POLL_SECONDS)
                seconds += POLL_SECONDS
                event = latest[-1] if latest else None
                if event is None:
                    report(f"starting ({seconds:.0f} s)")
                else:
                    report(f"{event.name}: {event.status} ({event.done}/{event.total}, {seconds:.0f} s)",
                           int(100 * event.done / max(1, event.total)))
        except (ProgressCancelled, asyncio.CancelledError) as exc:
            token.cancel()  # kills lake serve: the worker thread returns at once
            await asyncio.wait({work}, timeout=30)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return {"status": "cancelled", "message": "Lean check cancelled; what was finished is cached"}
        lean_report = work.result()
    if lean_report.cancelled:
        return {"status": "cancelled", "message": "Lean check cancelled; what was finished is cached"}
    state.report = lean_report
    async with project.lock:
        results, diagnostics = await asyncio.to_thread(results_and_findings, index, lean_report)
    _publish(ctx, project, diagnostics)
    _say_once(ctx, lean_report.problem)
    recorded = await asyncio.to_thread(record_evidence, index, lean_setup(index), results, lean_report)
    if recorded:
        ctx.publish(project)  # the catalog changed: its findings are read again
    summary = {
        "status": "done", "formal": sum(r.status == "formal" for r in results),
        "failed": sum(r.status == "failed" for r in results),
        "statement": sum(r.status == "statement" for r in results),
        "unchecked": sum(r.status == "unchecked" for r in results),
        "files": {s: lean_report.count(s) for s in ("checked", "cached", "timed-out", "crashed", "unchecked")},
        "problem": lean_report.problem, "catalog": recorded, "toolchain": lean_report.toolchain,
    }
    summary["message"] = (f"Lean: {summary['formal']} formal, {summary['statement']} with the statement only, "
                          f"{summary['failed']} failed, {summary['unchecked']} "
                          f"unchecked ({summary['files']['checked']} file(s) checked, {summary['files']['cached']} "
                          "from the cache)")
    return summary


def refresh_findings(ctx, project) -> bool:
    """Place the last check's findings again on the index as it is now (after an edit, claims
    and lines move; a finding must never point at the old place). Cheap when the index did not
    change since they were placed. Runs in the event loop; skipped while an update holds the
    project (that update publishes, and calls this again, when it is done). Returns whether the
    findings were placed again (the caller publishes)."""
    state = _state(project)
    index = project.index
    if state.report is None or index is None or project.lock.locked():
        return False
    if state.findings_for is index.snapshot:
        return False
    diagnostics = lean_diagnostics(index, state.report)
    _store(ctx, project, diagnostics, index.snapshot)
    return True


@registry.on_index
def after_index(ctx, project) -> None:
    """What the server should call after each (re)index of a project, before it publishes: the
    last check's findings placed on the new text, and the claims the cache says are formal (in
    the background, under the project lock; cheap when nothing changed)."""
    refresh_findings(ctx, project)
    state = _state(project)
    if project.index is None or (state.running is not None and not state.running.done()):
        return  # a running check sets the formal claims itself
    if state.formal_task is None or state.formal_task.done():
        state.formal_task = ctx.spawn(_formal_from_cache(ctx, project))


async def _formal_from_cache(ctx, project) -> None:
    async with project.lock:
        index = project.index
        before = set(index.formal_labels) if index is not None else set()
        try:
            after = await asyncio.to_thread(apply_cached_results, index) if index is not None else set()
        except Exception:  # the cache is a shortcut: never a reason to fail the index update
            log.exception("Lean results from the cache could not be applied")
            return
    if after != before:
        ctx.publish(project)  # statuses changed: so may the index's findings


def _publish(ctx, project, diagnostics) -> None:
    _store(ctx, project, diagnostics, project.index.snapshot if project.index is not None else None)
    ctx.publish(project)


def _store(ctx, project, diagnostics, snapshot) -> None:
    state = _state(project)
    by_uri: dict[str, list] = {}
    for diag in diagnostics:
        by_uri.setdefault(path_to_uri(diag.file), []).append(diag)
    for uri in state.published - set(by_uri):
        ctx.extra_diagnostics.pop((SOURCE, uri), None)
    for uri, found in by_uri.items():
        ctx.extra_diagnostics[(SOURCE, uri)] = (found, None)
    state.published = set(by_uri)
    state.findings_for = snapshot


def _say_once(ctx, problem: str | None) -> None:
    """Lean missing, or a project that does not build: one message per session, not one per claim."""
    said = ctx.feature_state(_ProblemsTold).problems
    if not problem or problem in said:
        return
    said.add(problem)
    try:
        ctx.server.window_show_message(convert.warning_message(f"Colosseum: Lean: {problem}"))
    except Exception:
        log.info("Lean: %s", problem)


@registry.code_action_provider
def lean_code_actions(ctx, path: Path, uri: str, params, snap, version) -> list:
    project = ctx.project_for(path)
    if project.index is None:
        return []
    if refresh_findings(ctx, project):  # the editor shows findings placed before an edit: replace them
        ctx.publish(project)
    state = _state(project)
    actions = []
    for diag in params.context.diagnostics:
        if diag.source != SOURCE or diag.code != CODE_CHECKED:
            continue
        claim = _checked_claim_now(project, state, diag.message)
        if claim is None:
            continue  # no longer checked as it was (edited, renamed, another \lean): no edit offered
        edit = _leanok_edit(ctx, project, claim)
        if edit is not None:
            actions.append(convert.code_action(f"Add \\leanok to `{claim.id}` (checked by Lean)", "quickfix",
                                               diagnostic=diag, preferred=True, edit=edit))
    claim = claim_at(snap, path, convert.engine_position(params.range.start))
    if claim is not None and claim.lean_decls:
        actions.append(convert.code_action(
            "Check the Lean declarations", "empty",
            command=convert.command_call("Check the Lean declarations", "colosseum.checkLean", [uri])))
    return actions


def _checked_claim_now(project, state, message: str):
    """The claim a "checked by Lean" finding was made for, read from the finding (never from its
    position, which may be older than the text), if the last check still makes it formal in the
    index as it is now, with the same \\lean names."""
    named = checked_claim(message)
    if named is None or state.report is None or project.lock.locked():
        return None
    claim_id, names = named
    claim = project.index.claims.get(claim_id)
    if claim is None or [n.strip() for n in claim.lean_decls if n.strip()] != names:
        return None
    result = next((r for r in claim_results(project.index, state.report) if r.id == claim_id), None)
    return claim if result is not None and result.status == "formal" and not result.fully_marked else None


def _leanok_edit(ctx, project, claim):
    """``\\leanok`` after ``\\lean{...}`` (and in the proof), as an edit of the version the index
    read: an editor whose document moved on since refuses it instead of inserting it elsewhere."""
    edits: dict[str, list] = {}
    for file, at in leanok_insertions(project.index, claim):
        edits.setdefault(path_to_uri(file), []).append(convert.text_edit(Range(at, at), "\\leanok"))
    if not edits:
        return None
    changes = []
    for uri, text_edits in edits.items():
        doc = ctx.server.workspace.text_documents.get(uri)
        version = project.indexed_versions.get(uri, doc.version) if doc is not None else None
        changes.append((uri, version, text_edits))
    return convert.document_edits(changes)
