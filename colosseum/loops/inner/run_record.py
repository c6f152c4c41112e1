"""Every run leaves ``.colosseum/runs/<time>-<label>/`` (under ``core.paths.runs_dir``): each
candidate, critique, sampled group and aggregate, the seed, the prompt versions, the model, tokens
and cache hits, and a readable report, so that a run can be audited after the fact. Files are
written atomically."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from colosseum.core.atomic_files import write_atomically
from colosseum.core.liveness import process_stamp
from colosseum.core.paths import runs_dir
from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.loops.inner.records import BLOCKING_SEVERITIES, InnerLoopConfig, SolveResult, dropped_summary
from colosseum.models.prompts import load_prompt

RUN_ROLES = ("angle_planner", "generator", "refuter", "resolution_checker", "aggregator")


def run_directory(project_dir: Path, label: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)[:80]
    path = runs_dir(project_dir) / f"{stamp}-{safe}"
    suffix = 1
    while path.exists():
        suffix += 1
        path = path.with_name(f"{stamp}-{safe}-{suffix}")
    return path


def _record(label: str, seed: int, model: str, config: InnerLoopConfig, bundles: dict, groups: list,
            reached_root: list, usage, clusters: list, swapped: list, cache_hits: int, prices: dict | None,
            status: str, dropped: list) -> dict:
    from colosseum.models.pricing import cost_usd

    return {
        "label": label, "status": status, **process_stamp(), "seed": seed, "model": model,
        "config": {"leaves": config.leaves, "refuters_per_candidate": config.refuters_per_candidate,
                   "widths": list(config.widths), "k": config.k, "cover_strategies": config.cover_strategies,
                   "final_refuters": config.final_refuters, "plan_angles": config.plan_angles},
        "prompts": {role: load_prompt(role).version for role in RUN_ROLES},
        "groups": [[{"aggregator": name, "drew": members} for name, members in level] for level in groups],
        "reached_root": reached_root,
        "dropped": [vars(d) for d in dropped],
        "strategy_clusters": clusters, "swapped_in_to_cover_clusters": swapped,
        "usage": {"calls": usage.calls, "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
                  "cache_read_tokens": usage.cache_read_tokens, "cache_write_tokens": usage.cache_write_tokens,
                  "response_cache_hits": cache_hits, "cost_usd": cost_usd(usage, model, prices),
                  "batch_priced": bool((prices or {}).get("batch"))},  # --batch: at half the list price
        "bundles": {b.id: {"level": b.level, "sources": list(b.sources), "strategy": b.candidate.strategy,
                           "angle": b.candidate.angle, "proof": b.candidate.proof, "resolved": b.resolved,
                           "unconfirmed": b.unconfirmed,
                           "alternative": b.alternative.proof if b.alternative is not None else None,
                           "conflicts": b.conflicts, "critiques": [vars(c) for c in b.critiques]}
                    for b in bundles.values()},
    }


class RunRecorder:
    """Writes the run as it goes: after every stage run.json holds everything done so far, with
    its status (running, done, cancelled, budget-stopped, incomplete, failed) and the candidates
    dropped so far, so a run stopped anywhere
    leaves a consistent record of what it did."""

    def __init__(self, directory: Path, label: str, config: InnerLoopConfig, model: str, prices: dict | None = None,
                 cache_hits=lambda: 0, context=None, formal_section: str = "", probes: dict | None = None):
        self.directory, self.label, self.config, self.model, self.prices = directory, label, config, model, prices
        self.formal_section = formal_section  # the Lean check of the claim, shown apart from review
        self.context = context  # the ObligationContext: what the catalog contributed is recorded
        self.cache_hits = cache_hits
        self.seed = 0
        self.bundles: dict = {}
        self.groups: list = []
        self.dropped: list = []  # Dropped candidates, as the run said last
        # whether the refuters had run_python ({"offered", "reason", "limits", "max_tool_calls"})
        self.probes = probes
        self.executions: list[dict] = []  # every run of run_python, as the run said last

    def update(self, seed: int, bundles: dict, groups: list, usage, dropped: list = (), executions: list = ()) -> None:
        self.seed, self.bundles, self.groups, self.dropped = seed, dict(bundles), list(groups), list(dropped)
        self.executions = list(executions)
        self._write("running", usage)

    def finish(self, status: str, usage, result: SolveResult | None = None) -> Path:
        if result is not None:
            self.seed, self.bundles, self.groups = result.seed, result.bundles, result.groups
            self.dropped, self.executions = list(result.dropped), list(result.executions)
        record = self._write(status, usage, result)
        if result is not None:
            write_atomically(self.directory / "report.md", report(self.label, result, record, self.formal_section))
        return self.directory

    def _write(self, status: str, usage, result: SolveResult | None = None) -> dict:
        record = _record(self.label, self.seed, self.model, self.config, self.bundles, self.groups,
                         result.reached_root if result else [], usage, result.clusters if result else [],
                         result.covered_by_swap if result else [], self.cache_hits(), self.prices, status,
                         self.dropped)
        if result is not None:
            record.update(outcome_record(result))
        # a finished run has the verdict of its result; one that stopped is incomplete; one that runs, none yet
        verdict = result.verdict if result is not None else None if status == "running" else "incomplete"
        record = {"schema_version": SCHEMA_VERSION, **record, "verdict": verdict}
        record["probes"] = self.probes or {"offered": False, "reason": "not asked for"}
        record["executions"] = self.executions
        if self.context is not None:
            record["catalog"] = {"entries": list(self.context.catalog_entries), "tokens": self.context.catalog_tokens}
            # the catalog's computations on the claim (range, verdict): evidence apart, never a proof
            record["catalog"]["computation"] = [item.as_json() for item in self.context.computation]
        write_atomically(self.directory / "run.json", json.dumps(record, indent=2, ensure_ascii=False))
        return record


def outcome_record(result: SolveResult) -> dict:
    """What the verdict rests on: the angle plan, the final refutation, the verdict."""
    final, plan = result.final_refutation, result.angle_plan
    return {"verdict": result.verdict,
            "angle_plan": None if plan is None else {"angles": list(plan.angles), "planned": plan.planned,
                                                     "reason": plan.reason},
            "final_refutation": {"calls": final.calls, "failed": list(final.failed),
                                 "critiques": [vars(c) for c in final.critiques]}}


def write_run(directory: Path, label: str, result: SolveResult, config: InnerLoopConfig, model: str,
              cache_hits: int = 0, prices: dict | None = None) -> Path:
    """The record of a finished run (see RunRecorder for one written as it goes)."""
    return RunRecorder(directory, label, config, model, prices, lambda: cache_hits).finish("done", result.usage, result)


def report(label: str, result: SolveResult, record: dict, formal_section: str = "") -> str:
    usage = record["usage"]
    lines = [f"# Solve `{label}`", "",
             f"Seed {result.seed}; {usage['calls']} model calls, {usage['input_tokens']} input tokens "
             f"({usage['cache_read_tokens']} read from the prompt cache), {usage['output_tokens']} output tokens, "
             f"{usage['response_cache_hits']} answers from the response cache; cost "
             + (f"about ${usage['cost_usd']:.2f}." if usage.get("cost_usd") is not None else "unknown (no price for "
                f"{record['model']})."), "",
             f"Critiques written: {sum(len(b.critiques) for b in result.bundles.values() if b.level == 0)}, of which "
             f"{sum(1 for b in result.bundles.values() if b.level == 0 for c in b.critiques if not c.anchored)} "
             "unanchored (their quote is not in the candidate they attack: counted, never trusted).", "",
             f"Leaves that reached the root: {', '.join(result.reached_root) or 'none'} "
             f"(of {sum(1 for b in result.bundles.values() if b.level == 0)}).", "",
             *([dropped_summary(result.dropped, record["config"]["leaves"]) + ".", ""] if result.dropped else []),
             *([formal_section.rstrip("\n"), ""] if formal_section else []),
             *verdict_section(result), *evidence_section(result, record), "",
             "## Proof", "", result.root.candidate.proof, "", "## Surviving critiques", ""]
    if not result.root.critiques:
        lines.append("None survived. (Natural-language review is evidence, not a formal check.)")
    for c in result.root.critiques:
        anchor = ("" if c.anchored else " (its quote is not in the candidate it attacks: unanchored)") + (
            f" (counterexample found by execution; the run printed: {c.evidence.get('stdout', '')[:300]!r})"
            if c.computational else "")
        lines.append(f"- **{c.severity}** {c.kind} [{c.id}, against {c.origin}]{anchor}: \"{c.quote}\" — "
                     f"{c.explanation}" + (f" Repair: {c.repair}" if c.repair else ""))
    if result.root.conflicts:
        lines += ["", "## Open conflicts", ""] + [f"- {c}" for c in result.root.conflicts]
    if result.root.alternative is not None:
        lines += ["", "## Competing proof kept by the root aggregator (not refuted afresh)", "",
                  result.root.alternative.proof]
    return "\n".join(lines) + "\n"


def evidence_section(result: SolveResult, record: dict) -> list[str]:
    """What the verdict rests on: model refuters, the final refutation, the checked resolutions."""
    config, final, plan = record["config"], result.final_refutation, result.angle_plan
    leaves = [b for b in result.bundles.values() if b.level == 0]
    blocking = [c for c in final.critiques if c.severity in BLOCKING_SEVERITIES]
    confirmed = sorted({cid for b in result.bundles.values() for cid in b.resolved})
    unconfirmed = {cid: why for b in result.bundles.values() for cid, why in b.unconfirmed.items()}
    lines = ["## Evidence", "",
             f"Verdict: **{result.verdict}**. It rests on model review alone (natural-language refuters, no "
             "formal check):", "",
             f"- Refuters: {len(leaves)} candidate(s), each read by {config['refuters_per_candidate']} refuter(s)"
             + (f"; {len(result.dropped)} candidate(s) dropped" if result.dropped else "") + ".",
             f"- Final refutation: {final.calls} fresh refuter(s) read the root proof; {len(final.critiques)} "
             f"critique(s), {len(blocking)} fatal or major (they joined the survivors)"
             + (f"; {len(final.failed)} call(s) failed, so the verdict cannot be unrefuted: "
                + "; ".join(final.failed) if final.failed else "") + ".",
             f"- Resolutions claimed by aggregators: {len(confirmed)} confirmed by a checker"
             + (f" ({', '.join(confirmed)})" if confirmed else "") + f", {len(unconfirmed)} not confirmed "
             "(the critique was carried upward)" + (":" if unconfirmed else ".")]
    lines += [f"  - {cid}: {why}" for cid, why in sorted(unconfirmed.items())]
    if result.executions:
        shown = [c for c in result.root.critiques if c.computational]
        lines.append(f"- Computation (apart from model review, never a proof): {len(result.executions)} run(s) of "
                     f"run_python by refuters in the sandbox; {len(shown)} counterexample(s) shown by a run (fatal, "
                     "anchored on the claim's statement; no aggregator can resolve them).")
    if plan is not None:
        lines.append(f"- Angles: {'planned for this claim' if plan.planned else 'the fixed list'} ({plan.reason}).")
    return lines


def verdict_section(result: SolveResult) -> list[str]:
    """The report's "## Verdict" lines: the verdict and the evidence it rests on."""
    blocking = [c for c in result.root.critiques if c.severity in BLOCKING_SEVERITIES]
    if blocking:
        why = (f"{len(blocking)} fatal or major critique(s) survived the final check of the root proof "
               f"({', '.join(c.id for c in blocking)}): the proof is not offered as sound.")
    else:
        why = ("no fatal or major critique survived the final check of the root proof (minor ones are listed "
               "below and never change the verdict). The evidence is model refutation, not a person's reading "
               "nor a formal check: the proof enters the paper as a draft.")
    return ["## Verdict", "", f"**{result.verdict}**: {why}", ""]
