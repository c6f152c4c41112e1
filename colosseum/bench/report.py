"""The report a person reads: ``report.json`` (every number, ``schema_version`` first),
``report.md`` (the summary per method, the per-problem table, the graders' agreement and their
disagreements) and the plot of accuracy against cost per method (PNG and SVG, with the ``[bench]``
extra; without it the report says which extra to install)."""

from __future__ import annotations

import json
from pathlib import Path

from colosseum.bench.agreement import fleiss_kappa, observed_agreement, rating_table
from colosseum.bench.grading import consensus, disagreements
from colosseum.bench.records import GRADES, METHOD, METHODS, SPLIT, TOLERANCE, Attempt
from colosseum.bench.requests import Pricing, Spend
from colosseum.bench.run import BenchResult
from colosseum.core.atomic_files import write_atomically
from colosseum.core.extras import MissingExtra, import_extra
from colosseum.core.schema_version import SCHEMA_VERSION


def _spend(spend: Spend, pricing) -> dict:
    u = spend.usage
    return {"calls": u.calls, "calls_made": spend.calls_made, "cache_hits": spend.cache_hits,
            "failed_calls": spend.failed_calls, "input_tokens": u.input_tokens, "output_tokens": u.output_tokens,
            "cache_read_tokens": u.cache_read_tokens, "cache_write_tokens": u.cache_write_tokens,
            "cost_usd": round(pricing.cost(u), 6), "seconds": round(spend.seconds, 3)}


def attempt_row(attempt: Attempt, result: BenchResult) -> dict:
    row = {"method": attempt.method, **_spend(attempt.spend, result.pricing)}
    if attempt.budget_usd is not None:
        ratio = row["cost_usd"] / attempt.budget_usd if attempt.budget_usd else None
        row.update(budget_usd=round(attempt.budget_usd, 6), cost_ratio=None if ratio is None else round(ratio, 4),
                   within_budget=ratio is not None and abs(ratio - 1) <= TOLERANCE)
    row.update(stopped=attempt.stopped, grade=consensus(attempt, result.settings.graders),
               grades=[{"grader": g.grader, "grade": g.grade, "reason": g.reason} for g in attempt.grades],
               grader_failures=attempt.grader_failures, detail=attempt.detail, answer=attempt.answer)
    return row


def method_summary(rows: list[dict]) -> dict:
    counts = {verdict: sum(r["grade"] == verdict for r in rows) for verdict in (*GRADES, SPLIT)}
    n = len(rows)
    cost = sum(r["cost_usd"] for r in rows)
    summary = {"problems": n, **counts, "accuracy": counts["correct"] / n if n else None,
               "minor_gaps_rate": counts["minor_gaps"] / n if n else None, "cost_usd": round(cost, 6),
               "mean_cost_usd": round(cost / n, 6) if n else None,
               **{k: sum(r[k] for r in rows) for k in ("calls", "calls_made", "cache_hits", "input_tokens",
                                                        "output_tokens")},
               "seconds": round(sum(r["seconds"] for r in rows), 3),
               "stopped": sum(bool(r["stopped"]) for r in rows)}
    if rows and "within_budget" in rows[0]:
        summary["within_budget"] = sum(r["within_budget"] for r in rows)
    return summary


def _grading_pricing(result: BenchResult) -> Pricing:
    """The graders' model at its list price (the solvers' prices when it is theirs)."""
    model = result.settings.grader_model
    return result.pricing if not model or model == result.pricing.model else Pricing(model)


def report_data(result: BenchResult) -> dict:
    """Everything the report shows, as one JSON object."""
    rows = {a.key: attempt_row(a, result) for a in result.attempts}
    methods = [m for m in METHODS if any(a.method == m for a in result.attempts)]
    table = rating_table([[g.grade for g in a.grades] for a in result.attempts])
    observed, kappa = observed_agreement(table), fleiss_kappa(table)
    calls_made = sum(a.spend.calls_made for a in result.attempts) + result.grading.calls_made
    return {
        "schema_version": SCHEMA_VERSION,
        "model": result.pricing.model, "prices": result.pricing.overrides,
        "settings": {"graders": result.settings.graders, "grader_model": result.settings.grader_model
                     or result.pricing.model, "max_thinking_tokens": result.settings.max_thinking_tokens,
                     "tolerance": TOLERANCE, "inner_loop": {"leaves": result.config.leaves,
                                                            "widths": list(result.config.widths),
                                                            "planned_calls": result.config.planned_calls()}},
        "methods": {m: method_summary([rows[a.key] for a in result.attempts if a.method == m]) for m in methods},
        "problems": [{"label": p.label, "statement": p.statement, "has_reference": p.has_reference,
                      "rows": {m: rows[f"{m}/{p.label}"] for m in methods}} for p in result.problems],
        "agreement": {"answers_rated": len(table), "raw_percent": None if observed is None else round(100 * observed, 2),
                      "fleiss_kappa": None if kappa is None else round(kappa, 4)},
        "disagreements": [{"label": a.label, "method": a.method,
                           "grades": [{"grader": g.grader, "grade": g.grade, "reason": g.reason} for g in a.grades]}
                          for a in disagreements(result.attempts)],
        "grading": _spend(result.grading, _grading_pricing(result)),
        "calls_made": calls_made,
    }


