"""Every run leaves ``.colosseum/runs/<time>-<label>/``: each candidate, critique, sampled group
and aggregate, the seed, the prompt versions, the model, tokens and cache hits, and a readable
report, so that a run can be audited after the fact. Files are written atomically."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from pathlib import Path

from colosseum.inner_loop.records import InnerLoopConfig, SolveResult
from colosseum.prompt_specs import load_prompt


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def run_directory(project_dir: Path, label: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)[:80]
    path = project_dir / ".colosseum" / "runs" / f"{stamp}-{safe}"
    suffix = 1
    while path.exists():
        suffix += 1
        path = path.with_name(f"{stamp}-{safe}-{suffix}")
    return path


def write_run(directory: Path, label: str, result: SolveResult, config: InnerLoopConfig, model: str,
              cache_hits: int = 0, prices: dict | None = None) -> Path:
    from colosseum.models.pricing import cost_usd

    bundles = {}
    for bundle in result.bundles.values():
        bundles[bundle.id] = {
            "level": bundle.level, "sources": list(bundle.sources), "strategy": bundle.candidate.strategy,
            "angle": bundle.candidate.angle, "proof": bundle.candidate.proof, "resolved": bundle.resolved,
            "conflicts": bundle.conflicts,
            "critiques": [vars(c) for c in bundle.critiques],
        }
    record = {
        "label": label, "seed": result.seed, "model": model,
        "config": {"leaves": config.leaves, "refuters_per_candidate": config.refuters_per_candidate,
                   "widths": list(config.widths), "k": config.k},
        "prompts": {role: load_prompt(role).version for role in ("generator", "refuter", "aggregator")},
        "groups": [[{"aggregator": name, "drew": members} for name, members in level] for level in result.groups],
        "reached_root": result.reached_root,
        "strategy_clusters": result.clusters, "swapped_in_to_cover_clusters": result.covered_by_swap,
        "usage": {"calls": result.usage.calls, "input_tokens": result.usage.input_tokens,
                  "output_tokens": result.usage.output_tokens, "cache_read_tokens": result.usage.cache_read_tokens,
                  "cache_write_tokens": result.usage.cache_write_tokens, "response_cache_hits": cache_hits,
                  "cost_usd": cost_usd(result.usage, model, prices)},
        "bundles": bundles,
    }
    _write(directory / "run.json", json.dumps(record, indent=2, ensure_ascii=False))
    _write(directory / "report.md", report(label, result, record))
    return directory


def report(label: str, result: SolveResult, record: dict) -> str:
    usage = record["usage"]
    lines = [f"# Solve `{label}`", "",
             f"Seed {result.seed}; {usage['calls']} model calls, {usage['input_tokens']} input tokens "
             f"({usage['cache_read_tokens']} read from the prompt cache), {usage['output_tokens']} output tokens, "
             f"{usage['response_cache_hits']} answers from the response cache; cost "
             + (f"about ${usage['cost_usd']:.2f}." if usage.get("cost_usd") is not None else "unknown (no price for "
                f"{record['model']})."), "",
             f"Leaves that reached the root: {', '.join(result.reached_root) or 'none'} "
             f"(of {sum(1 for b in result.bundles.values() if b.level == 0)}).", "",
             "## Proof", "", result.root.candidate.proof, "", "## Surviving critiques", ""]
    if not result.root.critiques:
        lines.append("None survived. (Natural-language review is evidence, not a formal check.)")
    for c in result.root.critiques:
        anchor = "" if c.anchored else " (its quote is not in the candidate it attacks: unanchored)"
        lines.append(f"- **{c.severity}** {c.kind} [{c.id}, against {c.origin}]{anchor}: \"{c.quote}\" — "
                     f"{c.explanation}" + (f" Repair: {c.repair}" if c.repair else ""))
    if result.root.conflicts:
        lines += ["", "## Open conflicts", ""] + [f"- {c}" for c in result.root.conflicts]
    return "\n".join(lines) + "\n"
