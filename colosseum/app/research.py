"""The research pipeline, set up once for the CLI and the editor: its settings, the theorem it
drafts, one run per model sharing one budget in one run folder, cross-model selection between two
runs, what each run spent, and the draft file (its text, written only as a new file, and its
reviewed lemmas in the catalog). The use case: ``research_target`` (refused before any set-up),
``research_setup``, ``start_research`` (the providers and the run folder), then ``ResearchRuns.run``
with the adapter's progress; the adapters print or answer its ``ResearchOutcome``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.app.knowledge import catalog_directory
from colosseum.app.run_settings import RunOverrides, RunSettings, inner_loop_config
from colosseum.app.stops import RunRefused, StopReason, stop_reason, until_stopped
from colosseum.catalog.store import load_catalog
from colosseum.core.atomic_files import write_atomically
from colosseum.latex.draft_marker import mark_proofs
from colosseum.core.liveness import Heartbeat
from colosseum.loops.inner.records import InnerLoopConfig
from colosseum.models.budget import Budget
from colosseum.models.metered import MeteredProvider
from colosseum.models.pricing import cost_usd
from colosseum.loops.inner.run_record import run_directory
from colosseum.loops.research.draft import DraftDocument, DraftError
from colosseum.loops.research.pipeline import ResearchRun, run_research
from colosseum.loops.research.records import EXPLORATION_WIDTHS, ProgressEvent, ResearchResult
from colosseum.loops.research.review_adapter import ReviewLayer
from colosseum.loops.research.run_log import ResearchRecorder
from colosseum.loops.research.settings import planned_calls, research_settings


@dataclass
class ResearchSetup:
    """A research run's settings (colosseum.toml with the command's overrides), the one budget every
    model's run and the judges share, and the catalog the runs read and write."""

    settings: RunSettings
    config: object  # ResearchConfig
    selection: object  # SelectionSettings
    inner_config: InnerLoopConfig
    problems: list[str]
    budget: Budget
    catalog_dir: Path
    catalog: object
    probes: object = None  # ProbeDecision: whether falsifiers and refuters run code, and why not

    def new_run(self, index, label: str, inner_provider, model: str, folder: Path, progress,
                stop_after: str | None = None) -> ResearchRun:
        provider = MeteredProvider(inner_provider, self.budget)
        recorder = ResearchRecorder(folder, label, model, self.config, self.settings.prices)
        probes = self.probes.for_provider(inner_provider) if self.probes is not None else None
        if probes is not None:
            recorder.note("probes", **probes.record())
        return ResearchRun(index, label, provider, self.config, self.inner_config, ReviewLayer(provider, index.config),
                           self.catalog, self.catalog_dir, recorder, progress, stop_after, model, self.settings.prices,
                           probes=getattr(probes, "tools", None))


def research_setup(index, overrides: RunOverrides, rounds: int | None = None, judges: int | None = None,
                   threshold: int | None = None) -> ResearchSetup:
    config, selection, problems = research_settings(index.config, rounds, overrides.max_calls, judges, threshold)
    # the research run's own budget bounds every call, the inner loop's included
    inner_config = replace(inner_loop_config(index.config)[0], max_calls=None)
    catalog_dir = catalog_directory(index.root_dir)
    settings = RunSettings.of(index, overrides)
    return ResearchSetup(settings, config, selection, inner_config, problems,
                         Budget.of_started_calls(config.max_calls), catalog_dir, load_catalog(catalog_dir),
                         settings.probes(index))


@dataclass(frozen=True)
class Selection:
    """Cross-model selection's answer: which run is submitted, or why the selection did not finish."""

    picked: object = None  # the selection record, None when it did not finish
    chosen: str = "A"
    failure: str = ""


async def select_between(result_a, result_b, judge_provider, problem: str, selection, model_a: str, model_b: str,
                         top: Path) -> Selection:
    """Model B judges A's proof; the record goes to ``selection.json`` and ``selection.md``. A
    selection stopped by the budget or the model still leaves both runs (A is kept)."""
    from colosseum.loops.research.selection import cross_model_select

    try:
        picked = await cross_model_select(result_a, result_b, judge_provider, problem, selection.judges,
                                          selection.threshold)
    except Exception as exc:  # noqa: BLE001 - a failed selection still leaves both runs on disk
        reason = stop_reason(exc)
        if reason is None or reason.kind not in ("budget-reached", "model-unreachable"):
            raise
        return Selection(failure=str(exc))
    write_atomically(top / "selection.json", json.dumps({"schema_version": SCHEMA_VERSION, **picked.to_json(),
                                                         "model_a": model_a, "model_b": model_b},
                                                        indent=2, ensure_ascii=False))
    write_atomically(top / "selection.md", _selection_report(picked, model_a, model_b))
    return Selection(picked, picked.chosen if picked.chosen != "none" else "A")


