"""``colosseum probe``: the prober role alone on one claim (issue 18). The model proposes small
cases and runs them with the tool ``run_python`` (each run in the sandbox, colosseum.probe), in a
tool-use loop bounded by ``[probe] max_tool_calls`` requests (colosseum.models.tool_loop), and
answers with a verdict: consistent, counterexample or inconclusive.

Every execution is recorded in the run folder, ``.colosseum/runs/<time>-probe-<label>/run.json``:
the code, its output, the limits it ran under and which one hit, and the verdict."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from colosseum.app.refusals import RunRefused
from colosseum.core.atomic_files import write_atomically
from colosseum.core.paths import ensure_state_dir
from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.loops.inner.run_record import run_directory
from colosseum.probe import ProbeLimits, probe_limits, sandbox_problem
from colosseum.probe.tool import RUN_PYTHON, Executions
from colosseum.settings import table

ROLE = "prober"
VERDICTS = ("consistent", "counterexample", "inconclusive")
@dataclass
class ProbeSetup:
    """What a probe of ``label`` runs with; ``sandbox`` is why bubblewrap cannot run (None: it can)."""

    index: object
    label: str
    statement: str
    limits: ProbeLimits
    max_tool_calls: int
    sandbox: str | None

    @property
    def runnable(self) -> bool:
        return self.sandbox is None or self.limits.allow_unsandboxed


@dataclass
class ProbeOutcome:
    verdict: str
    answer: dict
    executions: list[dict] = field(default_factory=list)
    requests: int = 0
    folder: Path | None = None
    failure: str = ""
    catalog_entry: str | None = None  # the observation a consistent verdict or a counterexample was recorded in


def probe_setup(index, label: str) -> ProbeSetup:
    """The probe of ``label``; RunRefused when the paper has no such claim, or no text of it."""
    claim = index.claims.get(label)
    if claim is None:
        raise RunRefused(f"no claim labelled {label!r} in the project")
    if claim.kind == "leannode":
        raise RunRefused(f"`{label}` is stated in Lean (\\inputleannode): the paper gives the prober no statement to check")
    settings = table(index.config, "probe")
    return ProbeSetup(index, label, claim.statement_text.strip(), probe_limits(index.config),
                      int(settings.max_tool_calls), sandbox_problem())


def plan_lines(setup: ProbeSetup) -> list[str]:
    """What a run would do, for --dry-run (no call, no execution)."""
    limits = setup.limits
    lines = [f"probe {setup.label}: the prober in at most {setup.max_tool_calls} model request(s), "
             f"each run of run_python in the sandbox",
             f"  limits: cpu {limits.cpu_s:g} s, wall {limits.wall_s:g} s, memory {limits.memory_mb} MiB, "
             f"output {limits.output_bytes} bytes, {limits.processes} processes"]
    if setup.sandbox is not None:
        lines.append(f"  sandbox: {setup.sandbox}")
    return lines


def _verdict(answer: dict) -> str:
    verdict = answer.get("verdict")
    return verdict if verdict in VERDICTS else "inconclusive"


async def run_probe(setup: ProbeSetup, provider, model: str, folder: Path | None = None,
                    record_in_catalog: bool = True) -> ProbeOutcome:
    """Run the prober on the claim; the record goes to ``folder`` (a new run folder by default), and
    a consistent verdict with its range, or a counterexample with its case, to the catalog as
    ``computation`` evidence (colosseum.catalog.computation)."""
    from colosseum.models.step import ModelStep
    from colosseum.models.tool_loop import answer_with_tools

    step = ModelStep(provider)
    request = step.request(ROLE, {"label": setup.label, "claim": setup.statement, "notation": "",
                                  "max_runs": max(0, setup.max_tool_calls - 1)}, tools=(RUN_PYTHON,))
    executions = Executions(setup.limits)
    loop = await answer_with_tools(step, request, executions, setup.max_tool_calls)
    answer = loop.outcome.data
    failure = "" if loop.outcome.ok else loop.outcome.failure
    outcome = ProbeOutcome(_verdict(answer) if not failure else "inconclusive", answer, executions.runs,
                           loop.requests, failure=failure)
    ensure_state_dir(setup.index.root_dir)
    outcome.folder = folder or run_directory(setup.index.root_dir, f"probe-{setup.label}")
    _record(setup, outcome, model)
    if record_in_catalog and (outcome.verdict == "counterexample"
                              or (outcome.verdict == "consistent" and answer.get("range"))):
        outcome.catalog_entry = _record_in_catalog(setup, outcome, model)
    return outcome


def _record_in_catalog(setup: ProbeSetup, outcome: ProbeOutcome, model: str) -> str | None:
    """The catalog is a record of the probe, never a reason to lose its verdict: a failure to write
    it is logged."""
    import logging

    from colosseum.app.knowledge import catalog_directory
    from colosseum.catalog.computation import computation_item, counterexample_item, record_computation

    root = Path(setup.index.root_dir)
    artifact = (outcome.folder / "run.json").relative_to(root).as_posix()
    answer = outcome.answer
    checked = answer.get("range") if isinstance(answer.get("range"), dict) else {}
    if outcome.verdict == "counterexample":  # the claim's finding colosseum/counterexample-found
        found = answer.get("counterexample") if isinstance(answer.get("counterexample"), dict) else {}
        item = counterexample_item(checked, str(found.get("case") or ""), artifact, model)
    else:
        item = computation_item(checked, int(answer.get("cases_checked") or 0), artifact, model)
    try:
        return record_computation(catalog_directory(root), setup.label, setup.statement, item,
                                  outcome.folder.name, model)
    except Exception:  # noqa: BLE001
        logging.getLogger(__name__).exception("recording the probe in the catalog failed")
        return None


def _record(setup: ProbeSetup, outcome: ProbeOutcome, model: str) -> None:
    outcome.folder.mkdir(parents=True, exist_ok=True)
    record = {"schema_version": SCHEMA_VERSION, "kind": "probe", "label": setup.label, "model": model,
              "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "statement": setup.statement,
              "limits": asdict(setup.limits), "max_tool_calls": setup.max_tool_calls,
              "sandboxed": setup.sandbox is None, "requests": outcome.requests, "verdict": outcome.verdict,
              "answer": outcome.answer, "failure": outcome.failure, "executions": outcome.executions}
    write_atomically(outcome.folder / "run.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n")
