"""One obligation through the inner loop: generate, refute, aggregate.

Every model call goes through a provider; the run is a dataflow with structured concurrency (one
TaskGroup for the run: each node starts when its own inputs are ready; the provider's own
semaphore bounds calls in flight); cancellation propagates through the task group; the seed is recorded, so an unchanged rerun asks the same questions and a response cache
serves it entirely.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from colosseum.core.exception_groups import first_leaf
from colosseum.loops.inner.angles import plan_angles
from colosseum.loops.inner.final_refutation import refute_root
from colosseum.loops.inner.records import (Bundle, Candidate, Critique, Dropped, InnerLoopConfig, SolveResult,
                                           dropped_summary)
from colosseum.loops.inner.refutation import anchored, ask_refuter, limits_of, refuter_critiques  # noqa: F401
from colosseum.loops.inner.resolutions import checked_aggregate
from colosseum.loops.sampling_tree import (aggregator_names, ancestors_reaching, cover_clusters, draw_tree,
                                          strategy_clusters)
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
    # the catalog's computation evidence on the claim (colosseum.catalog.evidence.EvidenceItem):
    # recorded in the run and its report apart from review, never shown to the provers as a proof
    computation: tuple = ()

    def fingerprint(self) -> str:
        material = "\0".join((self.label, self.statement, self.assumable, self.notation, self.catalog, self.previous))
        return hashlib.sha256(material.encode("utf-8")).hexdigest()


async def solve(context: ObligationContext, provider, config: InnerLoopConfig = InnerLoopConfig(),
                progress: Progress | None = None, recorder=None, probes=None) -> SolveResult:
    """The inner loop; ``recorder`` (a RunRecorder) is told after every stage and at the end,
    whether the run finishes, is cancelled, reaches its budget or fails. ``probes`` (a
    colosseum.probe.tool.ProbeTools, for a trusted folder where the sandbox runs) gives the
    refuters ``run_python``; None offers no tool."""
    step = ModelStep(provider, Budget.of_answered_calls(config.max_calls), base={
        "obligation": f"{context.label}: {context.statement}", "assumable": context.assumable or "(none)",
        "notation": context.notation or "(none)", "catalog": context.catalog or "(none)",
        "previous": context.previous})
    seed = config.seed if config.seed is not None else int(context.fingerprint()[:12], 16)
    run = _Run(step, config, progress or (lambda stage, done, total: None), recorder, seed, probes=probes,
               statement=context.statement)
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
    """One run of the inner loop: its model calls, settings, progress, recorder and seed.

    The run is a dataflow over the nodes of the tree, each with a future of its bundle (None when
    it was dropped): a leaf's refuters start as soon as its candidate is ready, and an aggregator
    as soon as the bundles it drew are, never waiting for the rest of its level. The groups are
    drawn before any call (see ``draw_tree``), all tasks live in one TaskGroup, so a failure or a
    cancellation anywhere stops every call in flight; the provider's own semaphore bounds them.
    A step added to a node (a check after an aggregator, say) goes in its ``*_node`` method, its
    call preceded by ``_before_call`` like the others."""

    step: ModelStep
    config: InnerLoopConfig
    report: Progress
    recorder: object
    seed: int
    dropped: list[Dropped] = field(default_factory=list)
    nodes: dict[str, asyncio.Future] = field(default_factory=dict)  # node -> its bundle, or None if dropped
    bundles: dict[str, Bundle] = field(default_factory=dict)  # what is done so far (leaves as they are made)
    tree: list = field(default_factory=list)  # per level: (aggregator, the bundles it drew)
    clusters: list[list[str]] = field(default_factory=list)
    swapped: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # calls done per progress stage
    settled: int = 0  # leaves made and refuted, or dropped
    probes: object = None  # ProbeTools: the refuters get run_python; None: no tool
    statement: str = ""  # the obligation's statement: a counterexample found by execution quotes it
    executions: list[dict] = field(default_factory=list)  # every run of run_python, with the refuter it served

    def _record(self, bundles: dict, groups: list) -> None:
        if self.recorder is not None:
            self.recorder.update(self.seed, bundles, groups, self.step.usage, self.dropped, self.executions)

    def _drop(self, candidate: str, stage: str, reason: str) -> None:
        self.dropped.append(Dropped(candidate, stage, reason))
        self.dropped.sort(key=lambda d: (d.stage != "generation", int(d.candidate[1:])))

    def _before_call(self, stage: str, total: int) -> None:
        """Progress is told again just before each call starts: a cancellation raised by the
        progress callback (research's) then stops the run before its next call, as a barrier
        between stages used to, though another node's call may have finished in between."""
        self.report(stage, self.counts.get(stage, 0), total)

    def _done(self, stage: str, total: int, record: bool = True) -> None:
        """One more node of ``stage`` done: progress is told; the record is rewritten when the
        stage is complete (as often as the level-by-level loop wrote it: each write is synced)."""
        self.counts[stage] = self.counts.get(stage, 0) + 1
        self.report(stage, self.counts[stage], total)
        if record and self.counts[stage] == total:
            self._record(*self._snapshot())

    def _snapshot(self) -> tuple[dict[str, Bundle], list]:
        """The bundles made so far in the tree's order, and the groups of the aggregators that ran, each
        as it was aggregated: a dropped leaf (or an aggregator left with no input) is in no group."""
        bundles = {name: self.bundles[name] for name in self.nodes if name in self.bundles}
        groups = [[(name, [m for m in members if m in bundles]) for name, members in level if name in bundles]
                  for level in self.tree]
        while groups and not groups[-1]:
            groups.pop()
        return bundles, groups

    async def solve(self) -> SolveResult:
        config = self.config
        self.step.budget.refuse_plan(config.planned_calls(), f"this solve needs {config.planned_calls()} model "
                                                             f"calls; the budget is {config.max_calls}")
        if config.widths[0] != config.leaves or config.widths[-1] != 1:
            raise ValueError("widths must start at the number of leaves and end with the single root")
        angle_plan = await plan_angles(self.step, config)
        self.config = config = replace(config, angles=angle_plan.angles)
        rng = random.Random(self.seed)
        leaves = [f"L{i}" for i in range(config.leaves)]
        loop = asyncio.get_running_loop()
        self.nodes = {name: loop.create_future() for name in leaves + sum(aggregator_names(config.widths), [])}
        async with asyncio.TaskGroup() as group:
            for i in range(config.leaves):
                group.create_task(self.leaf_node(i))
            if config.cover_strategies:
                group.create_task(self.draw_when_the_leaves_settle(group, rng))
            else:
                self.start_aggregators(group, draw_tree(leaves, config.widths, config.k, rng))
        root = self.root()
        self.keep_counterexamples(root)
        self._before_call("final refutation", config.final_refuters)
        final = await refute_root(self.step, root, config.final_refuters, self.report, self.refuter)
        return self.result(root, final, angle_plan)

    def keep_counterexamples(self, root: Bundle) -> None:
        """A counterexample found by execution refutes the claim, not one candidate: it joins the
        root's critiques even when the candidate it was found in did not reach the root."""
        present = {c.id for c in root.critiques}
        for bundle in list(self.bundles.values()):
            for critique in bundle.critiques:
                if critique.computational and critique.id not in present:
                    root.critiques.append(critique)
                    present.add(critique.id)

    async def refuter(self, values: dict, proof: str, prefix: str, origin: str):
        """One refuter's call (with run_python when the run offers probes): (the outcome, its
        critiques, or None when the call failed). Every run is kept for the record."""
        outcome, runs, _ = await ask_refuter(self.step, values, self.probes)
        self.executions += [{"refuter": prefix, **run} for run in runs]
        if not outcome.ok:
            return outcome, None
        return outcome, refuter_critiques(outcome.data, proof, self.statement, prefix, origin, runs,
                                          limits_of(self.probes))

    def start_aggregators(self, group: asyncio.TaskGroup, tree: list) -> None:
        self.tree = tree
        for level, drawn in enumerate(tree, start=1):
            for name, members in drawn:
                group.create_task(self.aggregator_node(name, level, members))

    async def draw_when_the_leaves_settle(self, group: asyncio.TaskGroup, rng: random.Random) -> None:
        """Covering the strategy clusters needs every leaf's strategy, so in that mode the tree is
        drawn once every leaf is made and refuted (or dropped); refuters still start at once."""
        settled = [await self.nodes[f"L{i}"] for i in range(self.config.leaves)]
        strategies = {b.id: b.candidate.strategy for b in settled if b is not None}

        def cover(groups: list[list[str]]) -> None:
            for members in groups:  # a dropped leaf is left out of the groups that drew it
                members[:] = [m for m in members if m in strategies]
            self.clusters = strategy_clusters(strategies)
            self.swapped = cover_clusters(groups, self.clusters, rng)

        leaves = [f"L{i}" for i in range(self.config.leaves)]
        self.start_aggregators(group, draw_tree(leaves, self.config.widths, self.config.k, rng, cover))

    def root(self) -> Bundle:
        """The tree's root; no root (every candidate dropped) ends the run as incomplete."""
        root = self.nodes[self.tree[-1][0][0]].result() if self.tree else None
        if root is None:
            self._record({}, [])
            raise RunIncomplete(dropped_summary(self.dropped, self.config.leaves))
        return root

    def result(self, root: Bundle, final: FinalRefutation, angle_plan: AnglePlan) -> SolveResult:
        """The root, everything under it, and what the final round and the angle planner did."""
        bundles, groups = self._snapshot()
        reached = sorted(n for n in ancestors_reaching(root.id, {b.id: b.sources for b in bundles.values()})
                         if bundles[n].level == 0)
        return SolveResult(root, bundles, groups, reached, self.step.usage, self.seed, self.clusters, self.swapped,
                           list(self.dropped), final, angle_plan, list(self.executions))

    async def leaf_node(self, i: int) -> None:
        """Leaf ``i``: its candidate, then its refuters the moment it is ready."""
        self._before_call("generating", self.config.leaves)
        candidate = await self.generate_one(i)
        bundle = None
        if candidate is not None:
            self.bundles[candidate.id] = Bundle(candidate.id, 0, candidate)
        self._done("generating", self.config.leaves)
        if candidate is not None:
            bundle = await self.refute_node(candidate)
        self.nodes[f"L{i}"].set_result(bundle)
        self.settled += 1
        if self.settled == self.config.leaves:
            self._record(*self._snapshot())

    async def refute_node(self, candidate: Candidate) -> Bundle | None:
        """R adversarial reviewers of one candidate; their critiques attach to it (in referee order).
        One failed refutation drops the candidate: unrefuted is not the same as unread."""
        per_candidate = self.config.refuters_per_candidate

        def planned() -> int:
            return (self.config.leaves - sum(d.stage == "generation" for d in self.dropped)) * per_candidate

        async def one(r: int) -> list[Critique] | None:
            self._before_call("refuting", planned())
            critiques = await self.refute_one(candidate, r)
            self._done("refuting", planned(), record=False)  # recorded once the leaves are settled
            return critiques

        async with asyncio.TaskGroup() as group:
            refutations = [group.create_task(one(r)) for r in range(per_candidate)]
        if any(d.candidate == candidate.id for d in self.dropped):
            del self.bundles[candidate.id]
            return None
        bundle = Bundle(candidate.id, 0, candidate, [c for task in refutations for c in task.result()])
        self.bundles[candidate.id] = bundle
        return bundle

    async def aggregator_node(self, name: str, level: int, members: list[str]) -> None:
        """Aggregator ``name`` once the bundles it drew are ready (a dropped one is left out; with
        none left it is skipped, and its own parents do without it)."""
        inputs = [bundle for bundle in [await self.nodes[m] for m in members] if bundle is not None]
        stage, bundle = f"aggregating level {level} of {len(self.config.widths) - 1}", None
        if inputs:
            self._before_call(stage, self.config.widths[level])
            bundle = await self.aggregate_one(name, level, inputs)
            self.bundles[name] = bundle
        self._done(stage, self.config.widths[level])
        self.nodes[name].set_result(bundle)

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
        outcome, critiques = await self.refuter({"candidate": candidate.proof,
                                                 "slot": f"referee {r + 1} of candidate {candidate.id}"},
                                                candidate.proof, f"{candidate.id}.r{r}", candidate.id)
        if critiques is None:
            if all(d.candidate != candidate.id for d in self.dropped):
                self._drop(candidate.id, "refutation", outcome.failure)
        return critiques

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
    if critique.computational:
        return " [a counterexample found by running code: it quotes the claim's statement]"
    if critique.origin and critique.origin != bundle:
        found = "found" if critique.anchored else "NOT found"
        return f" [carried from {critique.origin}: its quote was {found} there]"
    return "" if critique.anchored else " [quote not found in the candidate]"