def _selection_report(picked, model_a: str, model_b: str) -> str:
    lines = [f"# Cross-model selection: model {picked.chosen} submitted", "",
             f"Model A: {model_a}; model B: {model_b}. {picked.reason}.", "",
             "| judge | correct | first failing step | reasons |", "|---|---|---|---|"]
    lines += [f"| {v.judge} | {'yes' if v.correct else 'no'} | {v.fatal_flaw or '-'} | {v.reasons} |"
              for v in picked.verdicts]
    return "\n".join(lines)


def research_target(index, label: str) -> DraftDocument:
    """The theorem the run drafts a proof of; raises RunRefused, before any set-up, when it cannot
    take a draft (no such claim, or it already has a proof)."""
    try:
        return DraftDocument(index, label)
    except DraftError as exc:
        raise RunRefused(str(exc)) from exc


@dataclass(frozen=True)
class SecondModel:
    """Cross-model selection: model B's name, and how to open its own index of the project (each
    run overlays its draft on the index it works on); opened once both providers are made."""

    model: str
    open_index: Callable[[], object]


@dataclass(frozen=True)
class ModelRun:
    """What one model's run spent: its calls (the judges' included for model B), the answers served
    from the cache, and the cost at list price (None when no price is known for the model)."""

    model: str
    calls: int
    cache_hits: int
    cost_usd: float | None


@dataclass
class ResearchOutcome:
    """How a research run ended: ``result`` is the submitted run's result (model A's, or B's when
    the selection picked it); ``stop`` says why it stopped early, when it did."""

    label: str
    directory: Path  # the run folder; with two models, each run is in model-a/ and model-b/ under it
    runs: list[ModelRun] = field(default_factory=list)
    result: ResearchResult | None = None
    selection: Selection | None = None
    stop: StopReason | None = None

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.runs)

    @property
    def cache_hits(self) -> int:
        return sum(r.cache_hits for r in self.runs)

    @property
    def cost_usd(self) -> float | None:
        """The whole run's cost, or None when a model's price is not known."""
        costs = [r.cost_usd for r in self.runs]
        return sum(costs) if all(c is not None for c in costs) else None

    @property
    def report(self) -> Path:
        """The submitted run's Markdown report (the strategy cards, the reviews)."""
        return Path(str(self.result.run_dir if self.result is not None and self.result.run_dir else self.directory)) \
            / "report.md"


# the pipeline ends every run with a status; these statuses are early stops (its messages say more)
_STOPPED_STATUSES = {"cancelled": "cancelled", "budget-stopped": "budget-reached"}
_UNREACHABLE = "the model could not be reached"  # how the pipeline's message for a provider failure begins


def result_stop(result: ResearchResult) -> StopReason | None:
    if result.status in _STOPPED_STATUSES:
        return StopReason(_STOPPED_STATUSES[result.status], result.message)
    if result.status == "failed" and result.message.startswith(_UNREACHABLE):
        return StopReason("model-unreachable", result.message)
    return None


Progress = Callable[[ProgressEvent], None]


@dataclass
class ResearchRuns:
    """The runs of one research command, set up: one per model, in one run folder."""

    setup: ResearchSetup
    draft: DraftDocument
    directory: Path
    runs: list[ResearchRun]

    def outcome(self, stop: StopReason | None = None, result: ResearchResult | None = None,
                selection: Selection | None = None) -> ResearchOutcome:
        spent = [ModelRun(r.model, r.provider.usage.calls, r.provider.cached_answers,
                          cost_usd(r.provider.usage, r.model, r.prices)) for r in self.runs]
        if stop is None and result is not None:
            stop = result_stop(result)
        return ResearchOutcome(self.draft.target, self.directory, spent, result, selection, stop)

    def watch(self, progress: Progress, check: Callable[[], None] | None = None) -> None:
        """Each run reports to ``progress`` (with two models, each event names its model); ``check``
        is called before every model call and raises to cancel (the editor's progress does)."""
        for run in self.runs:
            run.progress = _naming(progress, run.model if len(self.runs) > 1 else "")
            if check is not None:
                run.provider.check = check

    async def run(self, progress: Progress, check: Callable[[], None] | None = None) -> ResearchOutcome:
        """Every model's run to its end, then (with two) the selection; the outcome, or the reason it
        stopped (a cancellation from outside, e.g. Ctrl-C through ``run_in_terminal``, stays raised)."""
        self.watch(progress, check)

        async def work() -> ResearchOutcome:
            try:
                results = await _run_all(self.runs)
            except DraftError as exc:  # the theorem changed so that it cannot take a draft
                raise RunRefused(str(exc)) from exc
            if len(results) == 1:
                return self.outcome(result=results[0])
            label = self.draft.target
            picked = await select_between(*results, self.runs[1].provider, f"{label}: {self.draft.statement(label)}",
                                          self.setup.selection, self.runs[0].model, self.runs[1].model,
                                          self.directory)
            chosen = results[1] if not picked.failure and picked.chosen == "B" else results[0]
            return self.outcome(result=chosen, selection=picked)

        return await until_stopped(work(), lambda reason: self.outcome(stop=reason))


