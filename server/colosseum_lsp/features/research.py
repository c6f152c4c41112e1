""""Explore strategies" (``colosseum.exploreStrategies [uri, label, options?]``): the research
pipeline from the editor, with work-done progress (stage, round, DAG frontier) and cancellation.
By default it explores, passes the readiness gate and cuts the skeleton; ``{"solve": true}`` in
the options runs the whole pipeline (solve, review, revise). The strategy cards and everything
else are in the run's Markdown report, shown to the author and returned by path; the skeleton
(or the draft) is offered as a draft (``features.drafts``): a code action on the theorem whose edit
creates a NEW file and puts an ``\\input`` of it after the theorem. Nothing is written to the
author's files unless the author picks that action.

The run works on its own index of the project (the editor's unsaved texts included), never on
the editor's: the draft lives there as an overlay while the run goes."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from colosseum.app.consent import research_summary
from colosseum.app.research import (
    default_output,
    input_line,
    research_setup,
    research_target,
    skeleton_file_text,
    start_research,
)
from colosseum.app.run_settings import RunOverrides
from colosseum.app.stops import RunRefused
from colosseum.models import ProviderError
from colosseum_lsp.convert import path_to_uri, show_document, uri_to_path
from colosseum_lsp.features import drafts, registry
from colosseum_lsp.features.commands import document_project
from colosseum_lsp.features.consent import cancelled_before_start, cost_note, may_send, not_sent
from colosseum_lsp.features.registry import CommandFailed
from colosseum_lsp.options import EditorOptions

log = logging.getLogger(__name__)


class ResearchError(CommandFailed):
    pass


def _free_output(claim_file: Path, label: str) -> Path:
    """``<file>-<label>-skeleton.tex`` beside the theorem's file, or ``-2``, ``-3`` ... : never an
    existing file."""
    first = default_output(claim_file, label)
    candidate, n = first, 1
    while candidate.exists() and n < 1000:
        n += 1
        candidate = first.with_name(f"{first.stem}-{n}{first.suffix}")
    return candidate


async def _run_index(ctx, project):
    """A fresh index of the project for the run, with the editor's unsaved texts."""
    from colosseum.index import ProjectIndex

    run_index = await asyncio.to_thread(ProjectIndex.open, project.root_dir, ctx.project_config(project.root_dir))
    overlays = {}
    for doc in list(ctx.server.workspace.text_documents.values()):
        path = uri_to_path(doc.uri)
        if path is not None and path in project.index.file_roots:
            overlays[path] = doc.source
    if overlays:
        await asyncio.to_thread(run_index.update_documents, overlays)
    return run_index


@registry.command("colosseum.exploreStrategies")
async def explore_strategies(ctx, args) -> dict:
    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise ResearchError("usage: colosseum.exploreStrategies [document uri, theorem label, {\"solve\": bool}?]")
    label = args[1]
    options = args[2] if len(args) > 2 and isinstance(args[2], dict) else {}
    project, index = await document_project(ctx, args[0])
    if label not in project.snapshot().claims:
        raise ResearchError(f"no claim `{label}` in the project")
    run_index = await _run_index(ctx, project)
    try:
        draft = research_target(run_index, label)  # a theorem that cannot take a draft is refused before any set-up
    except RunRefused as exc:
        raise ResearchError(str(exc)) from exc
    setup = await asyncio.to_thread(research_setup, run_index, RunOverrides(ctx.options.get("model"),
                                                                          _budget_option(ctx.options)))
    for problem in setup.problems:
        log.warning("colosseum.toml: %s (the default is used)", problem)
    solve_all = bool(options.get("solve"))
    summary = research_summary(run_index, setup, label)
    if not await may_send(ctx, project.root_dir, summary):
        return not_sent(f"the research of {label}")
    try:
        runs = start_research(setup, draft, stop_after=None if solve_all else "decompose")
    except ProviderError as exc:
        raise ResearchError(exc.message) from exc
    title = f"{'Researching' if solve_all else 'Exploring strategies for'} {label}{cost_note(summary.upper_cost_usd)}"
    async with ctx.progress(title) as report:
        if not await report.start_after(ctx.options.start_delay_seconds):
            return cancelled_before_start(f"the research of {label}")
        shown = [title]

        def progress(event) -> None:
            shown[0] = event.line()
            report(shown[0])

        # before every model call: raises ProgressCancelled once the author cancelled, so only
        # the calls already in flight finish (it re-sends the last progress line, a no-op for the eye)
        outcome = await runs.run(progress, check=lambda: report(shown[0]))
    if outcome.result is None:  # the theorem could no longer take a draft
        raise ResearchError(outcome.stop.detail if outcome.stop else "the research run did not finish")
    return await _answer(ctx, project, label, outcome)


