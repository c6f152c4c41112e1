"""The review's Markdown report (``<time>-global.md`` under ``core.paths.reviews_dir``), its JSON
beside it, and the JSON the CLI prints."""

from __future__ import annotations

import json
from pathlib import Path

from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.core.atomic_files import write_atomically
from colosseum.loops.review.records import ReviewCritique, ReviewReport
from colosseum.loops.review.storage import report_stem


def _relative(path: Path | None, root_dir: Path) -> str | None:
    if path is None:
        return None
    try:
        return Path(path).relative_to(root_dir).as_posix()
    except ValueError:
        return Path(path).as_posix()


def usage_json(report: ReviewReport, prices: dict | None = None) -> dict:
    from colosseum.models.pricing import cost_usd

    u = report.usage
    return {"calls": u.calls, "input_tokens": u.input_tokens, "output_tokens": u.output_tokens,
            "cache_read_tokens": u.cache_read_tokens, "cache_write_tokens": u.cache_write_tokens,
            "response_cache_hits": report.cache_hits, "token_counts": report.token_counts,
            "cost_usd": cost_usd(u, report.model, prices)}


def critique_json(c: ReviewCritique, root_dir: Path) -> dict:
    return {"file": _relative(c.file, root_dir) if c.anchored else None, "line": c.line, "severity": c.severity,
            "kind": c.kind, "message": c.message, "quote": c.quote, "anchored": c.anchored}


def report_json(report: ReviewReport, root_dir: Path, prices: dict | None = None) -> dict:
    """Exactly ``{"verdict", "critiques": [{"file", "line", "severity", "kind", "message",
    "quote", "anchored"}], "usage"}``; dismissed critiques are left out (they are in the
    Markdown report), unanchored ones have ``"anchored": false`` and null file and line."""
    return {"verdict": report.verdict,
            "critiques": [critique_json(c, root_dir) for c in report.critiques if c.active],
            "usage": usage_json(report, prices)}


def render_markdown(report: ReviewReport, root_dir: Path, title: str = "Global review",
                    prices: dict | None = None) -> str:
    usage = usage_json(report, prices)
    cost = f"about ${usage['cost_usd']:.2f}" if usage["cost_usd"] is not None else f"unknown (no price for {report.model})"
    active = [c for c in report.critiques if c.active]
    lines = [f"# {title}: {report.verdict}", "",
             f"Model {report.model}; {report.usage.calls} model calls, {report.usage.input_tokens} input tokens "
             f"({report.usage.cache_read_tokens} read from the prompt cache), {report.usage.output_tokens} output "
             f"tokens, {report.cache_hits} answers from the response cache, {report.token_counts} token counts; "
             f"cost {cost}.", "",
             "Natural-language review is evidence, not a formal check.", "", "## Reasons", ""]
    lines += [f"- {r}" for r in report.reasons]
    if report.split is not None:
        lines += ["", "## Read in parts", "", report.split.describe(), ""]
        for p in report.split.parts:
            lines.append(f"- **{p.id}** ({p.tokens:,} tokens): {'; '.join(p.units)}; files {', '.join(p.files)}; "
                         f"with the statements of {', '.join(p.relies_on) or 'nothing outside it'}")
    lines += ["", "## Reviewers", ""]
    lines += [f"- {v.reviewer}: {v.verdict}" + (f" ({'; '.join(v.reasons)})" if v.reasons else "")
              for v in report.reviewer_verdicts]
    lines += ["", f"## Critiques ({len(active)}, of which {sum(1 for c in active if not c.anchored)} unanchored)", ""]
    if not active:
        lines.append("None.")
    for c in active:
        lines += _critique_lines(c, root_dir, veto=c.id in report.vetoes)
    dismissed = [c for c in report.critiques if not c.active]
    if dismissed:
        lines += ["", f"## Dismissed by the author ({len(dismissed)})", ""]
        for c in dismissed:
            lines += _critique_lines(c, root_dir)
    if report.withdrawn:
        lines += ["", "## Withdrawn by the synthesis (artefacts of reading in parts)", ""]
        lines += [f"- {cid}: {why}" for cid, why in report.withdrawn.items()]
    return "\n".join(lines) + "\n"


def _critique_lines(c: ReviewCritique, root_dir: Path, veto: bool = False) -> list[str]:
    where = f"`{_relative(c.file, root_dir)}:{c.line}`" if c.anchored else "unanchored (its quote is not in the document)"
    head = f"- **{c.severity}** {c.kind}{' (veto)' if veto else ''} at {where} [{c.id}; {', '.join(c.reviewers)}]"
    out = [head, f"  > {c.quote.strip()}" if c.quote.strip() else "  > (no quote)", f"  {c.message}"]
    if c.repair:
        out.append(f"  Repair: {c.repair}")
    out += [f"  Also said: {m}" for m in c.also]
    return out


def write_report(report: ReviewReport, index, name: str = "global", prices: dict | None = None,
                 computation: dict | None = None) -> Path:
    """``<time>-<name>.md`` and ``.json`` (the whole record) under ``core.paths.reviews_dir``; returns the .md.
    ``computation`` (label -> colosseum.catalog.evidence items): what probes found, in a section of
    its own, apart from the review."""
    root_dir = index.root_dir if hasattr(index, "root_dir") else Path(index)
    stem = report_stem(root_dir, name)
    record = {"schema_version": SCHEMA_VERSION, **report_json(report, root_dir, prices), "reasons": report.reasons,
              "model": report.model,
              "vetoes": report.vetoes, "withdrawn": report.withdrawn, "status": report.status,
              "reviewers": [vars(v) for v in report.reviewer_verdicts],
              "split": None if report.split is None else {
                  "document_tokens": report.split.document_tokens, "budget": report.split.budget,
                  "exact_counts": report.split.exact, "parts": [vars(p) for p in report.split.parts]},
              "all_critiques": [{**critique_json(c, root_dir), "id": c.id, "key": c.key, "keys": list(c.all_keys),
                                 "reviewers": list(c.reviewers),
                                 "also": list(c.also), "repair": c.repair, "part": c.part, "dismissed": c.dismissed,
                                 "range": None if c.range is None else [list(c.range.start), list(c.range.end)]}
                                for c in report.critiques]}
    markdown = render_markdown(report, root_dir, prices=prices)
    if computation is not None:
        from colosseum.catalog.evidence import claims_computation_section

        record["computation"] = {label: [i.as_json() for i in items] for label, items in computation.items()}
        markdown += "\n" + "\n".join(claims_computation_section(computation))
    write_atomically(stem.with_suffix(".json"), json.dumps(record, indent=2, ensure_ascii=False))
    path = stem.with_suffix(".md")
    write_atomically(path, markdown)
    report.report_path = path
    return path