def _naming(progress: Progress, model: str) -> Progress:
    def named(event: ProgressEvent) -> None:
        event.model = model
        progress(event)
    return named


async def _run_all(runs: list[ResearchRun]) -> list[ResearchResult]:
    async with contextlib.AsyncExitStack() as beating:  # a later command can tell each run alive
        for run in runs:
            if run.recorder is not None:
                await beating.enter_async_context(Heartbeat(run.recorder.directory))
        if len(runs) == 1:
            return [await run_research(runs[0])]
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(run_research(run)) for run in runs]
        return [task.result() for task in tasks]


def start_research(setup: ResearchSetup, draft: DraftDocument, second: SecondModel | None = None,
                   stop_after: str | None = None, directory: Path | None = None,
                   shared: tuple | None = None, shared_second: tuple | None = None) -> ResearchRuns:
    """The providers, the run folder and each model's run on ``draft`` (from ``research_target``);
    raises ProviderError, before any call, when a model's provider cannot be made. ``stop_after``
    "decompose": explore, pass the gate and cut the skeleton only. ``directory``: the folder of a
    run that is resumed (``research_to_resume``), written over as the run goes again. ``shared``:
    (provider, model) that several theorems' runs share (``research --labels``), wrapped here in the
    answer cache so this run counts its own hits; ``shared_second`` the same for model B's runs."""
    index, label = draft.index, draft.target
    top = directory or run_directory(index.root_dir, f"research-{label}")
    if shared is None:
        inner_a, model_a = setup.settings.provider(run_dir=top)  # --batch keeps its batch ids in the run folder
    else:
        inner_a, model_a = setup.settings.cached(shared[0]), shared[1]
    inner_b, model_b = None, None
    if second is not None:
        inner_b, model_b = ((setup.settings.cached(shared_second[0]), shared_second[1]) if shared_second is not None
                            else setup.settings.provider(second.model, run_dir=top))
    runs = [setup.new_run(index, label, inner_a, model_a, top / "model-a" if second is not None else top, None,
                          stop_after)]
    if second is not None:
        runs.append(setup.new_run(second.open_index(), label, inner_b, model_b, top / "model-b", None, stop_after))
    return ResearchRuns(setup, draft, top, runs)


# a research run that ended in one of these can go on; the others are running or reached a verdict
RESUMABLE = ("abandoned", "failed", "cancelled", "budget-stopped", "incomplete")


@dataclass(frozen=True)
class ResumedResearch:
    """A research run to continue: its folder, and its model and settings as recorded."""

    folder: Path
    model: str | None
    config: dict

    def overrides(self, overrides: RunOverrides) -> RunOverrides:
        """The run's own model, and the answer cache on: every call answered before comes from it."""
        return replace(overrides, model=self.model or overrides.model, use_cache=True)

    def setup(self, setup: ResearchSetup) -> ResearchSetup:
        """``setup`` with the recorded settings (not the budget: the command's or colosseum.toml's),
        so that the run asks the same questions in the same order as before it died."""
        known = {f for f in vars(setup.config) if f not in ("angles", "max_calls")}
        recorded = {k: (tuple(v) if isinstance(v, list) else v) for k, v in self.config.items() if k in known}
        return replace(setup, config=replace(setup.config, **recorded))


