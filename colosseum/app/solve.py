"""Solving one obligation through the inner loop, and retrying a claim whose local review failed:
set up once for the CLI and the editor, each returning a plain outcome."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from colosseum.app.knowledge import catalog_directory
from colosseum.app.run_settings import RunOverrides, RunSettings
from colosseum.app.stops import RunRefused, StopReason, until_stopped
from colosseum.catalog.store import load_catalog
from colosseum.core.liveness import Heartbeat
from colosseum.core.paths import runs_dir
from colosseum.loops.inner.call_plan import describe_calls
from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.latex.draft_marker import proof_environment
from colosseum.loops.inner.context import obligation_context
from colosseum.loops.inner.records import InnerLoopConfig, SolveResult, dropped_summary
from colosseum.loops.inner.run_record import RunRecorder, run_directory
from colosseum.loops.inner.solve import solve

log = logging.getLogger(__name__)
StageProgress = Callable[[str, int, int], None]  # (stage, done, total)
OUTPUT_TOKENS_PER_CALL = 2000  # what a dry run assumes each call writes at most
# the exit code of each verdict (README, "Exit codes"); a bad input exits 2 and an interruption 130
VERDICT_EXIT = {"unrefuted": 0, "incomplete": 1, "refuted": 3}
EXIT_BAD_INPUT, EXIT_INTERRUPTED = 2, 130


@dataclass
class SolveOutcome:
    """How a solve (or a retry) ended: ``result`` when it finished, ``stop`` when it stopped early."""

    label: str
    statement: str
    model: str
    config: InnerLoopConfig
    directory: Path
    result: SolveResult | None = None
    stop: StopReason | None = None
    curated: list[str] = field(default_factory=list)
    cache_hits: int = 0

    @property
    def report(self) -> Path:
        return self.directory / "report.md"

    @property
    def verdict(self) -> str:
        """"unrefuted" or "refuted" for a run that finished (SolveResult.verdict), else "incomplete"."""
        return self.result.verdict if self.result is not None else "incomplete"

    @property
    def exit_code(self) -> int:
        if self.stop is not None and self.stop.cancelled:
            return EXIT_INTERRUPTED
        if self.stop is not None and self.stop.kind == "refused":
            return EXIT_BAD_INPUT
        return VERDICT_EXIT[self.verdict]

    @property
    def proof_environment(self) -> str | None:
        """The proof exactly as it would be inserted: a proof environment whose first line carries
        the draft marker with this run's id; None when the run did not finish."""
        if self.result is None:
            return None
        return proof_environment(self.result.root.candidate.proof, self.directory.name)

    @property
    def dropped_note(self) -> str:
        """"2 of 16 candidates dropped: ..." when calls failed for some candidates, else ""."""
        if self.result is None or not self.result.dropped:
            return ""
        return dropped_summary(self.result.dropped, self.config.leaves)


@dataclass(frozen=True)
class SolveEstimate:
    """What a solve would cost, from its plan alone: nothing is sent."""

    calls: int
    input_tokens: int
    output_tokens: int
    model: str
    upper_cost_usd: float | None
    maximum_calls: int = 0  # with a resolution check per aggregator
    calls_described: str = ""  # "N model calls planned, at most M (...)"


