""""Solve obligation": the inner loop from the editor, with progress, cancellation, the proof
offered as a draft (a code action on the claim the author picks: ``features.drafts``; nothing is
applied unasked), and the surviving critiques as diagnostics on the obligation."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

from colosseum.app.consent import SendSummary, provider_label
from colosseum.app.run_settings import RunOverrides
from colosseum.app.solve import plan_solve, record_applied_result
from colosseum.app.stops import RunRefused
from colosseum.core.structure import Diagnostic, Range, RelatedInfo
from colosseum.models import ProviderError
from colosseum_lsp import convert
from colosseum_lsp.convert import path_to_uri
from colosseum_lsp.features import drafts
from colosseum_lsp.features.commands import document_project
from colosseum_lsp.features.consent import cancelled_before_start, cost_note, may_send, not_sent
from colosseum_lsp.features.registry import CommandFailed

log = logging.getLogger(__name__)
SOURCE = "colosseum-solve"


class SolveError(CommandFailed):
    pass


async def solve_obligation(ctx, args) -> dict:
    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise SolveError("usage: colosseum.solveObligation [document uri, claim label]")
    label = args[1]
    project, index = await document_project(ctx, args[0])
    snap = project.snapshot()
    claim = snap.claims.get(label)
    if claim is None:
        raise SolveError(f"no claim `{label}` in the project")
    try:
        plan = await asyncio.to_thread(plan_solve, index, label, RunOverrides.from_editor_options(ctx.options))
    except RunRefused as exc:
        raise SolveError(str(exc)) from exc
    try:
        plan.settings.provider()  # a missing key or extra is said before the question (no request is made)
    except ProviderError as exc:
        raise SolveError(exc.message) from exc
    estimate = plan.estimate()
    summary = SendSummary(f"the statement of {label}, what it may assume and the related catalog entries",
                          estimate.input_tokens, estimate.upper_cost_usd, provider_label(plan.settings.models),
                          estimate.model)
    if not await may_send(ctx, project.root_dir, summary):
        return not_sent(f"solving {label}")
    formal = await asyncio.to_thread(plan.formal_evidence)
    try:
        run = plan.start(formal)
    except ProviderError as exc:
        raise SolveError(exc.message) from exc
    async with ctx.progress(f"Solving {label}{cost_note(estimate.upper_cost_usd)}") as report:
        if not await report.start_after(ctx.options.start_delay_seconds):
            return cancelled_before_start(f"solving {label}")

        def progress(stage: str, done: int, total: int) -> None:
            report(f"{stage} {done}/{total}" if total else stage)

        outcome = await run.run(progress)
    if outcome.stop is not None:
        return _stopped(outcome)
    result, directory = outcome.result, outcome.directory
    _critique_diagnostics(ctx, project, label, result, directory)
    survivors = len(result.surviving_critiques)
    record = not any(c.severity == "fatal" for c in result.surviving_critiques)
    offered = drafts.offer(project, drafts.Offer(
        label, directory.name, result.verdict, survivors, "proof",
        drafts.solve_proof(result.root.candidate.proof, directory.name),
        on_insert=(lambda: record_applied_result(project.root_dir, outcome)) if record else None))
    curated = list(outcome.curated)
    return {"status": "done", "label": label, "verdict": result.verdict, "calls": result.usage.calls,
            "critiques": survivors, "report": str(directory / "report.md"), "catalog": curated, **offered,
            "message": f"{label}: {result.verdict}; {survivors} critique(s) survived; a draft proof is offered "
                       f"on the claim (\"{offered['offer_title']}\"); report in {directory.name}"
                       + (f"; catalog: {', '.join(curated)}" if curated else "")
                       + (f"; {outcome.dropped_note}" if outcome.dropped_note else ""),
            "dropped": len(result.dropped)}


def _stopped(outcome) -> dict:
    """A cancelled solve is an answer; the other stops are failures the author reads."""
    stop, directory = outcome.stop, outcome.directory
    if stop.cancelled:
        return {"status": "cancelled", "report": str(directory),
                "message": f"solving {outcome.label} was cancelled; what was done is in {directory.name}"}
    if stop.kind == "budget-exceeded":
        raise SolveError(stop.detail)
    if stop.kind == "budget-reached":
        raise SolveError(f"stopped at the budget; what was done is in {directory.name}")
    if stop.kind == "incomplete":
        raise SolveError(f"incomplete: {stop.detail}; what was done is in {directory.name}")
    raise SolveError(f"the model could not be reached: {stop.detail}")


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
    words = quote.split()
    if ft is None or len(words) < 2:
        return None
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
    m = pattern.search(ft.text)
    return ft.lines.range(m.start(), m.end()) if m else None


async def open_report(ctx, args) -> dict:
    if not args or not isinstance(args[0], str):
        raise SolveError("usage: colosseum.openReport [path]")
    target = Path(args[0])
    if not target.is_file():
        raise SolveError(f"no report at {target}")
    try:
        await ctx.server.window_show_document_async(convert.show_document(target.as_uri()))
    except Exception as exc:
        log.info("showDocument failed: %s", exc)
    return {"path": str(target)}
