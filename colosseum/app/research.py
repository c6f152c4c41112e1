"""The research pipeline, set up once for the CLI and the editor: its settings, one run per
model sharing one budget, cross-model selection between two runs, and the draft file's text."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from colosseum.app.knowledge import catalog_directory
from colosseum.app.run_settings import RunOverrides, RunSettings, inner_loop_config
from colosseum.app.stops import stop_reason
from colosseum.catalog.store import load_catalog
from colosseum.core.atomic_files import write_atomically
from colosseum.loops.inner.records import InnerLoopConfig
from colosseum.models.budget import Budget
from colosseum.models.metered import MeteredProvider
from colosseum.loops.research.pipeline import ResearchRun
from colosseum.loops.research.review_adapter import ReviewLayer
from colosseum.loops.research.run_log import ResearchRecorder
from colosseum.loops.research.settings import research_settings


@dataclass
class ResearchSetup:
    """A research run's settings (colosseum.toml with the command's overrides), the one budget every
    model's run and the judges share, and the catalog the runs read and write."""

    settings: RunSettings
    config: object  # ResearchConfig
    selection: object  # SelectionSettings
    inner_config: InnerLoopConfig
    problems: list[str]
    budget: Budget
    catalog_dir: Path
    catalog: object

    def new_run(self, index, label: str, inner_provider, model: str, folder: Path, progress,
                stop_after: str | None = None) -> ResearchRun:
        provider = MeteredProvider(inner_provider, self.budget)
        recorder = ResearchRecorder(folder, label, model, self.config, self.settings.prices)
        return ResearchRun(index, label, provider, self.config, self.inner_config, ReviewLayer(provider, index.config),
                           self.catalog, self.catalog_dir, recorder, progress, stop_after, model, self.settings.prices)


def research_setup(index, overrides: RunOverrides, rounds: int | None = None, judges: int | None = None,
                   threshold: int | None = None) -> ResearchSetup:
    config, selection, problems = research_settings(index.config, rounds, overrides.max_calls, judges, threshold)
    # the research run's own budget bounds every call, the inner loop's included
    inner_config = replace(inner_loop_config(index.config)[0], max_calls=None)
    catalog_dir = catalog_directory(index.root_dir)
    return ResearchSetup(RunSettings.of(index, overrides), config, selection, inner_config, problems,
                         Budget.of_started_calls(config.max_calls), catalog_dir, load_catalog(catalog_dir))


@dataclass(frozen=True)
class Selection:
    """Cross-model selection's answer: which run is submitted, or why the selection did not finish."""

    picked: object = None  # the selection record, None when it did not finish
    chosen: str = "A"
    failure: str = ""


async def select_between(result_a, result_b, judge_provider, problem: str, selection, model_a: str, model_b: str,
                         top: Path) -> Selection:
    """Model B judges A's proof; the record goes to ``selection.json`` and ``selection.md``. A
    selection stopped by the budget or the model still leaves both runs (A is kept)."""
    from colosseum.loops.research.selection import cross_model_select

    try:
        picked = await cross_model_select(result_a, result_b, judge_provider, problem, selection.judges,
                                          selection.threshold)
    except Exception as exc:  # noqa: BLE001 - a failed selection still leaves both runs on disk
        reason = stop_reason(exc)
        if reason is None or reason.kind not in ("budget-reached", "model-unreachable"):
            raise
        return Selection(failure=str(exc))
    write_atomically(top / "selection.json", json.dumps({**picked.to_json(), "model_a": model_a, "model_b": model_b},
                                                        indent=2, ensure_ascii=False))
    write_atomically(top / "selection.md", _selection_report(picked, model_a, model_b))
    return Selection(picked, picked.chosen if picked.chosen != "none" else "A")


def _selection_report(picked, model_a: str, model_b: str) -> str:
    lines = [f"# Cross-model selection: model {picked.chosen} submitted", "",
             f"Model A: {model_a}; model B: {model_b}. {picked.reason}.", "",
             "| judge | correct | first failing step | reasons |", "|---|---|---|---|"]
    lines += [f"| {v.judge} | {'yes' if v.correct else 'no'} | {v.fatal_flaw or '-'} | {v.reasons} |"
              for v in picked.verdicts]
    return "\n".join(lines)


