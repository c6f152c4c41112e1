"""The research pipeline (``../shared/method.md``, outer loop): explore, readiness gate,
decompose, solve the DAG with local review, global review, revise or re-explore; bounded by the
number of explorations, the round limit (global reviews) and the call budget.

    result = await run_research(ResearchRun(index, label, provider, config, inner_config, reviews, ...))

``provider`` is a models.metered.MeteredProvider (the budget, usage per stage); ``index`` a ProjectIndex of
the author's project that this run may overlay (never the editor's own index): the draft lives
there as an overlay of the theorem's file and is never written to the author's files."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.core.exception_groups import first_leaf
from colosseum.loops.inner import InnerLoopConfig, obligation_context
from colosseum.models.errors import BudgetExceeded, BudgetReached, SolveCancelled
from colosseum.models import ProviderError
from colosseum.models.metered import stage
from colosseum.loops.research.dag_solver import DagSolver
from colosseum.loops.research.decomposition import decompose, redecompose, section_routes
from colosseum.loops.research.draft import DraftDocument
from colosseum.loops.research.exploration import explore
from colosseum.loops.research.readiness import gate_feedback, readiness_gate, record_failed_route_once, record_gate_failure
from colosseum.loops.research.records import ProgressEvent, ResearchConfig, ResearchResult, RoundRecord
from colosseum.loops.research.review_adapter import critique_json
from colosseum.loops.research.revision import feedback_text, labels_to_recheck, revise
from colosseum.loops.research.run_log import ResearchRecorder

REVISIONS_PER_ROUND = 2  # a revision the structural check rejects is tried once more, then the skeleton is blamed


@dataclass
class ResearchRun:
    index: object
    label: str
    provider: object  # a MeteredProvider
    config: ResearchConfig = ResearchConfig()
    inner_config: InnerLoopConfig = InnerLoopConfig()
    reviews: object = None  # a review_adapter.ReviewLayer
    catalog: object = None
    catalog_dir: Path | None = None
    recorder: ResearchRecorder | None = None
    progress: Callable[[ProgressEvent], None] | None = None
    stop_after: str | None = None  # "decompose": explore, gate and write the skeleton only
    model: str = ""
    prices: dict | None = None
    state: dict = field(default_factory=dict)
    probes: object = None  # ProbeTools: falsifiers and refuters run code in the sandbox; None: no tool




async def run_research(run: ResearchRun) -> ResearchResult:
    """Never raises for a budget, a cancellation from the progress callback or a provider failure:
    the result's status and message say what stopped it, and the run directory has what it did."""
    if run.config.rounds < 1:  # bad input, before any call: a run must end in a global review
        raise ValueError(f"a research run needs at least one round of global review, not {run.config.rounds}")
    draft = DraftDocument(run.index, run.label)  # raises DraftError before any call
    result = ResearchResult(run.label, "running", "", "", [], [], None, {}, [], run.provider.usage, {},
                            run.recorder.directory if run.recorder else None, run.model)
    try:
        await _pipeline(run, draft, result)
    except asyncio.CancelledError:
        _close(run, draft, result, "cancelled", "cancelled")
        raise
    except BaseException as exc:
        budget = first_leaf(exc, (BudgetReached, BudgetExceeded))
        cancelled = first_leaf(exc, (SolveCancelled, asyncio.CancelledError))
        provider = first_leaf(exc, ProviderError)
        if budget is not None:
            _close(run, draft, result, "budget-stopped", f"stopped at the budget: {budget}")
        elif cancelled is not None:
            _close(run, draft, result, "cancelled", "cancelled by the author")
        elif provider is not None:
            _close(run, draft, result, "failed", f"the model could not be reached: {provider}")
        else:
            _close(run, draft, result, "failed", f"{type(exc).__name__}: {exc}")
            raise
        return result
    _close(run, draft, result, result.status, result.message)
    return result


