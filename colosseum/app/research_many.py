"""Several theorems researched together in one process (``research --labels a,b``).

Each theorem is a research run of its own, with its own folder, record, budget and draft file,
exactly as a single ``research`` makes it; what they share is the provider under their answer
caches. Interactive, that bounds the calls in flight for all of them together; with ``--batch``
the stage's calls of every run are parked together and go out as one batch (``models.batching``),
so two theorems cost about as many batches as one, not twice as many.

The exit code is the worst of the runs' by ``WORST_FIRST`` (colosseum.app.solve_many): 130
interrupted, then 2 (a run refused on the way), 1 not accepted, 0 only when every draft was
accepted. A label that cannot take a draft refuses the whole command before any call (2).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from colosseum.app.research import (ResearchOutcome, ResearchRuns, ResearchSetup, default_output, research_setup,
                                    research_target, start_research)
from colosseum.app.run_settings import RunOverrides
from colosseum.app.solve_many import worst_exit
from colosseum.app.stops import RunRefused, StopReason
from colosseum.loops.inner.run_record import run_directory
from colosseum.loops.research.draft import DraftDocument


@dataclass
class ResearchTarget:
    """One theorem of the command: its draft document, its own settings and budget, where its draft goes."""

    label: str
    draft: DraftDocument
    setup: ResearchSetup
    out: Path


def plan_research_many(index, labels: list[str], overrides: RunOverrides, rounds: int | None = None,
                       open_index: Callable[[], object] | None = None) -> list[ResearchTarget]:
    """Every label's run set up (each with its own budget); raises RunRefused, before any call, when
    there is no label, one cannot take a draft, or its draft file exists already. ``open_index``
    opens another index of the project: each run overlays its draft on the index it works on, so
    the second and later theorems each get their own (one index shared, a run would read another's
    skeleton)."""
    if not labels:
        raise RunRefused("--labels names no theorem")
    for label in labels:  # every label checked before any index is opened again
        draft = research_target(index, label)
        out = default_output(draft.file, label)
        if out.exists():
            raise RunRefused(f"{out} exists; the research pipeline never overwrites a file")
    targets = []
    for n, label in enumerate(labels):
        own = index if n == 0 or open_index is None else open_index()
        draft = research_target(own, label)
        targets.append(ResearchTarget(label, draft, research_setup(own, overrides, rounds),
                                      default_output(draft.file, label)))
    return targets


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


def start_many(index, targets: list[ResearchTarget]) -> ManyResearchRun:
    """One provider for every run (raises ProviderError), each run behind its own answer cache."""
    folders = [run_directory(index.root_dir, f"research-{target.label}") for target in targets]
    for folder in folders:  # run_directory picks a free name; taking it keeps the next label's apart
        folder.mkdir(parents=True, exist_ok=True)
    shared = targets[0].setup.settings.shared_provider(folders)
    runs = [start_research(target.setup, target.draft, directory=folder, shared=shared)
            for target, folder in zip(targets, folders)]
    return ManyResearchRun(runs, shared[0])


def many_research_summary(outcomes: list[ResearchOutcome], root_dir: Path, batches: int | None) -> dict:
    """One object: a row per theorem (status, calls, cost, run folder) and the totals."""
    rows = []
    for outcome in outcomes:
        result = outcome.result
        rows.append({"label": outcome.label,
                     "status": result.status if result is not None else "stopped",
                     "message": (result.message if result is not None else
                                 outcome.stop.detail if outcome.stop is not None else ""),
                     "calls": outcome.calls, "response_cache_hits": outcome.cache_hits,
                     "cost_usd": outcome.cost_usd, "run": _relative(outcome.directory, root_dir),
                     "exit_code": exit_code(outcome)})
    costs = [row["cost_usd"] for row in rows if row["calls"]]
    totals = {"theorems": len(rows), "accepted": sum(1 for row in rows if row["status"] == "accepted"),
              "calls": sum(row["calls"] for row in rows),
              "response_cache_hits": sum(row["response_cache_hits"] for row in rows),
              "cost_usd": None if None in costs else round(sum(costs), 6), "batches": batches,
              "exit_code": worst_exit(row["exit_code"] for row in rows)}
    return {"runs": rows, "totals": totals}


def _relative(path: Path, root: Path) -> str:
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return str(path)
