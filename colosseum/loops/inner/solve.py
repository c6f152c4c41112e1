"""One obligation through the inner loop: generate, refute, aggregate.

Every model call goes through a provider; concurrency is structured (one TaskGroup per stage, the
provider's own semaphore bounds calls in flight); cancellation propagates through the task
groups; the seed is recorded, so an unchanged rerun asks the same questions and a response cache
serves it entirely.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from colosseum.core.exception_groups import first_leaf
from colosseum.loops.inner.angles import plan_angles
from colosseum.loops.inner.final_refutation import refute_root
from colosseum.loops.inner.records import (Bundle, Candidate, Critique, Dropped, InnerLoopConfig, SolveResult,
                                           dropped_summary)
from colosseum.loops.inner.resolutions import checked_aggregate
from colosseum.loops.sampling_tree import ancestors_reaching, cover_clusters, draw_groups, strategy_clusters
from colosseum.models.budget import Budget
from colosseum.models.errors import BudgetReached, RunIncomplete, SolveCancelled
from colosseum.models.provider import ProviderError
from colosseum.models.step import ModelStep

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True)
class ObligationContext:
    """What the provers see: quoted as data in the prompts, never as instructions."""

    label: str
    statement: str
    assumable: str = ""  # statements (not proofs) of the results that do not depend on it
    notation: str = ""
    catalog: str = ""
    previous: str = "(none)"
    catalog_tokens: int = 0  # what the catalog took of the prompt (recorded in the run)
    catalog_entries: tuple[str, ...] = ()

    def fingerprint(self) -> str:
        material = "\0".join((self.label, self.statement, self.assumable, self.notation, self.catalog, self.previous))
        return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def anchored(quote: str, text: str) -> bool:
    """A critique is anchored when its quoted span is in the candidate (modulo whitespace)."""
    return bool(quote.strip()) and _normalize(quote) in _normalize(text)


async def solve(context: ObligationContext, provider, config: InnerLoopConfig = InnerLoopConfig(),
                progress: Progress | None = None, recorder=None) -> SolveResult:
    """The inner loop; ``recorder`` (a RunRecorder) is told after every stage and at the end,
    whether the run finishes, is cancelled, reaches its budget or fails."""
    step = ModelStep(provider, Budget.of_answered_calls(config.max_calls), base={
        "obligation": f"{context.label}: {context.statement}", "assumable": context.assumable or "(none)",
        "notation": context.notation or "(none)", "catalog": context.catalog or "(none)",
        "previous": context.previous})
    seed = config.seed if config.seed is not None else int(context.fingerprint()[:12], 16)
    run = _Run(step, config, progress or (lambda stage, done, total: None), recorder, seed)
    try:
        result = await run.solve()
    except asyncio.CancelledError:
        if recorder is not None:
            recorder.finish("cancelled", step.usage)
        raise
    except BaseException as exc:
        if recorder is not None:
            status = ("budget-stopped" if first_leaf(exc, BudgetReached) is not None else
                      "cancelled" if first_leaf(exc, _CANCELLED) is not None else
                      "incomplete" if first_leaf(exc, _REQUIRED_CALL_FAILED) is not None else "failed")
            recorder.finish(status, step.usage)
        raise
    if recorder is not None:
        recorder.finish("done", result.usage, result)
    return result


_CANCELLED: tuple = (asyncio.CancelledError, SolveCancelled)
_REQUIRED_CALL_FAILED: tuple = (RunIncomplete, ProviderError)  # no candidate left, or an aggregation failed


@dataclass
class _Run:
    """One run of the inner loop: its model calls, settings, progress, recorder and seed."""

    step: ModelStep
    config: InnerLoopConfig
    report: Progress
    recorder: object
    seed: int
    dropped: list[Dropped] = field(default_factory=list)

    def _record(self, bundles: dict, groups: list) -> None:
        if self.recorder is not None:
            self.recorder.update(self.seed, bundles, groups, self.step.usage, self.dropped)

    def _drop(self, candidate: str, stage: str, reason: str) -> None:
        self.dropped.append(Dropped(candidate, stage, reason))

    def _survivors(self, candidates: list[Candidate]) -> list[Candidate]:
        """The candidates not dropped; none left ends the run as incomplete."""
        self.dropped.sort(key=lambda d: (d.stage != "generation", int(d.candidate[1:])))
        gone = {d.candidate for d in self.dropped}
        left = [c for c in candidates if c.id not in gone]
        if not left:
            self._record({}, [])
            raise RunIncomplete(dropped_summary(self.dropped, self.config.leaves))
        return left

    async def solve(self) -> SolveResult:
        config = self.config
        self.step.budget.refuse_plan(config.planned_calls(), f"this solve needs {config.planned_calls()} model "
                                                             f"calls; the budget is {config.max_calls}")
        if config.widths[0] != config.leaves or config.widths[-1] != 1:
            raise ValueError("widths must start at the number of leaves and end with the single root")
        angle_plan = await plan_angles(self.step, config)
        self.config = config = replace(config, angles=angle_plan.angles)
        rng = random.Random(self.seed)
        candidates = self._survivors(await self.generate())
        self._record({c.id: Bundle(c.id, 0, c) for c in candidates}, [])
        bundles = await self.refute(candidates)
        candidates = self._survivors(candidates)
        bundles = {c.id: bundles[c.id] for c in candidates}
        self._record(bundles, [])
        current = [c.id for c in candidates]
        groups_per_level: list[list[tuple[str, list[str]]]] = []
        clusters: list[list[str]] = []
        swapped: list[str] = []
        for level, width in enumerate(self.config.widths[1:], start=1):
            groups = draw_groups(current, width, self.config.k, rng)
            if level == 1 and self.config.cover_strategies:
                clusters = strategy_clusters({c.id: c.strategy for c in candidates})
                swapped = cover_clusters(groups, clusters, rng)
            names = [f"A{level}.{i}" for i in range(width)]
            groups_per_level.append(list(zip(names, groups)))
            await self.aggregate_level(level, names, groups, bundles)
            current = names
            self._record(bundles, groups_per_level)
        root = bundles[current[0]]
        final = await refute_root(self.step, root, config.final_refuters, self.report)
        reached = sorted(n for n in ancestors_reaching(root.id, {b.id: b.sources for b in bundles.values()})
                         if bundles[n].level == 0)
        return SolveResult(root, bundles, groups_per_level, reached, self.step.usage, self.seed, clusters, swapped,
                           list(self.dropped), final, angle_plan)

    async def generate(self) -> list[Candidate]:
        """N leaves, each from a different angle; a leaf whose call failed is dropped (recorded)."""
        leaves = self.config.leaves
        done = 0

        async def one(i: int) -> Candidate | None:
            nonlocal done
            candidate = await self.generate_one(i)
            done += 1
            self.report("generating", done, leaves)
            return candidate

        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(i)) for i in range(leaves)]
        return [t.result() for t in tasks if t.result() is not None]

    async def refute(self, candidates: list[Candidate]) -> dict[str, Bundle]:
        """R adversarial reviewers per candidate; critiques attach to their candidate."""
        per_candidate = self.config.refuters_per_candidate
        total = len(candidates) * per_candidate
        done = 0

        async def one(candidate: Candidate, r: int) -> list[Critique]:
            nonlocal done
            critiques = await self.refute_one(candidate, r)
            done += 1
            self.report("refuting", done, total)
            return critiques or []

        async with asyncio.TaskGroup() as group:
            refutations = {(c.id, r): group.create_task(one(c, r)) for c in candidates for r in range(per_candidate)}
        return {c.id: Bundle(c.id, 0, c, [crit for r in range(per_candidate)
                                          for crit in refutations[(c.id, r)].result()])
                for c in candidates}

    async def aggregate_level(self, level: int, names: list[str], groups: list[list[str]],
                              bundles: dict[str, Bundle]) -> None:
        """One level of the overlapping random-sampling tree; its bundles are added to ``bundles``."""
        self.report(f"aggregating level {level} of {len(self.config.widths) - 1}", 0, len(names))
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(self.aggregate_one(n, level, [bundles[m] for m in g]))
                     for n, g in zip(names, groups)]
        for task in tasks:
            bundle = task.result()
            bundles[bundle.id] = bundle

    # One node of the run each: the orchestration above decides when they run, these what they do.

    async def generate_one(self, i: int) -> Candidate | None:
        """Leaf ``i`` from its angle; None (the leaf dropped, recorded) when its call failed."""
        leaves = self.config.leaves
        angle = self.config.angles[i % len(self.config.angles)]
        outcome = await self.step.call("generator", {"angle": angle, "slot": f"prover {i + 1} of {leaves}"})
        if not outcome.ok:
            self._drop(f"L{i}", "generation", outcome.failure)
            return None
        return Candidate(f"L{i}", outcome.data.get("proof", ""), outcome.data.get("strategy", ""), angle)

    async def refute_one(self, candidate: Candidate, r: int) -> list[Critique] | None:
        """Referee ``r``'s critiques of ``candidate``; None when its call failed, and the candidate
        is then dropped (recorded): unrefuted is not the same as unread."""
        outcome = await self.step.call("refuter", {"candidate": candidate.proof,
                                                   "slot": f"referee {r + 1} of candidate {candidate.id}"})
        if not outcome.ok:
            if all(d.candidate != candidate.id for d in self.dropped):
                self._drop(candidate.id, "refutation", outcome.failure)
            return None
        return [Critique(f"{candidate.id}.r{r}.{j}", c.get("severity", "major"), c.get("kind", "other"),
                         c.get("quote", ""), c.get("explanation", ""), c.get("repair", ""),
                         anchored(c.get("quote", ""), candidate.proof), candidate.id)
                for j, c in enumerate(outcome.data.get("critiques", []))]

    async def aggregate_one(self, name: str, level: int, inputs: list[Bundle]) -> Bundle:
        """Aggregator ``name`` of ``level`` over its input bundles."""
        data = await self.step.ask("aggregator", {"bundles": render_bundles(inputs), "slot": f"aggregator {name}"})
        return await checked_aggregate(self.step, name, level, inputs, data)  # resolutions checked: resolutions.py


def render_bundles(bundles: list[Bundle]) -> str:
    parts = []
    for b in bundles:
        lines = [f"## Candidate {b.id}" + (f" (strategy: {b.candidate.strategy})" if b.candidate.strategy else ""),
                 b.candidate.proof, "", "Critiques attached to it:"]
        if not b.critiques:
            lines.append("(none)")
        for c in b.critiques:
            lines.append(f"- [{c.id}] {c.severity} {c.kind}{quote_flag(c, b.id)}: \"{c.quote}\" -- {c.explanation}"
                         + (f" Repair: {c.repair}" if c.repair else ""))
        for conflict in b.conflicts:
            lines.append(f"- open conflict: {conflict}")
        if b.alternative is not None:
            lines += ["", f"Competing proof kept beside it by {b.id} (the critiques above were not checked "
                      "against it):", b.alternative.proof]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def quote_flag(critique: Critique, bundle: str) -> str:
    """Where a critique's quote was looked for: a critique carried up from a lower level says the
    candidate it was written against, and whether its quote was found there."""
    if critique.origin and critique.origin != bundle:
        found = "found" if critique.anchored else "NOT found"
        return f" [carried from {critique.origin}: its quote was {found} there]"
    return "" if critique.anchored else " [quote not found in the candidate]"