def research_to_resume(index, label: str, run: str) -> ResumedResearch:
    """The research run named ``run`` (its folder's name or path); raises RunRefused for a run that
    is alive, finished, not a research run or not this theorem's."""
    from colosseum.app.runs import find_run, read_run, run_state
    from colosseum.core.paths import runs_dir

    folder = find_run(index.root_dir, run)
    if folder is None:
        raise RunRefused(f"no run {run!r} in {runs_dir(index.root_dir)}")
    state, record = run_state(folder), read_run(folder)
    if "stages" not in record:
        raise RunRefused(f"run {folder.name} is not a research run (`solve --resume` continues a solve)")
    if state not in RESUMABLE:
        raise RunRefused(f"run {folder.name} is {'still running' if state == 'running' else 'finished: ' + state}: "
                         f"only an {', '.join(RESUMABLE[:-1])} or {RESUMABLE[-1]} run can be resumed")
    if record.get("label") != label:
        raise RunRefused(f"run {folder.name} researched {record.get('label')!r}, not {label!r}")
    return ResumedResearch(folder, record.get("model"), record.get("config") or {})


@dataclass(frozen=True)
class ResearchEstimate:
    """What a research run would cost, from its settings alone: nothing is sent."""

    plan: dict  # planned_calls: exploration, decomposition, per_obligation, global_review, typical, upper
    obligations: int
    runs: int
    typical_calls: int  # the typical run, both models and the judges
    model: str
    upper_cost_usd: float | None


TYPICAL_OBLIGATIONS = 6  # the skeleton size a dry run assumes


def estimate_research(index, setup: ResearchSetup, with_selection: bool) -> ResearchEstimate:
    from colosseum.loops.review import review_config
    from colosseum.models.provider import Usage

    reviewers = review_config(index.config)[0].reviewers
    plan = planned_calls(setup.config, setup.inner_config, reviewers, TYPICAL_OBLIGATIONS)
    runs = 2 if with_selection else 1
    typical = plan["typical"] * runs + (setup.selection.judges if with_selection else 0)
    model = setup.settings.model_name()
    upper = cost_usd(Usage(input_tokens=typical * 6000, output_tokens=typical * 2000), model, setup.settings.prices)
    return ResearchEstimate(plan, TYPICAL_OBLIGATIONS, runs, typical, model, upper)


def plan_lines(config, inner_config, plan: dict) -> list[str]:
    """The plan that will run, stage by stage, with its calls (what the settings make of it)."""
    widths = ", ".join(map(str, config.exploration_widths))
    how = (f"adaptive: leaves in batches of {config.batch}, widening stops once a batch finds no new fatal "
           f"flaw, so at most these" if config.adaptive_widths
           else "fixed, the paper's" if tuple(config.exploration_widths) == EXPLORATION_WIDTHS
           else "fixed, as configured")
    retries = config.section_retries
    return [
        "The plan:",
        f"  1. explore: widths ({widths}), {how}; {plan['explorers']} explorers + {plan['falsifiers']} falsifiers "
        f"+ {plan['strategy_aggregators']} strategy aggregators (k = {config.k}) = {plan['exploration'] - 1} calls",
        f"  2. readiness gate: {plan['gate']} call, plus one check for each rebuttal it claims of a fatal critique "
        f"of the main route (a fatal critique without a confirmed rebuttal keeps the route from being ready); "
        f"at most {config.max_explorations} explorations",
        f"  3. decompose: {plan['decomposition']} call (at most {config.decomposition_attempts})",
        f"  4. each obligation: the inner loop, {plan['inner_loop']} calls (leaves {inner_config.leaves}, widths "
        f"{tuple(inner_config.widths)}), on the route the plan assigned it, then 1 local review that must answer "
        f"every critique the refuters left standing; a section with a surviving fatal critique fails; up to "
        f"{retries} retr{'y' if retries == 1 else 'ies'}" + (", then a re-cut" if config.redecompose else ""),
        f"  5. global review: {plan['global_review']} calls a round, at most {config.rounds} rounds, each followed "
        f"by a revision or a new exploration",
    ]


