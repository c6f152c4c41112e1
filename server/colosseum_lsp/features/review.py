"""Review in the editor: "Global review" (``colosseum.globalReview [uri]``) and "Review this claim"
(``colosseum.reviewClaim [uri, label]``), with work-done progress and cancellation; critiques as
diagnostics ``colosseum/review-<kind>`` on the exact range they quote, in whichever file; actions
to dismiss a critique (remembered for that unchanged text), open the report, and retry a failed
claim through the inner loop with its failed draft and critique; optional local review on save
(option ``reviewOnSave``, off by default), incremental: only the claims whose text or used
statements changed cost a call. Shown critiques follow their quotes at every re-index."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from colosseum.app.consent import global_review_summary, local_review_summary
from colosseum.app.review import local_reviewer, refusal, review_claim, review_globally, review_setup
from colosseum.app.run_settings import RunOverrides
from colosseum.app.solve import start_retry
from colosseum.loops.review import DismissalStore, LocalReviewer
from colosseum.models import ProviderError
from colosseum_lsp import convert
from colosseum_lsp.features import drafts, registry
from colosseum_lsp.features.code_actions import claim_at
from colosseum_lsp.features.commands import caught_up, document_project
from colosseum_lsp.features.consent import cancelled_before_start, cost_note, may_send, not_sent
from colosseum_lsp.features.registry import CommandFailed
from colosseum_lsp.features.review_findings import SOURCE, republish, state_of

log = logging.getLogger(__name__)


class ReviewError(CommandFailed):
    pass


# ---- shared pieces -----------------------------------------------------------------------------
def _provider_and_config(ctx, project):
    setup = review_setup(project.index, RunOverrides.from_editor_options(ctx.options))
    try:
        provider, model = setup.settings.provider()
    except ProviderError as exc:
        raise ReviewError(exc.message) from exc
    for problem in setup.problems:
        log.warning("colosseum.toml: %s (the default is used)", problem)
    return provider, model, setup


def _local_reviewer(ctx, project) -> LocalReviewer:
    """The project's incremental reviewer (its cache lives on), with the settings as they are
    now: a budget or provider changed in the editor applies to the next review."""
    state = state_of(project)
    provider, model, setup = _provider_and_config(ctx, project)
    if state.reviewer is None or state.reviewer_model != model:
        state.reviewer, state.reviewer_model = local_reviewer(project.root_dir, provider, setup.config), model
    else:
        state.reviewer.provider, state.reviewer.config = provider, setup.config
    return state.reviewer


def _local_summary(ctx, index, labels: list[str]):
    return local_review_summary(index, review_setup(index, RunOverrides.from_editor_options(ctx.options)), labels)


def _stopped(stop, what: str) -> dict:
    """A run that stopped: cancelled (a result), or a failure the author should read (raised)."""
    if stop.cancelled:
        return {"status": "cancelled", "message": f"{what} was cancelled"}
    if stop.kind == "refused":
        raise ReviewError(stop.detail)
    if stop.kind in ("budget-exceeded", "budget-reached"):
        raise ReviewError(f"{what}: {stop.detail}")
    raise ReviewError(f"the model could not be reached: {stop.detail}")


# ---- commands --------------------------------------------------------------------------------------
@registry.command("colosseum.globalReview")
async def global_review(ctx, args) -> dict:
    if not args or not isinstance(args[0], str):
        raise ReviewError("usage: colosseum.globalReview [document uri]")
    project, index = await document_project(ctx, args[0])
    provider, _model, setup = _provider_and_config(ctx, project)  # a missing key is said before the question
    summary = await global_review_summary(index, setup)
    if not await may_send(ctx, project.root_dir, summary):
        return not_sent("the global review")
    async with ctx.progress(f"Global review of {project.root_dir.name}{cost_note(summary.upper_cost_usd)}") as report:
        if not await report.start_after(ctx.options.start_delay_seconds):
            return cancelled_before_start("the global review")

        def progress(stage: str, done: int, total: int) -> None:
            report(f"{stage} {done}/{total}", int(100 * done / total) if total else None)

        outcome = await review_globally(index, provider, setup.config, progress, setup.settings.prices)
    if outcome.stop is not None:
        return _stopped(outcome.stop, "the global review")
    result, path = outcome.report, outcome.path
    state = state_of(project)
    state.global_critiques, state.report = result.critiques, str(path)
    republish(ctx, project)
    active = [c for c in result.critiques if c.active]
    unanchored = sum(1 for c in active if not c.anchored)
    return {"status": "done", "verdict": result.verdict, "reasons": result.reasons, "critiques": len(active),
            "unanchored": unanchored, "calls": result.usage.calls, "cache_hits": result.cache_hits,
            "split": result.split is not None, "report": str(path),
            "message": f"Global review: {result.verdict}; {len(active)} critique(s)"
                       + (f", {unanchored} unanchored (in the report only)" if unanchored else "")
                       + f"; {result.usage.calls} call(s), {result.cache_hits} from the cache; report in {path.name}"}


@registry.command("colosseum.reviewClaim")
async def review_claim_command(ctx, args) -> dict:
    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise ReviewError("usage: colosseum.reviewClaim [document uri, claim or section label]")
    project, index = await document_project(ctx, args[0])
    label = args[1]
    if label not in index.claims and label not in index.sections:
        raise ReviewError(f"no claim or section `{label}` in the project")
    reviewer = _local_reviewer(ctx, project)
    refused = refusal(index, label)  # before any progress or call
    if refused is not None:
        raise ReviewError(refused.message)
    summary = _local_summary(ctx, index, [label])
    if not await may_send(ctx, project.root_dir, summary):
        return not_sent(f"the review of {label}")
    async with ctx.progress(f"Reviewing {label}{cost_note(summary.upper_cost_usd)}") as report:
        if not await report.start_after(ctx.options.start_delay_seconds):
            return cancelled_before_start(f"the review of {label}")
        report("local review")
        outcome = await review_claim(reviewer, index, label, lambda stage, done, total: report(stage))
    if outcome.stop is not None:
        return _stopped(outcome.stop, f"the review of {label}")
    review = outcome.review
    state_of(project).local[label] = review
    republish(ctx, project)
    return {"status": "done", "label": label, "verdict": review.verdict, "cached": review.cached,
            "critiques": len([c for c in review.critiques if c.active]),
            "message": f"{label}: {review.verdict}" + (" (unchanged: no call)" if review.cached else "")}


@registry.command("colosseum.dismissReviewCritique")
async def dismiss_critique(ctx, args) -> dict:
    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise ReviewError("usage: colosseum.dismissReviewCritique [document uri, critique key]")
    project, _index = await document_project(ctx, args[0])
    state = state_of(project)
    critiques = list(state.global_critiques) + [c for r in state.local.values() for c in r.critiques]
    matching = [c for c in critiques if c.key == args[1]]
    if not matching:
        raise ReviewError("that critique is no longer shown (a newer review replaced it)")
    await asyncio.to_thread(DismissalStore(project.root_dir).dismiss, matching[0])
    for c in matching:
        c.dismissed = True
    republish(ctx, project)
    return {"status": "dismissed", "key": args[1]}


@registry.command("colosseum.retryClaim")
async def retry_claim_command(ctx, args) -> dict:
    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise ReviewError("usage: colosseum.retryClaim [document uri, claim label]")
    project, index = await document_project(ctx, args[0])
    label = args[1]
    failed = state_of(project).local.get(label)
    if failed is None or failed.passed:
        raise ReviewError(f"`{label}` has no failed local review to retry from: review it first")
    if label not in index.claims:
        raise ReviewError(f"a retry works on a claim; `{label}` is not one")
    try:
        run = start_retry(index, label, RunOverrides.from_editor_options(ctx.options))
    except ProviderError as exc:
        raise ReviewError(exc.message) from exc
    summary = _local_summary(ctx, index, [label])
    if not await may_send(ctx, project.root_dir, summary):
        return not_sent(f"the retry of {label}")
    async with ctx.progress(f"Retrying {label}{cost_note(summary.upper_cost_usd)}") as report:
        if not await report.start_after(ctx.options.start_delay_seconds):
            return cancelled_before_start(f"the retry of {label}")

        def progress(stage: str, done: int, total: int) -> None:
            report(f"{stage} {done}/{total}" if total else stage)

        outcome = await run.run(failed, progress)
    if outcome.stop is not None:
        return _stopped(outcome.stop, f"the retry of {label}")
    result, run_id = outcome.result, outcome.directory.name
    survivors = len(result.surviving_critiques)
    offered = drafts.offer(project, drafts.Offer(label, run_id, result.verdict, survivors, "retry",
                                                 drafts.solve_proof(result.root.candidate.proof, run_id)))
    return {"status": "done", "label": label, "verdict": result.verdict, "calls": result.usage.calls,
            "report": str(outcome.report), **offered,
            "message": f"{label}: a new draft proof is offered in place of the failed one ({result.verdict}, "
                       f"{survivors} critique(s) survived): pick \"{offered['offer_title']}\" on the claim, "
                       "then review it again"}


# ---- code actions ----------------------------------------------------------------------------------
@registry.code_action_provider
def review_actions(ctx, path: Path, uri: str, params, snap, version) -> list:
    actions = []
    claim = claim_at(snap, path, convert.engine_position(params.range.start))
    if claim is not None and claim.proof is not None and claim.proof.has_content:
        actions.append(convert.code_action(
            f"Review `{claim.id}` (local review)", "empty",
            command=convert.command_call(f"Review `{claim.id}`", "colosseum.reviewClaim", [uri, claim.id])))
    entry = ctx.extra_diagnostics.get((SOURCE, uri))
    info = (entry[1] if entry is not None else None) or {}
    report_offered = False
    for diag in params.context.diagnostics:
        if diag.source != SOURCE:
            continue
        item = info.get("items", {}).get((diag.range.start.line, diag.range.start.character, diag.code, diag.message))
        if item is None:
            continue
        kind, payload = item
        if kind == "failed":
            actions.append(convert.code_action(
                f"Retry `{payload}` through the inner loop", "quickfix", diagnostic=diag,
                command=convert.command_call("Retry this section through the inner loop", "colosseum.retryClaim",
                                             [uri, payload])))
            continue
        actions.append(convert.code_action(
            "Dismiss this critique", "quickfix", diagnostic=diag,
            command=convert.command_call("Dismiss this critique", "colosseum.dismissReviewCritique",
                                         [uri, payload.key])))
        if kind == "global" and info.get("report") and not report_offered:
            report_offered = True
            actions.append(convert.code_action(
                "Open review report", "quickfix", diagnostic=diag,
                command=convert.command_call("Open review report", "colosseum.openReport", [info["report"]])))
    return actions


# ---- on save ---------------------------------------------------------------------------------------
@registry.on_save
def review_on_save(ctx, path: Path, uri: str) -> None:
    """With ``reviewOnSave`` (off by default; only ``true`` turns it on), the claims of the saved
    file and those that use them directly are reviewed (unchanged ones are served from the cache).
    Shown critiques follow their quotes at every re-index, saved or not (``_LiveFindings``)."""
    if ctx.options.get("reviewOnSave") is not True:
        return
    project = ctx.project_for(path)
    if project.index is None:
        return
    state = state_of(project)
    if state.saving is not None and not state.saving.done():
        state.save_again = True  # one review at a time; the last save is reviewed after it
        return
    state.saving = ctx.spawn(_review_saved(ctx, project, path))


async def _review_saved(ctx, project, path: Path) -> None:
    state = state_of(project)
    for _ in range(8):  # bounded: saves arriving during a review make at most a few more rounds
        state.save_again = False
        await caught_up(project)
        index = project.index
        try:
            reviewer = _local_reviewer(ctx, project)
        except ReviewError as exc:
            log.warning("review on save is on, but: %s", exc)
            return
        reviewable = set(reviewer.reviewable(index))
        here = {cid for cid, c in index.claims.items() if c.file == path or (c.proof and c.proof.file == path)}
        users = {u for cid in here for u in index.graph.succ.get(cid, ())}
        labels = [cid for cid in reviewer.reviewable(index) if cid in (here | users) & reviewable]
        summary = _local_summary(ctx, index, labels) if labels else None
        if summary is not None and not await may_send(ctx, project.root_dir, summary):
            log.info("review on save: nothing was sent (the author chose Cancel)")
            return
        if summary is not None:
            try:
                async with ctx.progress(f"Reviewing {path.name}{cost_note(summary.upper_cost_usd)}") as report:
                    if not await report.start_after(ctx.options.start_delay_seconds):
                        log.info("review on save of %s: cancelled before its first call", path.name)
                        return
                    reviews = await reviewer.review_many(
                        index, labels, lambda stage, done, total: report(f"{stage} {done}/{total}",
                                                                        int(100 * done / max(1, total))))
            except Exception as exc:  # noqa: BLE001 - a failing review on save is logged, never raised
                log.warning("review on save stopped: %s", exc)
                return
            for review in reviews:
                state.local[review.label] = review
            republish(ctx, project)
        if not state.save_again:
            return
