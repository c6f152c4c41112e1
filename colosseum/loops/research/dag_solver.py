"""Stage 4, solve the DAG: each obligation of the skeleton through the inner loop, then its
local review; a section that fails is retried alone with its failed draft and the critique,
all other finished work kept. An obligation starts once every obligation it rests on (its
ancestors in the DAG the index reads from the draft) has passed, which is generation by
generation when sections take equally long and never later; independent ones run in parallel
under a semaphore, in one task group.

Beyond the paper: a section that fails all its retries may be re-cut (decomposition.redecompose)
into smaller lemmas; the new obligations and the failed one are then solved in a further pass,
and everything that waited on it is released. Passes are bounded by the re-decomposition limit."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

from colosseum.loops.inner import RunRecorder, obligation_context, solve
from colosseum.models.metered import stage
from colosseum.loops.research.records import ResearchConfig, SectionOutcome, routed_inner_config
from colosseum.probe.tool import ProbeDecision
from colosseum.loops.research.review_adapter import carried_critiques, critique_json, section_gate


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", label)[:80]


class DagSolver:
    def __init__(self, draft, provider, config: ResearchConfig, inner_config, reviews, *, catalog=None,
                 run_dir: Path | None = None, model: str = "", prices: dict | None = None,
                 progress: Callable[[str, tuple, int, int, str], None] | None = None, redecompose=None,
                 routes: dict[str, str] | None = None, default_route: str = "", probes=None):
        self.draft, self.provider, self.config, self.inner_config = draft, provider, config, inner_config
        self.reviews, self.catalog, self.run_dir, self.model, self.prices = reviews, catalog, run_dir, model, prices
        self.progress = progress or (lambda stage, frontier, done, total, detail: None)
        self.redecompose = redecompose  # async (label, attempts_text) -> (done, reason, problems)
        self.routes = dict(routes or {})  # obligation label -> the route the plan assigned it
        self.default_route = default_route
        self.probes = probes  # ProbeTools: the sections' refuters run code in the sandbox; None: no tool
        self.outcomes: dict[str, SectionOutcome] = {}
        self.redecompositions: list[dict] = []
        self.frontier: list[str] = []
        self._counts = {"done": 0, "total": 0}  # sections finished / to solve in the current pass

    # ---- one section ---------------------------------------------------------------------------
    def _recorder(self, label: str, attempt: int, context):
        if self.run_dir is None:
            return None
        directory = self.run_dir / "sections" / f"{_slug(label)}-{attempt}"
        hits = lambda: getattr(self.provider, "hits", 0)  # noqa: E731
        probes = ProbeDecision(self.probes, "" if self.probes else "the research run offers no probes").record()
        return RunRecorder(directory, label, self.inner_config, self.model, self.prices, hits, context, probes=probes)

    async def solve_section(self, label: str, generation: int) -> SectionOutcome:
        outcome = self.outcomes.setdefault(label, SectionOutcome(label, "failed", generation=generation))
        outcome.generation = generation
        index = self.draft.index
        context = obligation_context(index, label, self.catalog)
        attempt = outcome.attempts
        # every step of the inner loop and of the review reports, so a cancellation (raised by the
        # progress callback) stops the section at once instead of after its last call
        steps = self._section_progress(label)
        inner_config = self.section_config(label)
        result = await solve(context, self.provider, inner_config, steps, self._recorder(label, attempt, context),
                             self.probes)
        outcome.attempts += 1
        review = await self._review(label, result, steps)
        self._note(outcome, result, review)
        for _ in range(self.config.section_retries):
            if review.passed:
                break
            attempt = outcome.attempts
            result = await self.reviews.retry(self.draft.index, label, review, inner_config, self.catalog,
                                              steps, self._recorder(label, attempt, None), probes=self.probes)
            outcome.attempts += 1
            review = await self._review(label, result, steps)
            self._note(outcome, result, review)
        outcome.proof = result.root.candidate.proof
        outcome.status = "passed" if review.passed else "failed"
        if review.passed:
            try:
                self.draft.fill(label, outcome.proof)  # the draft, and so the index, now has it
            except KeyError as exc:  # the claim left the draft meanwhile (a re-cut around it)
                outcome.status = "failed"
                outcome.reviews.append({"attempt": outcome.attempts, "verdict": "not filled", "reasons": [str(exc)],
                                        "critiques": []})
        return outcome

    def section_config(self, label: str):
        """The inner loop's settings for this section: its provers start from the route the plan
        assigned it (the gate's per-claim route, else the strategy card's), each from its own angle."""
        route = self.routes.get(label) or self.default_route  # a lemma a re-cut added: the main route
        if not route:
            return self.inner_config
        angles = tuple(f"the route the plan assigned to this section: {route}; within it, {a}"
                       for a in self.inner_config.angles)
        return routed_inner_config(self.inner_config, angles)

    async def _review(self, label: str, result, steps):
        """The local review of the inner loop's proof, given the critiques its refuters left standing,
        and the section gate (no fatal critique of the inner loop may survive)."""
        review = await self.reviews.local(self.draft.index, label, result.root.candidate.proof, steps,
                                          carried=carried_critiques(result))
        return section_gate(review, result)

    def _section_progress(self, label: str):
        def report(stage: str, done: int, total: int) -> None:
            step = f"{label}: {stage}" + (f" {done}/{total}" if total else "")
            self.progress("solving", tuple(self.frontier), self._counts["done"], self._counts["total"], step)
        return report

    def _note(self, outcome: SectionOutcome, result, review) -> None:
        outcome.reviews.append({"attempt": outcome.attempts, "verdict": review.verdict, "reasons": list(review.reasons),
                                "critiques": [critique_json(c, self.draft) for c in review.critiques],
                                "inner_loop_calls": result.usage.calls, "proof": result.root.candidate.proof,
                                "surviving": [{"id": c.id, "severity": c.severity, "kind": c.kind, "quote": c.quote,
                                               "explanation": c.explanation} for c in carried_critiques(result)],
                                "addressed": dict(getattr(review, "addressed", {}) or {})})

    # ---- the DAG -------------------------------------------------------------------------------
    async def run(self, only: set[str] | None = None) -> dict[str, SectionOutcome]:
        """Solve what is not yet passed (``only``: just these and what waits on them). A section
        that already failed all its retries is not solved again unless it was re-cut or is named
        in ``only``: each section gets ``1 + section_retries`` attempts per cut."""
        named = set(only or ())
        passes = 1 + (self.config.max_redecompositions if self.config.redecompose else 0)
        for _ in range(passes):
            failed = await self._pass(only, named)
            if not failed or not self.config.redecompose or self.redecompose is None:
                break
            if len(self.redecompositions) >= self.config.max_redecompositions:
                break
            label = failed[0]
            if any(r["label"] == label and r["done"] for r in self.redecompositions):
                break  # re-cut once already: this part of the skeleton is what is wrong
            with stage("redecompose"):
                done, reason, problems = await self.redecompose(label, self.attempts_text(label))
            self.redecompositions.append({"label": label, "done": done, "reason": reason, "problems": problems})
            if not done:
                break
            self.outcomes[label].status = "redecomposed"
            only = None if only is None else only | set(self.draft.obligations())
        return self.outcomes

    def attempts_text(self, label: str) -> str:
        outcome = self.outcomes.get(label)
        if outcome is None:
            return "(none)"
        parts = []
        for r in outcome.reviews:
            crit = "\n".join(f"- {c['severity']} {c['kind']}: \"{c['quote']}\" -- {c['message']}" for c in r["critiques"])
            parts.append(f"Attempt {r['attempt']}:\n{r['proof']}\n\nLocal review: {r['verdict']}\n{crit or '(no critique)'}")
        return "\n\n".join(parts)

    def _exhausted(self, label: str) -> bool:
        """Failed after all its attempts at this cut (a re-cut section is "redecomposed")."""
        outcome = self.outcomes.get(label)
        return outcome is not None and outcome.status == "failed" and \
            outcome.attempts >= 1 + self.config.section_retries

    async def _pass(self, only: set[str] | None, named: set[str] = frozenset()) -> list[str]:
        draft = self.draft
        graph = draft.index.graph
        obligations = draft.obligations()
        wanted = set(obligations)
        generation = {n: i for i, layer in enumerate(graph.generations()) for n in layer}
        todo = [o for o in obligations if (self.outcomes.get(o) is None or self.outcomes[o].status != "passed")
                and (only is None or o in only or (graph.ancestors(o) & only))
                and (o in named or not self._exhausted(o))]
        waits = {o: graph.ancestors(o) & wanted for o in todo}
        finished = {o: asyncio.Event() for o in todo}
        limit = asyncio.Semaphore(self.config.max_parallel_sections)
        total = len(todo)
        count = self._counts = {"done": 0, "total": total}

        async def one(label: str) -> None:
            try:
                for before in waits[label]:
                    if before in finished:
                        await finished[before].wait()
                blocked = [b for b in waits[label] if self.outcomes.get(b) is None
                           or self.outcomes[b].status != "passed"]
                if blocked:  # never attempted in this pass: what it rests on did not pass
                    outcome = self.outcomes.setdefault(label, SectionOutcome(label, "blocked"))
                    outcome.status, outcome.generation = "blocked", generation.get(label, 0)
                    return
                async with limit:
                    self.frontier.append(label)
                    self.progress("solving", tuple(self.frontier), count["done"], total, "")
                    try:
                        with stage("solve"):
                            await self.solve_section(label, generation.get(label, 0))
                    finally:
                        self.frontier.remove(label)
                count["done"] += 1
                self.progress("solving", tuple(self.frontier), count["done"], total,
                              f"{label} {self.outcomes[label].status}")
            finally:
                finished[label].set()

        async with asyncio.TaskGroup() as group:
            for label in sorted(todo, key=lambda o: generation.get(o, 0)):
                group.create_task(one(label))
        return [o for o in todo if self.outcomes[o].status == "failed"]