def _close(run: ResearchRun, draft: DraftDocument, result: ResearchResult, status: str, message: str) -> None:
    result.status, result.message = status, message
    result.draft = draft.region_text
    result.usage = run.provider.usage
    result.usage_by_stage = dict(run.provider.by_stage)
    _record_failed_sections(run, result, stopped=status in ("budget-stopped", "cancelled"))
    saved = sum(e.calls_saved for e in result.explorations)
    if saved:
        result.calls_saved["adaptive exploration widths"] = saved
    if run.recorder is not None:
        run.recorder.finish(result, run.provider)


def _section_solver(run: ResearchRun, draft: DraftDocument, verdict, exploration, recut, report) -> DagSolver:
    """The solver of the skeleton's sections; each section's provers take the route the plan gave it."""
    main = exploration.main
    return DagSolver(draft, run.provider, run.config, run.inner_config, run.reviews, catalog=run.catalog,
                     run_dir=run.recorder.directory if run.recorder else None, model=run.model, prices=run.prices,
                     progress=lambda s, frontier, done, total, detail: report(s, frontier, done, total, detail),
                     redecompose=recut, routes=section_routes(draft, verdict, main),
                     default_route=f"the main route: {main.key_mechanism}" if main.key_mechanism.strip() else "",
                     probes=run.probes)


async def _pipeline(run: ResearchRun, draft: DraftDocument, result: ResearchResult) -> None:
    config = run.config
    context = obligation_context(run.index, run.label, run.catalog)  # before any skeleton is in place
    if run.recorder is not None:  # the catalog's computations on the theorem: the report shows them apart
        run.recorder.computation = context.computation
    state = {"round": 0, "stage": "", "attempt": 0}

    def report(stage_name: str, frontier: tuple = (), done: int = 0, total: int = 0, detail: str = "") -> None:
        state["stage"] = stage_name
        # the round in progress: a round ends with its global review and what that review asked for
        in_review = stage_name in ("global review", "revising") or stage_name.startswith("local review")
        event = ProgressEvent(stage_name, state["round"] + (0 if in_review else 1), frontier, done, total, run.provider.usage.calls, detail)
        if run.recorder is not None:
            run.recorder.progress(event)
        if run.progress is not None:
            run.progress(event)  # may raise SolveCancelled: the author stopped the run

    previous = "(none)"
    recorder = run.recorder
    run_id = recorder.directory.name if recorder else "research"
    for attempt in range(1, config.max_explorations + 1):
        state["attempt"] = attempt
        draft.set_region("")
        seed = (config.seed if config.seed is not None else int(context.fingerprint()[:12], 16)) + attempt
        report("exploring", detail=f"exploration {attempt} of at most {config.max_explorations}")
        with stage("explore"):
            exploration = await explore(context, run.provider, config, previous, seed,
                                        lambda what, done, total: report(what, (), done, total), run.probes)
        result.explorations.append(exploration)
        if recorder:
            recorder.exploration(attempt, exploration)

        report("readiness gate")
        with stage("gate"):
            verdict = await readiness_gate(context, exploration, run.provider, previous)
        result.gates.append(verdict)
        if not verdict.ready:
            entries = record_gate_failure(run.catalog_dir, run.label, verdict, exploration, run_id)
            if recorder:
                recorder.gate(attempt, verdict, entries)
            previous = _append(previous, gate_feedback(verdict, exploration))
            result.status, result.message = "not-ready", "no strategy passed the readiness gate: " + "; ".join(verdict.reasons)
            continue
        if recorder:
            recorder.gate(attempt, verdict, [])

        report("decomposing")
        with stage("decompose"):
            decomposition, problems = await decompose(context, exploration, verdict, draft, run.provider, config)
        if recorder:
            recorder.decomposition(attempt, draft.region_text if decomposition else "", decomposition, problems)
        if decomposition is None:
            previous = _append(previous, "The strategy could not be cut into a skeleton that reads back:\n"
                               + "\n".join(f"- {p}" for p in problems))
            result.status, result.message = "not-ready", "the skeleton did not read back: " + "; ".join(problems)
            continue
        result.decomposition, result.skeleton = decomposition, decomposition.skeleton
        if run.stop_after == "decompose":
            result.status = "decomposed"
            result.message = (f"skeleton of {len(decomposition.obligations)} obligations in "
                              f"{len(decomposition.generations)} generations")
            return

        async def recut(label: str, attempts_text: str):
            return await redecompose(draft, label, attempts_text, context, run.provider)

        solver = _section_solver(run, draft, verdict, exploration, recut, report)
        result.sections = solver.outcomes
        await solver.run()
        if recorder:
            recorder.sections(solver.outcomes, solver.redecompositions)
        outcome = await _review_rounds(run, draft, result, solver, context, attempt, state, report)
        if outcome != "re-explore":
            return
        previous = _append(previous, state["feedback"])
    if result.status == "running":
        result.status = "gave-up"
        result.message = f"no draft survived within {config.max_explorations} explorations"


