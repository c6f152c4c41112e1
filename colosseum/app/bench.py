"""``colosseum bench``: the method against simple baselines at equal cost on a paper's own claims,
set up for the CLI: the problems, the settings and the provider, the run, and the report in
``.colosseum/bench/<time>/``."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from colosseum.app.knowledge import catalog_directory
from colosseum.app.run_settings import RunOverrides, RunSettings
from colosseum.app.stops import RunRefused, StopReason, until_stopped
from colosseum.bench import BenchSettings, NoProblems, Pricing, Problem, RunStage, problems_of, run_bench
from colosseum.bench.report import write_report
from colosseum.catalog.store import load_catalog
from colosseum.core.paths import bench_dir, prepare_write
from colosseum.loops.inner import InnerLoopConfig

EXIT_DONE, EXIT_STOPPED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


@dataclass
class BenchOutcome:
    """A bench run's end: the report's folder and data, or why it stopped."""

    directory: Path
    data: dict | None = None
    stop: StopReason | None = None

    @property
    def exit_code(self) -> int:
        if self.stop is None:  # a grader call that failed leaves an answer graded by fewer: incomplete
            return EXIT_STOPPED if self.data and self.data["grading"]["failed_calls"] else EXIT_DONE
        if self.stop.cancelled:
            return EXIT_INTERRUPTED
        return EXIT_BAD_INPUT if self.stop.kind in ("refused", "budget-exceeded") else EXIT_STOPPED


@dataclass
class BenchPlan:
    index: object
    problems: list[Problem]
    settings: RunSettings
    config: InnerLoopConfig
    pricing: Pricing
    bench: BenchSettings

    def calls_described(self) -> str:
        """The inner loop's calls on each problem, as a dry run says them."""
        from colosseum.loops.inner import describe_calls

        return describe_calls(self.config)

    def upper_cost_usd(self) -> float | None:
        """A dry run's bound on the whole bench at list price: the method's bound on each problem
        (as ``solve --dry-run`` gives it), each baseline at that cost plus the 10% it may overrun,
        and every grader call with the longest answer it may read; None when a price is unknown."""
        from colosseum.app.solve import OUTPUT_TOKENS_PER_CALL, SolvePlan
        from colosseum.bench.records import BASELINES
        from colosseum.bench.run import GRADER_MAX_TOKENS
        from colosseum.models.pricing import cost_usd
        from colosseum.models.prompts import load_prompt
        from colosseum.models.provider import Usage

        grader_model = self.bench.grader_model or self.pricing.model
        template = len(load_prompt("bench_grader").system_template)
        total = 0.0
        for problem in self.problems:
            method = SolvePlan(self.index, problem.label, self.settings, self.config, problem.context).estimate()
            c = problem.context
            grader_input = (template + len(c.statement) + len(c.assumable) + len(problem.reference)) // 4 \
                + max(self.bench.max_tokens, OUTPUT_TOKENS_PER_CALL)  # an answer as long as one may be
            calls = self.bench.graders * (1 + len(BASELINES))
            grading = cost_usd(Usage(input_tokens=calls * grader_input, output_tokens=calls * GRADER_MAX_TOKENS),
                               grader_model, self.settings.prices)
            if method.upper_cost_usd is None or grading is None:
                return None
            total += method.upper_cost_usd * (1 + 1.1 * len(BASELINES)) + grading
        return total

    async def run(self, progress: Callable[[str, int, int], None], provider=None,
                  directory: Path | None = None, run_stage: RunStage | None = None) -> BenchOutcome:
        """The run to its report (``provider``: the configured one when None; raises ProviderError
        when it cannot be made). ``run_stage`` answers the stages of the baselines and the graders:
        interactive through ``provider`` when None (a batch executor plugs in here)."""
        if provider is None:
            provider, _ = self.settings.provider()
        folder = directory or new_bench_folder(self.index.root_dir)

        async def work() -> BenchOutcome:
            result = await run_bench(self.problems, provider, self.config, self.pricing, self.bench,
                                     run_stage=run_stage, progress=progress)
            prepare_write(folder / "report.json")
            return BenchOutcome(folder, write_report(result, folder))

        return await until_stopped(work(), lambda reason: BenchOutcome(folder, stop=reason))


class ProblemSetExists(Exception):
    """The folder chosen for the shipped problem set already holds something."""


@dataclass(frozen=True)
class CopiedProblems:
    folder: Path
    problems: int


def copy_problem_set(destination: Path) -> CopiedProblems:
    """Copies the problem set that ships with colosseum (``colosseum/data/bench-problems``) into
    ``destination``, which must be new or empty: nothing of the author's is overwritten."""
    import shutil

    from colosseum.core.resources import PACKAGE_DATA

    source = PACKAGE_DATA / "bench-problems"
    if destination.exists() and (not destination.is_dir() or any(destination.iterdir())):
        raise ProblemSetExists(f"{destination} already exists and is not an empty folder: choose a new one")
    shutil.copytree(source, destination, dirs_exist_ok=True)
    lines = (destination / "main.tex").read_text(encoding="utf-8").splitlines()
    marked = sum(1 for line in lines if line.strip() == "% colosseum: benchmark")
    return CopiedProblems(destination, marked)


def bench_folder(root_dir: Path, resume: str | None = None) -> Path:
    """The run's folder: a new one, or with ``resume`` the folder of a run whose batches are still
    out (RunRefused when there is no such run)."""
    if resume is None:
        return new_bench_folder(root_dir)
    folder = bench_dir(root_dir) / resume
    if "/" in resume or resume in ("", ".", "..") or not folder.is_dir():
        raise RunRefused(f"no bench run `{resume}` in {bench_dir(root_dir)}")
    return folder


def new_bench_folder(root_dir: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path, suffix = bench_dir(root_dir) / stamp, 1
    while path.exists():
        suffix += 1
        path = path.with_name(f"{stamp}-{suffix}")
    return path


@dataclass(frozen=True)
class BenchOverrides:
    """What the command line changes of ``[bench]``; None keeps the file's value."""

    graders: int | None = None
    grader_model: str | None = None


def bench_settings(index, overrides: BenchOverrides) -> BenchSettings:
    """``[bench]`` of colosseum.toml with the command's overrides."""
    from colosseum.settings import table

    configured = table(index.config, "bench")
    return BenchSettings(graders=overrides.graders if overrides.graders is not None else configured.graders,
                         grader_model=overrides.grader_model or configured.grader_model,
                         max_thinking_tokens=configured.max_thinking_tokens)


def plan_bench(index, labels: list[str] | None, overrides: RunOverrides,
               bench_overrides: BenchOverrides = BenchOverrides()) -> BenchPlan:
    """Raises RunRefused when there is no problem, or no list price to make budgets equal with."""
    settings = RunSettings.of(index, overrides)
    bench = bench_settings(index, bench_overrides)
    pricing = Pricing(settings.model_name(), settings.prices)
    if not pricing.known:
        raise RunRefused(f"no list price is known for {pricing.model}: equal budgets need one "
                         "(set [models] prices in colosseum.toml)")
    if bench.graders < 1:
        raise RunRefused("a bench needs at least one grader")
    try:
        problems = problems_of(index, labels, load_catalog(catalog_directory(index.root_dir)))
    except NoProblems as exc:
        raise RunRefused(str(exc)) from exc
    return BenchPlan(index, problems, settings, settings.inner_loop(index), pricing, bench)