def _budget_option(options: EditorOptions) -> int | None:
    """``budget.max_calls`` of the editor's options, refused when it is not a positive whole number."""
    if options.problem("budget"):  # an invalid budget: never run without the limit the author meant
        raise ResearchError(options.problem("budget"))
    budget = options.get("budget")
    if budget is not None and not isinstance(budget, dict):
        raise ResearchError(f"the `budget` setting must be a table like {{\"max_calls\": 200}}, not {budget!r}")
    max_calls = (budget or {}).get("max_calls")
    if max_calls is not None and (isinstance(max_calls, bool) or not isinstance(max_calls, int) or max_calls < 1):
        raise ResearchError(f"`budget.max_calls` must be a positive integer, not {max_calls!r}")
    return max_calls


async def _answer(ctx, project, label: str, outcome) -> dict:
    """The command's answer: the report shown, and the draft offered as a new file when there is one."""
    result, directory, report_path = outcome.result, outcome.directory, outcome.report
    answer = {"status": result.status, "label": label, "calls": outcome.calls, "report": str(report_path),
              "message": f"{label}: {result.status}" + (f" ({result.message})" if result.message else ""),
              "offered": False, "skeleton": None}
    if outcome.stop is not None and outcome.stop.kind == "model-unreachable":
        raise ResearchError(result.message + f"; what was done is in {directory.name}")
    try:
        await ctx.server.window_show_document_async(show_document(report_path.as_uri(), focus=False))
    except Exception as exc:  # a client without showDocument still gets the path
        log.info("showDocument failed: %s", exc)
    claim = project.snapshot().claims.get(label)
    cancelled = outcome.stop is not None and outcome.stop.cancelled
    if result.draft.strip() and not cancelled and claim is None:
        answer["message"] += (f"; `{label}` is no longer in the document (renamed or removed during the run), so "
                              f"the draft was not offered: it is in {directory.name}")
    elif result.draft.strip() and not cancelled:
        target = _free_output(claim.file, label)
        answer["skeleton"] = path_to_uri(target)
        answer.update(_offer_skeleton(project, label, result, outcome, target))
    return answer


def _offer_skeleton(project, label: str, result, outcome, target: Path) -> dict:
    """The skeleton as a draft offer: a new file (each proof in it marked as a draft) and an
    ``\\input`` of it after the theorem (in place of an empty proof of it), which the author
    inserts with the code action on the theorem, or not."""
    claim = project.snapshot().claims[label]
    root = project.index.roots[0]
    replaces = claim.proof is not None and not claim.proof.has_content and claim.proof.file == claim.file
    run_id = Path(str(result.run_dir or outcome.directory)).name
    text = skeleton_file_text(result, label, target, root, replaces)  # its proofs carry the draft marker
    # what stands against the draft: the last local review's critiques of each section that did not pass
    survivors = sum(len(o.reviews[-1].get("critiques") or []) for o in result.sections.values()
                    if o.status != "passed" and o.reviews)
    return drafts.offer(project, drafts.Offer(label, run_id, result.status, survivors, "skeleton", text,
                                              new_file=target, input_line=input_line(target, root)))
