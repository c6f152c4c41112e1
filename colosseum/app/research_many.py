"""Several theorems researched together in one process (``research --labels a,b``).

Each theorem is a research run of its own, with its own folder, record, budget and draft file,
exactly as a single ``research`` makes it; what they share is the provider under their answer
caches. Interactive, that bounds the calls in flight for all of them together; with ``--batch``
the stage's calls of every run are parked together and go out as one batch (``models.batching``),
so two theorems cost about as many batches as one, not twice as many. With ``--select-with`` each
theorem runs with both models, and model B's runs share a provider of their own the same way;
``--resume RUN,RUN`` continues each run for the theorem its record names (one model for all).

The exit code is the worst of the runs' by ``WORST_FIRST`` (colosseum.app.solve_many): 130
interrupted, then 2 (a run refused on the way), 1 not accepted, 0 only when every draft was
accepted. A label that cannot take a draft refuses the whole command before any call (2).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from colosseum.app.research import (DraftWritten, ResearchOutcome, ResearchRuns, ResearchSetup, ResumedResearch,
                                    SecondModel, default_output, research_setup, research_target, research_to_resume,
                                    start_research)
from colosseum.app.run_settings import RunOverrides, RunSettings
from colosseum.app.solve_many import worst_exit
from colosseum.app.stops import RunRefused, StopReason
from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.loops.inner.run_record import run_directory
from colosseum.loops.research.draft import DraftDocument


@dataclass
class ResearchTarget:
    """One theorem of the command: its draft document, its own settings and budget, where its draft
    goes, and the folder of the run it continues (``--resume``; None: a new run)."""

    label: str
    draft: DraftDocument
    setup: ResearchSetup
    out: Path
    directory: Path | None = None


@dataclass(frozen=True)
class ManyOptions:
    """What the command line sets for every theorem alike (None: colosseum.toml's or the default)."""

    rounds: int | None = None
    judges: int | None = None
    threshold: int | None = None
    resume: tuple[str, ...] = ()  # runs to continue, each for the theorem its record names


def plan_research_many(index, labels: list[str], overrides: RunOverrides, options: ManyOptions = ManyOptions(),
                       open_index: Callable[[], object] | None = None) -> list[ResearchTarget]:
    """Every label's run set up (each with its own budget); raises RunRefused, before any call, when
    there is no label, one cannot take a draft, its draft file exists already, or a run to resume is
    not one of these theorems' resumable runs. ``open_index`` opens another index of the project:
    each run overlays its draft on the index it works on, so the second and later theorems each get
    their own (one index shared, a run would read another's skeleton)."""
    if not labels:
        raise RunRefused("--labels names no theorem")
    for label in labels:  # every label checked before any index is opened again
        draft = research_target(index, label)
        out = default_output(draft.file, label)
        if out.exists():
            raise RunRefused(f"{out} exists; the research pipeline never overwrites a file")
    resumed = _resumed_by_label(index, labels, options.resume, RunSettings.of(index, overrides).model_name())
    targets = []
    for n, label in enumerate(labels):
        own = index if n == 0 or open_index is None else open_index()
        draft = research_target(own, label)
        again = resumed.get(label)
        setup = research_setup(own, again.overrides(overrides) if again else overrides, options.rounds,
                               options.judges, options.threshold)
        targets.append(ResearchTarget(label, draft, again.setup(setup) if again else setup,
                                      default_output(draft.file, label), again.folder if again else None))
    return targets


def _resumed_by_label(index, labels: list[str], runs, model: str) -> dict[str, ResumedResearch]:
    """The runs to resume by the theorem each one recorded: at most one per label, each of ``labels``,
    each resumable and of the model the theorems share (one provider serves them all)."""
    from colosseum.app.runs import runs_by_label

    by_label: dict[str, ResumedResearch] = {}
    for label, (run, folder) in runs_by_label(index.root_dir, labels, runs, "researched").items():
        again = research_to_resume(index, label, run)
        if again.model and again.model != model:
            raise RunRefused(f"run {folder.name} used {again.model}, and the theorems of --labels share one "
                             f"model ({model}): pass --model {again.model}")
        by_label[label] = again
    return by_label


def exit_code(outcome: ResearchOutcome) -> int:
    """One run's exit code, as a single ``research`` gives it."""
    if outcome.result is None:
        if outcome.stop is not None and outcome.stop.cancelled:
            return 130
        return 2 if outcome.stop is not None and outcome.stop.kind == "refused" else 1
    return 0 if outcome.result.status == "accepted" else 1


@dataclass
class ManyResearchRun:
    runs: list[ResearchRuns]
    provider: object  # the shared one (a BatchingProvider with --batch)
    second_provider: object = None  # model B's shared one (--select-with)
    finished: dict[str, ResearchOutcome] = field(default_factory=dict)

    async def run(self, progress) -> list[ResearchOutcome]:
        """Every run to its end, together; each stops on its own (its outcome says why)."""
        async def one(runs: ResearchRuns) -> ResearchOutcome:
            label = runs.draft.target

            def named(event) -> None:
                event.model = label  # the progress line names the theorem
                progress(event)
            outcome = await runs.run(named)
            self.finished[label] = outcome
            return outcome

        return list(await asyncio.gather(*(one(runs) for runs in self.runs)))

    def stopped(self, reason: StopReason) -> list[ResearchOutcome]:
        """Interrupted: the runs that had finished keep their outcome, the others stop with ``reason``."""
        return [self.finished.get(runs.draft.target) or runs.outcome(stop=reason) for runs in self.runs]


def start_many(index, targets: list[ResearchTarget], second: SecondModel | None = None) -> ManyResearchRun:
    """One provider for every run (raises ProviderError), each run behind its own answer cache; with
    ``second`` (``--select-with``) one more for model B's runs, each on an index of its own."""
    folders = [target.directory or run_directory(index.root_dir, f"research-{target.label}") for target in targets]
    for folder in folders:  # run_directory picks a free name; taking it keeps the next label's apart
        folder.mkdir(parents=True, exist_ok=True)
    settings = targets[0].setup.settings
    shared = settings.shared_provider(folders)
    shared_second = settings.shared_provider(folders, second.model) if second is not None else None
    runs = [start_research(target.setup, target.draft, second, directory=folder, shared=shared,
                           shared_second=shared_second)
            for target, folder in zip(targets, folders)]
    return ManyResearchRun(runs, shared[0], shared_second[0] if shared_second is not None else None)


def research_summary(outcome: ResearchOutcome, root_dir: Path, out: Path | None = None,
                     written: DraftWritten | None = None) -> dict:
    """What a research run concluded, as one JSON object (``research --format json``): the status,
    the draft file written (``out``, None when none was), the obligations that passed their local
    review, the selection, why it stopped, its folder and report, and what each model spent."""
    result = outcome.result
    passed = None
    if result is not None and result.decomposition is not None:
        labels = result.decomposition.obligations
        passed = {"passed": sum(1 for o in labels if result.sections.get(o) is not None
                                and result.sections[o].status == "passed"), "total": len(labels)}
    picked = outcome.selection
    return {
        "schema_version": SCHEMA_VERSION, "label": outcome.label,
        "status": result.status if result is not None else "stopped",
        "message": result.message if result is not None else outcome.stop.detail if outcome.stop is not None else "",
        "draft": _relative(out, root_dir) if written is not None and written.written else None,
        "catalog": list(written.catalog) if written is not None else [],
        "obligations": passed,
        "selection": None if picked is None else {
            "chosen": picked.chosen, "failure": picked.failure or None,
            "reason": picked.picked.reason if picked.picked is not None else None},
        "stopped": None if outcome.stop is None else {"kind": outcome.stop.kind, "detail": outcome.stop.detail},
        "run": _relative(outcome.directory, root_dir), "report": _relative(outcome.report, root_dir),
        "usage": {"calls": outcome.calls, "response_cache_hits": outcome.cache_hits, "cost_usd": outcome.cost_usd,
                  "by_model": [{"model": r.model, "calls": r.calls, "response_cache_hits": r.cache_hits,
                                "cost_usd": r.cost_usd} for r in outcome.runs]},
        "exit_code": exit_code(outcome),
    }


def many_research_summary(outcomes: list[ResearchOutcome], root_dir: Path, batches: int | None,
                          drafts: dict[str, tuple[Path, DraftWritten | None]] | None = None) -> dict:
    """One object: each run's ``research --format json`` object in ``runs`` (``drafts``: each label's
    draft file and what writing it did), and the totals."""
    drafts = drafts or {}
    runs = [research_summary(outcome, root_dir, *drafts.get(outcome.label, (None, None))) for outcome in outcomes]
    costs = [run["usage"]["cost_usd"] for run in runs if run["usage"]["calls"]]
    totals = {"theorems": len(runs), "accepted": sum(1 for run in runs if run["status"] == "accepted"),
              "calls": sum(run["usage"]["calls"] for run in runs),
              "response_cache_hits": sum(run["usage"]["response_cache_hits"] for run in runs),
              "cost_usd": None if None in costs else round(sum(costs), 6), "batches": batches,
              "exit_code": worst_exit(run["exit_code"] for run in runs)}
    return {"runs": runs, "totals": totals}


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return str(path)