def default_output(claim_file: Path, label: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", label).strip("-").lower() or "theorem"
    return claim_file.with_name(f"{claim_file.stem}-{slug}-skeleton.tex")


def input_line(out: Path, root: Path) -> str:
    relative = Path(os.path.relpath(out, root.parent)).as_posix()
    return "\\input{" + (relative[:-4] if relative.endswith(".tex") else relative) + "}"


def skeleton_file_text(result, label: str, out: Path, root: Path, replaces_proof: bool) -> str:
    where = "in place of its empty proof" if replaces_proof else "right after the theorem"
    header = [f"Written by `colosseum research` for {label} (run {Path(str(result.run_dir)).name}, model "
              f"{result.model}, status {result.status}).", f"Put {input_line(out, root)} {where}."]
    header += draft_summary(result)
    header.append("Model review is evidence, not a formal check: read it before relying on it.")
    return "\n".join(f"% {line}" for line in header) + "\n\n" + result.draft.strip() + "\n"


def draft_summary(result) -> list[str]:
    """Exactly what the draft holds: which obligations were proved and passed their local review,
    what happened to the others, and what the global review said (if it ran)."""
    obligations = list(result.decomposition.obligations) if result.decomposition is not None else []
    outcomes = result.sections
    passed = [o for o in obligations if outcomes.get(o) is not None and outcomes[o].status == "passed"]
    lines = []
    if obligations and len(passed) == len(obligations):
        lines.append(f"Each of the {len(obligations)} obligations below was proved by the inner loop and passed "
                     "its local review.")
    elif obligations:
        lines.append(f"{len(passed)} of the {len(obligations)} obligations below were proved by the inner loop and "
                     "passed their local review" + (f" ({', '.join(passed)})" if passed else "") + "; the others "
                     "have no reviewed proof:")
        lines += [f"  {o}: {_unproved(outcomes.get(o))}" for o in obligations if o not in passed]
    if result.rounds:
        lines.append(f"Global review: {result.final_verdict} (round {len(result.rounds)}); its report is in the "
                     "run directory.")
    else:
        lines.append("No global review was run on this draft.")
    return lines


def _unproved(outcome) -> str:
    if outcome is None:
        return "never attempted (the run stopped before it)"
    if outcome.status == "blocked":
        return "never attempted (what it rests on did not pass)"
    if outcome.status == "failed" and outcome.attempts:
        return f"did not pass its local review ({outcome.attempts} attempt{'s' if outcome.attempts != 1 else ''})"
    if outcome.status == "failed":
        return "not finished (the run stopped during its first attempt)"
    return outcome.status


class CatalogNotUpdated(Exception):
    """The catalog could not take the draft's lemmas (the draft itself is written)."""


def record_reviewed_lemmas(index, draft, result, out: Path) -> list[str]:
    """Each lemma of the written draft that passed its local review becomes an observation with
    model-reviewed proof as its evidence (not a result: it is not in the paper until the author
    inputs the draft)."""
    from colosseum.catalog.curator import record_reviewed_proof

    if result.decomposition is None:
        return []
    where = str(out.resolve().relative_to(index.root_dir)) if out.resolve().is_relative_to(index.root_dir) else str(out)
    run_id = Path(str(result.run_dir)).name if result.run_dir else "research"
    written = []
    try:
        for label in result.decomposition.obligations:
            outcome = result.sections.get(label)
            if outcome is None or outcome.status != "passed":
                continue
            described = (f"Proved in research run {run_id} for {result.label} and passed its local review "
                         f"after {outcome.attempts} attempt(s); the global review said {result.final_verdict}. "
                         f"The proof is in the draft {where}. Not yet read by a person.")
            written.append(record_reviewed_proof(catalog_directory(index.root_dir), label, draft.statement(label),
                                                 described, where, run_id, result.model))
    except (OSError, TimeoutError, ValueError, KeyError) as exc:
        raise CatalogNotUpdated(str(exc)) from exc
    return written
