"""The simple methods the inner loop is compared with, each given the list-price cost the method
spent on the same problem (``budget_usd``; equal within ``TOLERANCE``):

- direct: one strong call, its extended-thinking budget the method's output tokens (less when the
  call would not fit the budget; none below the API's minimum);
- best-of-n with self-selection: n samples and one call that picks the best, n from the cost;
- self-refine: a draft, then rounds of critique and revision while the next round fits.

Each runs stage by stage over every problem at once: a stage's requests go to one ``RunStage``
(``requests.py``), the seam a batch executor plugs into. Before a call starts, its cost is
estimated; a call that would take the spend past the budget (and its tolerance) is not made, and
the attempt is scored as it stands."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from colosseum.bench.problems import Problem
from colosseum.bench.records import BEST_OF_N, DIRECT, SELF_REFINE, TOLERANCE, Attempt
from colosseum.bench.requests import Pricing, RunStage, listed_usage
from colosseum.models.executor import CallOutcome
from colosseum.models.provider import ModelRequest, Usage
from colosseum.models.provider import estimate_tokens as _tokens
from colosseum.models.step import ModelStep

MIN_THINKING_TOKENS = 1024  # the API's smallest thinking budget
MAX_SAMPLES = 64  # best-of-n: the selector reads them all
MAX_ROUNDS = 16  # self-refine: a bound should the prices make rounds free
SELECTOR_OUTPUT_TOKENS = 300  # what a selection is estimated to write
NO_CALL_FITS = "the budget does not cover one call"


def solver_values(problem: Problem) -> dict:
    """What every solver prompt shows of a problem: the claim, the assumable results, the notation
    and the catalog (less the entries that state the claim): never the reference proof."""
    c = problem.context
    return {"obligation": f"{c.label}: {c.statement}", "assumable": c.assumable or "(none)",
            "notation": c.notation or "(none)", "catalog": c.catalog or "(none)"}


@dataclass
class Baselines:
    run_stage: RunStage
    pricing: Pricing
    step: ModelStep  # renders the requests (the model, max_tokens); the calls go through run_stage
    max_thinking_tokens: int = 32_000

    # ---- shared ----------------------------------------------------------------------------------
    def request(self, role: str, problem: Problem, **values) -> ModelRequest:
        return self.step.request(role, {**solver_values(problem), **values})

    def spent(self, attempt: Attempt) -> float:
        return self.pricing.cost(attempt.spend.usage)

    def fits(self, attempt: Attempt, estimate: float) -> bool:
        return self.spent(attempt) + estimate <= attempt.budget_usd * (1 + TOLERANCE)

    async def ask(self, stage: str, asks: dict[str, tuple[Attempt, ModelRequest]]) -> dict[str, CallOutcome]:
        """One stage: its requests through ``run_stage``; each outcome is added to its attempt's
        spend, and the stage's time to every attempt that took part."""
        if not asks:
            return {}
        started = time.monotonic()
        outcomes = await self.run_stage(stage, {key: request for key, (_, request) in asks.items()})
        took = time.monotonic() - started
        for key, (attempt, _) in asks.items():
            attempt.spend.add(outcomes[key])
        for attempt in {id(a): a for a, _ in asks.values()}.values():
            attempt.spend.seconds += took
        return outcomes

    # ---- direct --------------------------------------------------------------------------------
    def direct_request(self, problem: Problem, attempt: Attempt, method: Attempt) -> ModelRequest | None:
        """One call thinking as many tokens as the method wrote (fewer when that would not fit)."""
        request = self.request("bench_direct", problem, slot="your one attempt")
        answer = answer_tokens(method)
        per_token = self.pricing.cost(Usage(output_tokens=1_000_000)) / 1_000_000
        room = attempt.budget_usd * (1 + TOLERANCE) - self.pricing.estimate(request, answer)
        if room < 0:
            return None
        thinking = min(self.max_thinking_tokens, method.spend.usage.output_tokens)
        if per_token > 0:
            thinking = min(thinking, int(room / per_token))
        thinking = thinking if thinking >= MIN_THINKING_TOKENS else 0
        attempt.detail["thinking_tokens"] = thinking
        return replace(request, thinking_tokens=thinking)

    async def direct(self, pairs: list[tuple[Problem, Attempt]]) -> list[Attempt]:
        rows, asks = [], {}
        for problem, method in pairs:
            row = Attempt(DIRECT, problem.label, budget_usd=self.pricing.cost(method.spend.usage))
            rows.append(row)
            request = self.direct_request(problem, row, method)
            if request is None:
                row.stopped = NO_CALL_FITS
            else:
                asks[row.key] = (row, request)
        outcomes = await self.ask("direct", asks)
        for row in rows:
            take_proof(row, outcomes.get(row.key))
        return rows

    # ---- best-of-n -----------------------------------------------------------------------------
    def sample(self, problem: Problem, i: int) -> ModelRequest:
        return self.request("bench_direct", problem, slot=f"attempt {i} of several independent attempts")

    def selector(self, problem: Problem, proofs: list[str]) -> ModelRequest:
        numbered = "\n\n".join(f"## Proof {i}\n{proof}" for i, proof in enumerate(proofs, start=1))
        return self.request("bench_selector", problem, slot=f"choose among {len(proofs)} proofs", candidates=numbered)

    def samples_affordable(self, problem: Problem, row: Attempt, first: str) -> int:
        """n: the most samples that, with the selection, cost no more than the budget (each sample
        priced as the first was)."""
        each = self.spent(row)
        base = self.selector(problem, [])
        best = 1
        for n in range(2, MAX_SAMPLES + 1):
            selection = self.pricing.cost(Usage(input_tokens=_tokens(base) + n * (len(first) // 4 + 1),
                                                output_tokens=SELECTOR_OUTPUT_TOKENS))
            if n * each + selection > row.budget_usd:
                break
            best = n
        return best

    async def best_of_n(self, pairs: list[tuple[Problem, Attempt]]) -> list[Attempt]:
        rows = [Attempt(BEST_OF_N, p.label, budget_usd=self.pricing.cost(m.spend.usage)) for p, m in pairs]
        problems = [p for p, _ in pairs]
        firsts = {}
        for problem, row, (_, method) in zip(problems, rows, pairs):
            request = self.sample(problem, 1)
            if self.fits(row, self.pricing.estimate(request, answer_tokens(method))):
                firsts[row.key] = (row, request)
            else:
                row.stopped = NO_CALL_FITS
        first = await self.ask("best-of-n: first sample", firsts)
        samples: dict[str, list[str]] = {}
        more = {}
        for problem, row in zip(problems, rows):
            if row.key not in first or not take_proof(row, first[row.key]):
                continue
            samples[row.key] = [row.answer]
            n = self.samples_affordable(problem, row, row.answer)
            row.detail["n"] = n
            more.update({f"{row.key}#{i}": (row, self.sample(problem, i)) for i in range(2, n + 1)})
        rest = await self.ask("best-of-n: samples", more)
        for key in sorted(rest, key=lambda k: int(k.rsplit("#", 1)[1])):
            if rest[key].ok:
                samples[key.rsplit("#", 1)[0]].append(rest[key].data.get("proof", ""))
        await self.select(problems, rows, samples)
        return rows

    async def select(self, problems: list[Problem], rows: list[Attempt], samples: dict[str, list[str]]) -> None:
        """The selection stage: each row with two proofs or more picks one (its first when the
        selection does not fit the budget or its call fails)."""
        asks = {}
        for problem, row in zip(problems, rows):
            proofs = samples.get(row.key, [])
            row.detail["samples"] = len(proofs)
            if len(proofs) < 2:
                continue
            request = self.selector(problem, proofs)
            if self.fits(row, self.pricing.estimate(request, SELECTOR_OUTPUT_TOKENS)):
                asks[row.key] = (row, request)
            else:
                row.stopped = "the selection did not fit the budget: the first sample stands"
        outcomes = await self.ask("best-of-n: selection", asks)
        for row in rows:
            outcome = outcomes.get(row.key)
            if outcome is None:
                continue
            if not outcome.ok:
                row.stopped = f"the selection failed: {outcome.failure}"
                continue
            choice = outcome.data.get("choice", 1)
            proofs = samples[row.key]
            chosen = choice if isinstance(choice, int) and 1 <= choice <= len(proofs) else 1
            row.answer, row.detail["chosen"] = proofs[chosen - 1], chosen

    # ---- self-refine ---------------------------------------------------------------------------
    async def self_refine(self, pairs: list[tuple[Problem, Attempt]]) -> list[Attempt]:
        rows = [Attempt(SELF_REFINE, p.label, budget_usd=self.pricing.cost(m.spend.usage), detail={"rounds": 0})
                for p, m in pairs]
        by_key = {row.key: (problem, row) for (problem, _), row in zip(pairs, rows)}
        drafts = {}
        for (problem, method), row in zip(pairs, rows):
            request = self.request("bench_direct", problem, slot="a first draft: it will be criticised and revised")
            if self.fits(row, self.pricing.estimate(request, answer_tokens(method))):
                drafts[row.key] = (row, request)
            else:
                row.stopped = NO_CALL_FITS
        outcomes = await self.ask("self-refine: draft", drafts)
        live = [key for key in drafts if take_proof(by_key[key][1], outcomes[key])]
        critique_tokens = {key: max(1, answer_tokens(m) // 4) for key, (_, m) in zip(by_key, pairs)}
        for number in range(1, MAX_ROUNDS + 1):
            live = await self.refine_round(number, [by_key[key] for key in live], critique_tokens)
            if not live:
                break
        return rows

    async def refine_round(self, number: int, live: list[tuple[Problem, Attempt]],
                           critique_tokens: dict[str, int]) -> list[str]:
        """One round for the rows whose next round fits: a critique, then a revision. Returns the
        rows that may go on."""
        critiques = {}
        for problem, row in live:
            request = self.request("bench_self_critique", problem, slot=f"round {number}", candidate=row.answer)
            proof_tokens = len(row.answer) // 4 + 1
            revision = self.pricing.cost(Usage(input_tokens=_tokens(request) + critique_tokens[row.key],
                                               output_tokens=proof_tokens))
            if self.fits(row, self.pricing.estimate(request, critique_tokens[row.key]) + revision):
                critiques[row.key] = (row, request)
        said = await self.ask(f"self-refine: critique {number}", critiques)
        revisions = {}
        for problem, row in live:
            outcome = said.get(row.key)
            if outcome is None:
                continue
            if not outcome.ok:
                row.stopped = f"a critique failed: {outcome.failure}"
                continue
            # as billed when first asked: a rerun from the cache must estimate (and decide) the same
            critique_tokens[row.key] = max(1, listed_usage(outcome.response).output_tokens or critique_tokens[row.key])
            request = self.request("bench_reviser", problem, slot=f"round {number}", candidate=row.answer,
                                   critique=critique_text(outcome.data))
            if self.fits(row, self.pricing.estimate(request, len(row.answer) // 4 + 1)):
                revisions[row.key] = (row, request)
            else:
                row.stopped = "the revision did not fit the budget: the last proof stands"
        revised = await self.ask(f"self-refine: revision {number}", revisions)
        going = []
        for problem, row in live:
            if row.key in revised and take_proof(row, revised[row.key]):
                row.detail["rounds"] = number
                going.append(row.key)
        return going


def take_proof(row: Attempt, outcome: CallOutcome | None) -> bool:
    """The outcome's proof becomes the row's answer; a failed call stops the row (its answer as it stands)."""
    if outcome is None:
        return False
    if not outcome.ok:
        row.stopped = f"a call failed: {outcome.failure}"
        return False
    row.answer = str(outcome.data.get("proof", ""))
    return True


def answer_tokens(method: Attempt) -> int:
    """What one answer is estimated to write: the method's output per call."""
    usage = method.spend.usage
    return max(1, usage.output_tokens // max(1, usage.calls))


def critique_text(data: dict) -> str:
    problems = data.get("problems") or []
    if not problems:
        return "(no error found)"
    return "\n".join(f"- {p.get('severity', 'major')}: \"{p.get('quote', '')}\" -- {p.get('explanation', '')}"
                     for p in problems)