def _money(value) -> str:
    return "-" if value is None else f"${value:.4f}"


def _percent(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def report_markdown(data: dict, plot_note: str) -> str:
    lines = [f"# Benchmark: {len(data['problems'])} problem(s), model {data['model']}", "",
             f"Each baseline is given the list-price cost the method spent on the same problem (equal within "
             f"{int(100 * data['settings']['tolerance'])}%); a method that would exceed it stops and is scored as it "
             f"stands. Accuracy is the share of answers that a majority of the {data['settings']['graders']} graders "
             f"({data['settings']['grader_model']}) call correct; minor gaps are counted apart.", "",
             "| method | accuracy | correct | minor gaps | wrong | split | cost | mean cost | calls | input tokens "
             "| output tokens | wall s | within budget | stopped |", "|---" * 14 + "|"]
    for name, s in data["methods"].items():
        within = f"{s['within_budget']}/{s['problems']}" if "within_budget" in s else "(the budget)"
        lines.append(f"| {name} | {_percent(s['accuracy'])} | {s['correct']} | {s['minor_gaps']} | {s['wrong']} | "
                     f"{s[SPLIT]} | {_money(s['cost_usd'])} | {_money(s['mean_cost_usd'])} | {s['calls']} | "
                     f"{s['input_tokens']:,} | {s['output_tokens']:,} | {s['seconds']:.1f} | {within} | {s['stopped']} |")
    lines += ["", f"direct is one call that may think as many tokens as the method wrote (at most "
              f"{data['settings']['max_thinking_tokens']:,}): it spends less than the method where the method's cost "
              "is mostly input. best-of-n takes as many samples as the cost allows and one selection; self-refine "
              "revises while the next round fits.", "",
              plot_note, "", "## Per problem", "",
              "| problem | reference | " + " | ".join(data["methods"]) + " |", "|---" * (2 + len(data["methods"])) + "|"]
    for p in data["problems"]:
        cells = [f"{r['grade']} ({_money(r['cost_usd'])}, {r['calls']} call{'' if r['calls'] == 1 else 's'}"
                 f"{', stopped' if r['stopped'] else ''})"
                 for r in p["rows"].values()]
        lines.append(f"| {p['label']} | {'yes' if p['has_reference'] else 'no'} | " + " | ".join(cells) + " |")
    a = data["agreement"]
    lines += ["", "## Graders", "",
              f"Raw agreement {a['raw_percent'] if a['raw_percent'] is not None else '-'}% "
              f"(share of grader pairs agreeing, over {a['answers_rated']} answers); Fleiss' kappa "
              f"{a['fleiss_kappa'] if a['fleiss_kappa'] is not None else '- (undefined: one grade only)'}. "
              f"Grading cost {_money(data['grading']['cost_usd'])} in {data['grading']['calls']} calls.", ""]
    if data["disagreements"]:
        lines += ["### Disagreements, for a person to read", ""]
        for d in data["disagreements"]:
            lines.append(f"- **{d['label']}**, {d['method']}:")
            lines += [f"  - grader {g['grader'] + 1}: {g['grade']}: {g['reason']}" for g in d["grades"]]
    else:
        lines.append("The graders agreed on every answer.")
    lines += ["", f"{data['calls_made']} model call(s) made by this run; the rest came from the response cache."]
    return "\n".join(lines) + "\n"


def write_plot(data: dict, folder: Path) -> tuple[list[Path], str]:
    """accuracy.png and accuracy.svg: accuracy against mean cost per problem, one point per method.
    Returns (the files written, the line the report says of them)."""
    try:
        matplotlib = import_extra("matplotlib", "bench")
    except MissingExtra as exc:
        return [], f"No plot: {exc.message}."
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    for name, s in data["methods"].items():
        if s["accuracy"] is None:
            continue
        axes.scatter([s["mean_cost_usd"]], [100 * s["accuracy"]], s=60, marker="*" if name == METHOD else "o")
        axes.annotate(name, (s["mean_cost_usd"], 100 * s["accuracy"]), textcoords="offset points", xytext=(6, 4))
    axes.set_xlabel("mean list-price cost per problem (USD)")
    axes.set_ylabel("accuracy (% graded correct)")
    axes.set_ylim(-5, 105)
    axes.set_title(f"{len(data['problems'])} problem(s), {data['model']}")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    paths = [folder / "accuracy.png", folder / "accuracy.svg"]
    for path in paths:
        figure.savefig(path, metadata={"Date": None} if path.suffix == ".svg" else None)
    plt.close(figure)
    return paths, "![accuracy against cost](accuracy.png) (also accuracy.svg)"


def write_report(result: BenchResult, folder: Path) -> dict:
    """report.json, report.md and the plot in ``folder``; returns the report's data."""
    folder.mkdir(parents=True, exist_ok=True)
    data = report_data(result)
    _, note = write_plot(data, folder)
    write_atomically(folder / "report.json", json.dumps(data, indent=2, ensure_ascii=False))
    write_atomically(folder / "report.md", report_markdown(data, note))
    return data