def default_output(claim_file: Path, label: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", label).strip("-").lower() or "theorem"
    return claim_file.with_name(f"{claim_file.stem}-{slug}-skeleton.tex")


def input_line(out: Path, root: Path) -> str:
    relative = Path(os.path.relpath(out, root.parent)).as_posix()
    return "\\input{" + (relative[:-4] if relative.endswith(".tex") else relative) + "}"


def skeleton_file_text(result, label: str, out: Path, root: Path, replaces_proof: bool) -> str:
    where = "in place of its empty proof" if replaces_proof else "right after the theorem"
    header = [f"Written by `colosseum research` for {label} (run {Path(str(result.run_dir)).name}, model "
              f"{result.model}, status {result.status}).", f"Put {input_line(out, root)} {where}."]
    header += draft_summary(result)
    header.append("Model review is evidence, not a formal check: read it before relying on it.")
    header.append("Every proof below is a model's draft (its marker says so) until you accept it.")
    body = mark_proofs(result.draft.strip(), Path(str(result.run_dir)).name)
    return "\n".join(f"% {line}" for line in header) + "\n\n" + body + "\n"


def draft_summary(result) -> list[str]:
    """Exactly what the draft holds: which obligations were proved and passed their local review,
    what happened to the others, and what the global review said (if it ran)."""
    obligations = list(result.decomposition.obligations) if result.decomposition is not None else []
    outcomes = result.sections
    passed = [o for o in obligations if outcomes.get(o) is not None and outcomes[o].status == "passed"]
    lines = []
    if obligations and len(passed) == len(obligations):
        lines.append(f"Each of the {len(obligations)} obligations below was proved by the inner loop and passed "
                     "its local review.")
    elif obligations:
        lines.append(f"{len(passed)} of the {len(obligations)} obligations below were proved by the inner loop and "
                     "passed their local review" + (f" ({', '.join(passed)})" if passed else "") + "; the others "
                     "have no reviewed proof:")
        lines += [f"  {o}: {_unproved(outcomes.get(o))}" for o in obligations if o not in passed]
    if result.rounds:
        lines.append(f"Global review: {result.final_verdict} (round {len(result.rounds)}); its report is in the "
                     "run directory.")
    else:
        lines.append("No global review was run on this draft.")
    return lines


def _unproved(outcome) -> str:
    if outcome is None:
        return "never attempted (the run stopped before it)"
    if outcome.status == "blocked":
        return "never attempted (what it rests on did not pass)"
    if outcome.status == "failed" and outcome.attempts:
        return f"did not pass its local review ({outcome.attempts} attempt{'s' if outcome.attempts != 1 else ''})"
    if outcome.status == "failed":
        return "not finished (the run stopped during its first attempt)"
    return outcome.status


@dataclass(frozen=True)
class DraftWritten:
    """What writing the draft file did: ``written`` False when the file appeared meanwhile (the
    draft is then only in the run folder); the catalog entries its reviewed lemmas became, or why
    the catalog could not take them."""

    written: bool
    catalog: list[str] = field(default_factory=list)
    catalog_error: str = ""


def write_draft_file(draft: DraftDocument, result: ResearchResult, out: Path) -> DraftWritten:
    """The submitted draft as the NEW file ``out`` (never over an existing file), then its lemmas
    that passed their local review into the catalog."""
    index, label = draft.index, draft.target
    try:
        with open(out, "x", encoding="utf-8") as handle:  # a new file, never an existing one
            handle.write(skeleton_file_text(result, label, out, index.roots[0], draft.replace_to != draft.offset))
    except FileExistsError:
        return DraftWritten(False)
    try:
        return DraftWritten(True, record_reviewed_lemmas(index, draft, result, out))
    except CatalogNotUpdated as exc:
        return DraftWritten(True, catalog_error=str(exc))


class CatalogNotUpdated(Exception):
    """The catalog could not take the draft's lemmas (the draft itself is written)."""


def record_reviewed_lemmas(index, draft, result, out: Path) -> list[str]:
    """Each lemma of the written draft that passed its local review becomes an observation with
    model-reviewed proof as its evidence (not a result: it is not in the paper until the author
    inputs the draft)."""
    from colosseum.catalog.curator import record_reviewed_proof

    if result.decomposition is None:
        return []
    where = str(out.resolve().relative_to(index.root_dir)) if out.resolve().is_relative_to(index.root_dir) else str(out)
    run_id = Path(str(result.run_dir)).name if result.run_dir else "research"
    written = []
    try:
        for label in result.decomposition.obligations:
            outcome = result.sections.get(label)
            if outcome is None or outcome.status != "passed":
                continue
            described = (f"Proved in research run {run_id} for {result.label} and passed its local review "
                         f"after {outcome.attempts} attempt(s); the global review said {result.final_verdict}. "
                         f"The proof is in the draft {where}. Not yet read by a person.")
            written.append(record_reviewed_proof(catalog_directory(index.root_dir), label, draft.statement(label),
                                                 described, where, run_id, result.model))
    except (OSError, TimeoutError, ValueError, KeyError) as exc:
        raise CatalogNotUpdated(str(exc)) from exc
    return written