async def _review_rounds(run, draft, result, solver, context, attempt, state, report) -> str:
    """Global review, then revise or re-explore, until accepted or out of rounds. Returns
    "done" or "re-explore"."""
    config = run.config
    recorder = run.recorder
    while True:
        unfinished = [o for o in draft.obligations() if solver.outcomes.get(o) is None
                      or solver.outcomes[o].status != "passed"]
        if unfinished:
            what = unfinished_summary(solver, unfinished)
            failed = [o for o in unfinished if solver.outcomes.get(o) is not None and solver.outcomes[o].status == "failed"]
            state["feedback"] = (f"The previous skeleton could not be completed: {what}.\n\nThat draft:\n"
                                 f"{draft.region_text}\n\n" + "\n\n".join(solver.attempts_text(o) for o in failed[:2]))
            result.status = "incomplete"
            result.message = what
            return "re-explore" if state["attempt"] < config.max_explorations else "done"
        if state["round"] >= config.rounds:
            result.message = result.message or f"the round limit ({config.rounds}) was reached"
            return "done"
        state["round"] += 1
        report("global review")
        with stage("review"):
            review = await run.reviews.global_(draft.index, lambda step, done, total: report(
                "global review", (), done, total, step))
        reviewed = draft.region_text
        record = RoundRecord(state["round"], attempt, review.verdict, list(review.reasons),
                             [critique_json(c, draft) for c in review.critiques])
        result.rounds.append(record)
        result.status = review.verdict
        result.message = f"global review: {review.verdict}" + (f" ({'; '.join(review.reasons)})" if review.reasons else "")
        if review.verdict == "accepted" or state["round"] >= config.rounds:
            if recorder:
                recorder.round(record, reviewed, review.to_json(draft.index.root_dir))
            return "done"
        report("revising")
        rejected: list[str] = []
        before = draft.structure()
        for _ in range(REVISIONS_PER_ROUND):
            with stage("revise"):
                revision = await revise(draft, review, context, run.provider, state["round"], rejected)
            record.revision = revision
            if revision.accepted or revision.decision == "re-explore":
                break
            rejected.append("; ".join(revision.violations))
        if recorder:
            recorder.round(record, reviewed, review.to_json(draft.index.root_dir),
                           draft.region_text if revision.accepted and revision.decision == "revise" else None)
        feedback = f"The previous full draft:\n{reviewed}\n\nThe verifier's feedback:\n{feedback_text(review)}"
        if revision.decision == "re-explore" or not revision.accepted:
            why = revision.reason if revision.decision == "re-explore" else \
                "no revision within the conservative rules: " + "; ".join(rejected)
            state["feedback"] = feedback + f"\n\nWhy the skeleton was abandoned: {why}"
            _record_broken_skeleton(run, result, why)
            return "re-explore" if state["attempt"] < run.config.max_explorations else "done"
        recheck = labels_to_recheck(draft, before, revision.sections)
        await _recheck(run, draft, solver, recheck, report)
        if recorder:
            recorder.sections(solver.outcomes, solver.redecompositions)