@dataclass
class SolvePlan:
    """A solve set up to the point of asking a model: the obligation's context and the settings."""

    index: object
    label: str
    settings: RunSettings
    config: InnerLoopConfig
    context: object
    directory: Path | None = None  # a resumed run goes on in its own folder
    probes: object = None  # ProbeDecision: whether the refuters get run_python, and why not

    @property
    def probe_tools(self):
        return getattr(self.probes, "tools", None)

    def estimate(self) -> SolveEstimate:
        from colosseum.models.pricing import cost_usd
        from colosseum.models.prompts import load_prompt
        from colosseum.models.provider import Usage

        planned = self.config.planned_calls()
        c = self.context
        prefix = sum(len(x) for x in (c.statement, c.assumable, c.notation, c.catalog))
        template = sum(len(load_prompt(r).system_template) for r in ("generator", "refuter", "aggregator")) // 3
        most = self.config.maximum_calls()  # the upper bound counts a resolution check per aggregator
        tools = self.probe_tools
        if tools is not None:  # and, with probes, every refuter's tool-use loop to its end
            refuters = self.config.leaves * self.config.refuters_per_candidate + self.config.final_refuters
            most += refuters * (tools.max_tool_calls - 1)
        tokens = most * (prefix + template) // 4
        model = self.settings.model_name()
        output = most * OUTPUT_TOKENS_PER_CALL
        upper = cost_usd(Usage(input_tokens=tokens, output_tokens=output), model, self.settings.prices)
        described = describe_calls(self.config) + (f"; {self.probes.plan_line()}" if self.probes is not None else "")
        return SolveEstimate(planned, tokens, output, model, upper, most, described)

    def formal_evidence(self) -> str:
        """The evidence the run's report shows apart from its review: what Lean's cache says of the
        claim, then the catalog's computations on it (reads files: a thread in the editor)."""
        from colosseum.catalog.evidence import ClaimEvidence, computation_report_section
        from colosseum.lean.evidence import cached_evidence_section

        computation = computation_report_section(ClaimEvidence(self.label, tuple(self.context.computation)))
        return cached_evidence_section(self.index, self.label) + "\n" + "\n".join(computation)

    def run_folder(self) -> Path:
        """The run's folder, chosen once (a resumed run goes on in its own)."""
        if self.directory is None:
            self.directory = run_directory(self.index.root_dir, self.label)
        return self.directory

    def start(self, formal_evidence: str, shared: tuple | None = None) -> "SolveRun":
        """The provider and the run's record; raises ProviderError when no provider can be made.
        ``shared``: (provider, model) that several runs share (``solve --labels``), wrapped here in
        the answer cache so this run counts its own hits."""
        directory = self.run_folder()
        if shared is None:
            provider, model = self.settings.provider(run_dir=directory)  # --batch keeps its batch ids there
        else:
            provider, model = self.settings.cached(shared[0]), shared[1]
        if self.probes is not None:
            self.probes = self.probes.for_provider(provider)
        recorder = RunRecorder(directory, self.label, self.config, model,
                               self.settings.prices, lambda: getattr(provider, "hits", 0), self.context,
                               formal_evidence, self.probes.record() if self.probes is not None else None)
        return SolveRun(self, provider, model, recorder)


def solve_summary(outcome: SolveOutcome, root_dir: Path, prices: dict | None = None, computation=()) -> dict:
    """What a solve concluded, as one JSON object (the CLI's ``--format json``, reusable by the
    server): the verdict, the proof as it would be inserted, the surviving critiques, the run's
    folder and what it spent; and apart, the catalog's ``computation`` evidence on the claim
    (colosseum.catalog.evidence items: range and verdict), which the verdict never rests on."""
    from colosseum.models.pricing import cost_usd

    result = outcome.result
    critiques = result.surviving_critiques if result is not None else []
    usage = result.usage if result is not None else None
    try:
        run = outcome.directory.relative_to(root_dir).as_posix()
    except ValueError:
        run = str(outcome.directory)
    return {
        "schema_version": SCHEMA_VERSION, "label": outcome.label, "verdict": outcome.verdict,
        "proof": outcome.proof_environment,
        # anchor "statement" and evidence (the run): a counterexample found by execution
        "critiques": [{"severity": c.severity, "kind": c.kind, "quote": c.quote, "anchored": c.anchored,
                       "text": c.explanation, "anchor": c.anchor, "evidence": c.evidence} for c in critiques],
        "run": run,
        "stopped": None if outcome.stop is None else {"kind": outcome.stop.kind, "detail": outcome.stop.detail},
        "usage": {"calls": usage.calls if usage else 0, "input_tokens": usage.input_tokens if usage else 0,
                  "output_tokens": usage.output_tokens if usage else 0, "response_cache_hits": outcome.cache_hits,
                  "cost_usd": cost_usd(usage, outcome.model, prices) if usage else None},
        "computation": [item.as_json() for item in computation],
    }


