"""One bench run: the method on every problem, then the baselines at the method's cost on each,
then the graders on every answer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from colosseum.bench.baselines import Baselines
from colosseum.bench.grading import grade
from colosseum.bench.method import run_method
from colosseum.bench.problems import Problem
from colosseum.bench.records import Attempt
from colosseum.bench.requests import Pricing, RunStage, Spend, interactive
from colosseum.loops.inner import InnerLoopConfig
from colosseum.models.step import ModelStep

Progress = Callable[[str, int, int], None]  # (stage, done, total)
GRADER_MAX_TOKENS = 2048


@dataclass(frozen=True)
class BenchSettings:
    graders: int = 3  # grader calls per answer
    grader_model: str | None = None  # None: the solvers' model
    max_thinking_tokens: int = 32_000  # direct: the most it may think, whatever the method wrote
    max_tokens: int = 8192  # of each baseline answer (direct's thinking comes on top)


@dataclass
class BenchResult:
    problems: list[Problem]
    attempts: list[Attempt]  # the method's first, then each baseline's, problems in order in each
    settings: BenchSettings
    pricing: Pricing
    config: InnerLoopConfig
    grading: Spend = field(default_factory=Spend)


def _reporting(run_stage: RunStage, progress: Progress) -> RunStage:
    async def run(stage: str, requests: dict) -> dict:
        progress(stage, 0, len(requests))
        outcomes = await run_stage(stage, requests)
        progress(stage, len(requests), len(requests))
        return outcomes

    return run


async def run_bench(problems: list[Problem], provider, config: InnerLoopConfig, pricing: Pricing,
                    settings: BenchSettings = BenchSettings(), run_stage: RunStage | None = None,
                    progress: Progress | None = None) -> BenchResult:
    """``run_stage`` answers the stages of the baselines and the graders (``interactive(provider)``
    when None; a batch executor's the same way); the inner loop calls ``provider`` itself."""
    progress = progress or (lambda stage, done, total: None)
    run_stage = _reporting(run_stage or interactive(provider), progress)
    done = 0

    async def method(problem: Problem) -> Attempt:
        nonlocal done
        attempt = await run_method(problem, provider, config)
        done += 1
        progress("method (inner loop)", done, len(problems))
        return attempt

    progress("method (inner loop)", 0, len(problems))
    methods = list(await asyncio.gather(*(method(p) for p in problems)))
    pairs = list(zip(problems, methods))
    baselines = Baselines(run_stage, pricing, ModelStep(None, max_tokens=settings.max_tokens),
                          settings.max_thinking_tokens)
    direct, best, refine = await asyncio.gather(baselines.direct(pairs), baselines.best_of_n(pairs),
                                                baselines.self_refine(pairs))
    result = BenchResult(problems, methods + direct + best + refine, settings, pricing, config)
    graders = ModelStep(None, max_tokens=GRADER_MAX_TOKENS, model=settings.grader_model)
    await grade(result.attempts, {p.label: p for p in problems}, settings.graders, graders, run_stage,
                result.grading)
    return result