def unfinished_summary(solver, unfinished: list[str]) -> str:
    """Exactly what happened to the obligations that did not pass: which failed their local
    review after how many attempts, and which were never attempted (what they rest on failed)."""
    failed, blocked, other = [], [], []
    for label in unfinished:
        outcome = solver.outcomes.get(label)
        if outcome is None or outcome.status == "blocked":
            blocked.append(label)
        elif outcome.status == "failed":
            recut = sum(1 for r in solver.redecompositions if r["label"] == label and r["done"])
            failed.append(f"{label} ({outcome.attempts} attempt{'s' if outcome.attempts != 1 else ''}"
                          + (", re-cut once" if recut == 1 else f", re-cut {recut} times" if recut else "") + ")")
        else:
            other.append(f"{label} ({outcome.status})")
    parts = []
    if failed:
        parts.append("failed their local review after every attempt: " + ", ".join(failed))
    if blocked:
        parts.append("never attempted, because what they rest on did not pass: " + ", ".join(blocked))
    if other:
        parts.append("not finished: " + ", ".join(other))
    return "; ".join(parts)


async def _recheck(run, draft, solver, labels: list[str], report) -> None:
    """Local review of what a revision touched; what fails is solved again, alone."""
    report("local review of the revised sections", (), 0, len(labels))
    failed = set()
    for number, label in enumerate(labels):  # in document order; each review is one call
        report("local review of the revised sections", (), number, len(labels), label)
        claim = draft.index.claims.get(label)
        has_proof = claim is not None and claim.proof is not None and claim.proof.has_content
        outcome = solver.outcomes.get(label)
        if not has_proof:
            failed.add(label)
            continue
        with stage("review"):
            review = await run.reviews.local(draft.index, label, None)
        if outcome is not None:
            outcome.reviews.append({"attempt": "revision", "verdict": review.verdict, "reasons": list(review.reasons),
                                    "critiques": [critique_json(c, draft) for c in review.critiques]})
        if not review.passed:
            failed.add(label)
    for label in failed:
        if label in solver.outcomes:
            solver.outcomes[label].status = "failed"
    if failed:
        await solver.run(only=failed)


def _record_failed_sections(run, result, stopped: bool) -> None:
    """A failed route for each section of the route that failed every retry, and, when the run was
    stopped, for each section whose last attempt failed (no retry will answer its critiques)."""
    if run.catalog_dir is None or not result.explorations:
        return
    main = result.explorations[-1].main
    approach = main.key_mechanism or main.normalized_goal or "unnamed strategy"
    run_id = run.recorder.directory.name if run.recorder else None
    for label, outcome in list(result.sections.items()):
        exhausted = outcome.attempts >= 1 + run.config.section_retries
        last = outcome.reviews[-1] if outcome.reviews else {}
        if outcome.status != "failed" or last.get("verdict") != "failed" or not (exhausted or stopped):
            continue
        why = "failed every retry" if exhausted else "failed, and the run stopped"
        critique = f"section {label} {why} ({outcome.attempts} attempts): " + "; ".join(last.get("reasons") or [])
        try:
            record_failed_route_once(run.catalog_dir, run.label, approach, f"section {label}", critique[:2000], run_id)
        except (OSError, TimeoutError, ValueError):  # a catalog that cannot be written costs the lesson, not the run
            return


def _record_broken_skeleton(run, result, why: str) -> None:
    if not result.explorations:
        return
    main = result.explorations[-1].main
    record_failed_route_once(run.catalog_dir, run.label, main.key_mechanism or "unnamed strategy",
                             main.first_bottleneck or "(see the run)", f"global review broke the skeleton: {why}"[:2000],
                             run.recorder.directory.name if run.recorder else None)


def _append(previous: str, text: str) -> str:
    return text if previous == "(none)" else previous + "\n\n" + text