def refuse_unless_obligation(index, label: str) -> None:
    """Raises RunRefused unless ``label`` is a claim marked as an obligation: solve proves what the
    author asked for, never a claim that already has its proof or was not marked."""
    claim = index.claims.get(label)
    if claim is None:
        raise RunRefused(f"no claim `{label}` in the project")
    if not claim.obligation:
        raise RunRefused(f"`{label}` is not an obligation: mark it with \\obligation or a line "
                         "`% colosseum: obligation` in its statement to solve it")
    if has_its_proof(claim):
        where = claim.proof.location
        raise RunRefused(f"`{label}` already has its proof ({relative_location(index, where)}): solve writes a "
                         "proof for an obligation with none; remove that proof, or put \\obligation in it "
                         "to keep it as a sketch, to solve it again")


def has_its_proof(claim) -> bool:
    """A claim marked as an obligation whose proof the author has since written: the obligation is
    settled (its status is proved), so a run would only write a second proof of it. A proof holding
    \\obligation is a sketch, and a model's draft not yet accepted is no settled proof either."""
    proof = claim.proof
    return proof is not None and proof.has_content and not proof.obligation and proof.draft_run is None


def relative_location(index, where) -> str:
    try:
        name = Path(where.file).resolve().relative_to(Path(index.root_dir).resolve()).as_posix()
    except ValueError:
        name = str(where.file)
    return f"{name}:{where.range.start.line + 1}"


def plan_solve(index, label: str, overrides: RunOverrides) -> SolvePlan:
    """Raises RunRefused when ``label`` is no obligation the inner loop can take."""
    refuse_unless_obligation(index, label)
    settings = RunSettings.of(index, overrides)
    catalog = load_catalog(catalog_directory(index.root_dir))
    try:
        context = obligation_context(index, label, catalog)
    except KeyError as exc:
        raise RunRefused(exc.args[0]) from exc
    return SolvePlan(index, label, settings, settings.inner_loop(index), context, probes=settings.probes(index))


def plan_resume(index, label: str, run: str, overrides: RunOverrides) -> SolvePlan:
    """The run named ``run`` (its folder's name or path) planned again as recorded: its model, its
    settings and its seed, so it asks the same questions and the answer cache serves every call
    answered before it died. Raises RunRefused for a run that is alive, finished or not this claim's."""
    from colosseum.app.runs import find_run, read_run, run_state

    folder = find_run(index.root_dir, run)
    if folder is None:
        raise RunRefused(f"no run {run!r} in {runs_dir(index.root_dir)}")
    state, record = run_state(folder), read_run(folder)
    if state in ("running", "done"):
        raise RunRefused(f"run {folder.name} is {'still running' if state == 'running' else 'finished'}: "
                         "only an abandoned, failed or incomplete run can be resumed")
    if record.get("label") != label:
        raise RunRefused(f"run {folder.name} solved {record.get('label')!r}, not {label!r}")
    plan = plan_solve(index, label, replace(overrides, model=record.get("model") or overrides.model, use_cache=True))
    plan.config = _recorded_config(plan.config, record)
    plan.directory = folder
    return plan


def _recorded_config(config: InnerLoopConfig, record: dict) -> InnerLoopConfig:
    recorded = record.get("config") or {}
    return replace(config, seed=record.get("seed", config.seed),
                   leaves=recorded.get("leaves", config.leaves),
                   refuters_per_candidate=recorded.get("refuters_per_candidate", config.refuters_per_candidate),
                   widths=tuple(recorded.get("widths", config.widths)), k=recorded.get("k", config.k),
                   cover_strategies=recorded.get("cover_strategies", config.cover_strategies))


