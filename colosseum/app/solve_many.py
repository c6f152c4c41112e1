"""Several obligations solved together in one process (``solve --labels a,b,c``, ``--all-obligations``).

Each obligation is a run of its own, with its own folder, record and report, exactly as a single
``solve`` makes it; what they share is the provider under their answer caches. Interactive, that
bounds the calls in flight for all of them together (``[models] max_concurrency``); with
``--batch`` the stage's calls of every obligation are parked together and go out as one batch
(``models.batching``), so N obligations cost as many batches as one, not N times as many. Every
batch is stored in each run's ``batches.json``; resuming the same runs together fetches the batch
that was out when they stopped.

The exit code is the worst of the runs' by ``WORST_FIRST``: 130 interrupted, then 2 (a run refused
on the way), 1 incomplete, 3 refuted, 0 only when every obligation is unrefuted. A label that is
not an obligation refuses the whole command, before any call (2).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.app.run_settings import RunOverrides
from colosseum.app.solve import (SolveOutcome, SolvePlan, SolveRun, StageProgress, has_its_proof, plan_resume, plan_solve,
                                 solve_summary)
from colosseum.app.stops import RunRefused, StopReason

# the exit codes of several runs, worst first: the command exits with the first one any run has
WORST_FIRST = (130, 2, 1, 3, 0)


def worst_exit(codes) -> int:
    codes = set(codes)
    return next((code for code in WORST_FIRST if code in codes), 0)


def label_list(text: str) -> list[str]:
    """``a, b,,a`` -> [a, b]: the labels in the order given, each once."""
    return list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


def obligation_labels(index) -> list[str]:
    """Every claim marked as an obligation and not yet proved, in reading order (``--all-obligations``)."""
    return [label for label, claim in sorted(index.claims.items(), key=lambda item: item[1].order)
            if claim.obligation and not has_its_proof(claim)]


@dataclass(frozen=True)
class ManyEstimate:
    """A dry run's sum over the obligations."""

    calls: int
    maximum_calls: int
    input_tokens: int
    output_tokens: int
    upper_cost_usd: float | None


@dataclass
class ManySolvePlan:
    plans: list[SolvePlan]

    @property
    def settings(self):
        return self.plans[0].settings

    def estimate(self) -> ManyEstimate:
        each = [plan.estimate() for plan in self.plans]
        costs = [e.upper_cost_usd for e in each]
        return ManyEstimate(sum(e.calls for e in each), sum(e.maximum_calls for e in each),
                            sum(e.input_tokens for e in each), sum(e.output_tokens for e in each),
                            None if None in costs else sum(costs))

    def start(self) -> "ManySolveRun":
        """One provider for every run (raises ProviderError), each run behind its own answer cache."""
        folders = [plan.run_folder() for plan in self.plans]
        shared = self.settings.shared_provider(folders)
        return ManySolveRun([plan.start(plan.formal_evidence(), shared) for plan in self.plans], shared[0])


def plan_many(index, labels: list[str], overrides: RunOverrides, resume: list[str] = ()) -> ManySolvePlan:
    """Every label planned (or, named in ``resume``, its run planned again); raises RunRefused, before
    any call, when one label is no obligation, a run is not resumable, or it solved none of ``labels``."""
    if not labels:
        raise RunRefused("no obligations to solve (mark a claim with \\obligation or a line "
                         "`% colosseum: obligation`)")
    runs = _runs_by_label(index, labels, resume)
    return ManySolvePlan([plan_resume(index, label, runs[label], overrides) if label in runs
                          else plan_solve(index, label, overrides) for label in labels])


def _runs_by_label(index, labels: list[str], resume) -> dict[str, str]:
    """The runs to resume, by the label each one recorded: at most one per label, each of ``labels``."""
    from colosseum.app.runs import runs_by_label

    return {label: run for label, (run, _) in runs_by_label(index.root_dir, labels, resume, "solved").items()}


@dataclass
class ManySolveRun:
    runs: list[SolveRun]
    provider: object  # the shared one (a BatchingProvider with --batch)
    finished: dict[str, SolveOutcome] = field(default_factory=dict)

    async def run(self, progress: StageProgress) -> list[SolveOutcome]:
        """Every run to its end, together; each stops on its own (its outcome says why)."""
        async def one(run: SolveRun) -> SolveOutcome:
            label = run.plan.label
            outcome = await run.run(lambda stage, done, total: progress(f"{label}: {stage}", done, total))
            self.finished[label] = outcome
            return outcome

        return list(await asyncio.gather(*(one(run) for run in self.runs)))

    def stopped(self, reason: StopReason) -> list[SolveOutcome]:
        """Interrupted: the runs that had finished keep their outcome, the others stop with ``reason``."""
        return [self.finished.get(run.plan.label) or run.outcome(stop=reason) for run in self.runs]


def many_summary(outcomes: list[SolveOutcome], plans: list[SolvePlan], root_dir: Path, batches: int | None) -> dict:
    """One JSON object: each run's ``solve --format json`` object in ``runs``, and the totals."""
    runs = [solve_summary(outcome, root_dir, plan.settings.prices, plan.context.computation)
            for outcome, plan in zip(outcomes, plans)]
    costs = [run["usage"]["cost_usd"] for run in runs if run["usage"]["calls"]]
    verdicts = {verdict: sum(1 for run in runs if run["verdict"] == verdict)
                for verdict in ("unrefuted", "refuted", "incomplete")}
    totals = {"obligations": len(runs), **verdicts,
              "calls": sum(run["usage"]["calls"] for run in runs),
              "input_tokens": sum(run["usage"]["input_tokens"] for run in runs),
              "output_tokens": sum(run["usage"]["output_tokens"] for run in runs),
              "response_cache_hits": sum(run["usage"]["response_cache_hits"] for run in runs),
              "cost_usd": None if None in costs else round(sum(costs), 6),
              "batches": batches, "exit_code": worst_exit(outcome.exit_code for outcome in outcomes)}
    return {"runs": runs, "totals": totals}