@dataclass
class SolveRun:
    plan: SolvePlan
    provider: object
    model: str
    recorder: RunRecorder

    def outcome(self, result: SolveResult | None = None, stop: StopReason | None = None) -> SolveOutcome:
        return SolveOutcome(self.plan.label, self.plan.context.statement, self.model, self.plan.config,
                            self.recorder.directory, result, stop, cache_hits=getattr(self.provider, "hits", 0))

    async def run(self, progress: StageProgress) -> SolveOutcome:
        """The inner loop to its end (the lessons then go to the catalog), or the reason it stopped."""
        async def work() -> SolveOutcome:
            async with Heartbeat(self.recorder.directory):  # a later command can tell this run alive
                result = await solve(self.plan.context, self.provider, self.plan.config, progress, self.recorder,
                                     self.plan.probe_tools)
            done = self.outcome(result)
            done.curated = await asyncio.to_thread(record_lessons, self.plan.index.root_dir, done)
            return done

        return await until_stopped(work(), lambda reason: self.outcome(stop=reason))


def record_lessons(root_dir: Path, outcome: SolveOutcome) -> list[str]:
    """The run's lessons into the catalog; a catalog that cannot be written costs the lessons, not the run."""
    from colosseum.catalog.curator import record_run_outcome

    report = str(outcome.report.relative_to(root_dir))
    try:
        return record_run_outcome(catalog_directory(root_dir), outcome.label, outcome.statement, outcome.result,
                                  outcome.directory.name, outcome.model, report)
    except (OSError, TimeoutError, ValueError) as exc:
        log.warning("the catalog was not updated after solving %s: %s", outcome.label, exc)
        return []


def record_applied_result(root_dir: Path, outcome: SolveOutcome) -> list[str]:
    """The author applied the proof: the result now lives in the paper under its label."""
    from colosseum.catalog.curator import record_result

    try:
        return [record_result(catalog_directory(root_dir), outcome.label, outcome.statement, outcome.directory.name,
                              outcome.model)]
    except (OSError, TimeoutError, ValueError) as exc:
        log.warning("the catalog was not updated with the result %s: %s", outcome.label, exc)
        return []


@dataclass
class RetryRun:
    """A claim whose local review failed, set up to go through the inner loop again with its failed
    draft and the critique: the provider and the run's record are made."""

    index: object
    label: str
    provider: object
    model: str
    config: InnerLoopConfig
    catalog: object
    recorder: RunRecorder
    probes: object = None  # ProbeDecision: whether the retry's refuters get run_python, as a solve's do

    def outcome(self, result: SolveResult | None = None, stop: StopReason | None = None) -> SolveOutcome:
        return SolveOutcome(self.label, "", self.model, self.config, self.recorder.directory, result, stop,
                            cache_hits=getattr(self.provider, "hits", 0))

    async def run(self, failed_review, progress: StageProgress) -> SolveOutcome:
        from colosseum.loops.review import retry_claim

        async def work() -> SolveOutcome:
            async with Heartbeat(self.recorder.directory):  # a later command can tell this run alive
                return self.outcome(await retry_claim(self.index, self.label, failed_review, self.provider,
                                                      self.config, self.catalog, progress, self.recorder,
                                                      probes=getattr(self.probes, "tools", None)))

        return await until_stopped(work(), lambda reason: self.outcome(stop=reason))


def start_retry(index, label: str, overrides: RunOverrides) -> RetryRun:
    """Raises ProviderError when no provider can be made."""
    settings = RunSettings.of(index, overrides)
    provider, model = settings.provider()
    config = settings.inner_loop(index)
    catalog = load_catalog(catalog_directory(index.root_dir))
    # the retry is an inner loop as a solve is: in a trusted folder its refuters run code too
    probes = settings.probes(index).for_provider(provider)
    recorder = RunRecorder(run_directory(index.root_dir, f"retry-{label}"), label, config, model, settings.prices,
                           lambda: getattr(provider, "hits", 0), probes=probes.record())
    return RetryRun(index, label, provider, model, config, catalog, recorder, probes)
