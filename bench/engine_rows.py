"""Rows on the synthetic projects, each measured in a fresh child process (bench/_engine_child.py):
`synthetic-cold` (ProjectIndex.open of 50,000 lines), `synthetic-memory` (its peak RSS), `file-edit`
and `synthetic-edit` (one edit to an updated DAG and diagnostics). See bench/README.md.
"""

from __future__ import annotations

import json

from harness import (BENCH, PY, Ctx, Row, engine_env, failure_reason, fmt_ms, fmt_s, fresh_copy, mark_error, median,
                     p95, run_measured, skip_without_engine, synthetic_project, verdict)

# Targets from the issue.
SYNTH_COLD_S = 3.0
SYNTH_RSS_MIB = 300.0
EDIT_MS = 50.0


def child(ctx: Ctx, args: list[str]) -> tuple[dict, dict]:
    """Run bench/_engine_child.py; returns (its JSON, the process measurement)."""
    out_path = ctx.tmp / "child.out"
    with open(out_path, "wb") as out:
        m = run_measured([PY, str(BENCH / "_engine_child.py")] + args, cwd=ctx.tmp, env=engine_env(), stdout=out)
    text = out_path.read_text(encoding="utf-8", errors="replace").strip()
    try:
        data = json.loads(text.splitlines()[-1]) if text else {}
    except json.JSONDecodeError:
        data = {}
    if m["rc"] != 0 and not data:
        data = {"error": f"exit {m['rc']}: {failure_reason(m['stderr_tail'])}"}
    return data, m


def synthetic_cold_runs(ctx: Ctx) -> dict:
    if "cold" in ctx.cache:
        return ctx.cache["cold"]
    project = synthetic_project(ctx, big=False)
    runs, error = [], None
    for rep in range(ctx.repeats):
        copy = fresh_copy(project.root, ctx.tmp / "synthetic-cold" / "src")
        data, m = child(ctx, ["cold", str(copy)])
        if "error" in data or "unavailable" in data:
            error = data.get("unavailable") or data.get("error")
            if "traceback" in data:
                ctx.notes.append("synthetic cold index failed:\n" + data["traceback"])
            break
        data["maxrss_mib"] = m["maxrss_mib"]
        data["process_s"] = m["seconds"]
        runs.append(data)
    ctx.cache["cold"] = {"runs": runs, "error": error, "project": project}
    return ctx.cache["cold"]


def _cold_runs_for(ctx: Ctx, row: Row) -> dict | None:
    """The cold runs a row reports on, or None when the row is marked skipped or ERROR instead."""
    if skip_without_engine(ctx, [row]):
        return None
    res = synthetic_cold_runs(ctx)
    if res["error"]:
        mark_error([row], res["error"])
        return None
    return res


def bench_synthetic_cold(ctx: Ctx) -> list[Row]:
    row = Row("synthetic-cold", "synthetic 50k lines: cold ProjectIndex.open", target=f"< {SYNTH_COLD_S:.0f} s")
    res = _cold_runs_for(ctx, row)
    if res is None:
        return [row]
    runs, project = res["runs"], res["project"]
    opens = [r["open_s"] for r in runs]
    row.ours = fmt_s(median(opens))
    row.result = verdict(median(opens) < SYNTH_COLD_S)
    row.data = {"open_samples_s": opens, "diagnostics_samples_s": [r["diagnostics_s"] for r in runs],
                "process_samples_s": [r["process_s"] for r in runs], "last_run": runs[-1]}
    last = runs[-1]
    want_labels, want_undef = len(project.labels), len(project.undefined)
    ctx.notes.append(f"synthetic cold: open {fmt_s(median(opens))}, then diagnostics() "
                     f"{fmt_s(median(row.data['diagnostics_samples_s']))}, whole process "
                     f"{fmt_s(median(row.data['process_samples_s']))} (median of {len(runs)})")
    if last["labels"] != want_labels or last["undefined_reference_diagnostics"] != want_undef:
        ctx.notes.append(f"SANITY: synthetic project has {want_labels} labels and {want_undef} undefined references; "
                         f"the engine found {last['labels']} labels and {last['undefined_reference_diagnostics']} "
                         "undefined-reference diagnostics")
    else:
        ctx.notes.append(f"synthetic cold sanity OK: {last['labels']} labels, {last['claims']} claims, "
                         f"{last['sections']} sections, {last['references']} references, {last['edges']} edges, "
                         f"{last['undefined_reference_diagnostics']} undefined-reference diagnostics as generated")
    return [row]


def bench_synthetic_memory(ctx: Ctx) -> list[Row]:
    row = Row("synthetic-memory", "synthetic 50k lines: peak RSS of cold index", target=f"< {SYNTH_RSS_MIB:.0f} MiB")
    res = _cold_runs_for(ctx, row)
    if res is None:
        return [row]
    rss = [r["maxrss_mib"] for r in res["runs"]]
    peak = max(rss)
    row.ours = f"{peak:.0f} MiB"
    row.result = verdict(peak < SYNTH_RSS_MIB)
    row.data = {"maxrss_samples_mib": rss, "reported": "max over runs"}
    return [row]


def bench_file_edit(ctx: Ctx) -> list[Row]:
    """The issue's figure: an edit in a 10,000-line file (a project that is that one file)."""
    return bench_synthetic_edit(ctx, single=True)


def bench_synthetic_edit(ctx: Ctx, single: bool = False) -> list[Row]:
    key = "file-edit" if single else "synthetic-edit"
    where = "10k-line single-chapter project" if single else "10k-line file of the 50k-line project"
    r_med = Row(key, f"edit in {where} -> DAG + diagnostics, median", target=f"< {EDIT_MS:.0f} ms")
    r_p95 = Row(key, f"edit in {where} -> DAG + diagnostics, p95", target=f"< {EDIT_MS:.0f} ms")
    rows = [r_med, r_p95]
    if skip_without_engine(ctx, rows):
        return rows
    project = synthetic_project(ctx, big=True, single=single)
    params = json.dumps(project.params)
    samples, per_run, mismatches = [], [], []
    runs = 1 if ctx.quick else max(1, min(ctx.repeats, 3))
    for rep in range(runs):
        data, m = child(ctx, ["edits", str(project.root), params, str(ctx.edits), "7"])
        if "error" in data or "unavailable" in data:
            mark_error(rows, data.get("unavailable") or data.get("error"))
            if "traceback" in data:
                ctx.notes.append("synthetic edit benchmark failed:\n" + data["traceback"])
            return rows
        samples += data["samples_s"]
        per_run.append({"median_s": median(data["samples_s"]), "p95_s": p95(data["samples_s"]),
                        "maxrss_mib": m["maxrss_mib"], "kinds": data["kinds"], "work": data.get("work", [])})
        mismatches += data["mismatches"]
    med, hi = median(samples), p95(samples)
    r_med.ours, r_p95.ours = fmt_ms(med), fmt_ms(hi)
    r_med.result, r_p95.result = verdict(med * 1000 < EDIT_MS), verdict(hi * 1000 < EDIT_MS)
    r_med.data = {"samples_s": samples, "runs": per_run, "edits_per_run": ctx.edits, "file": project.big_file,
                  "mismatches": mismatches}
    kinds = per_run[0]["kinds"]
    ctx.notes.append(f"{key}: {len(samples)} edits ({runs} run(s) of {ctx.edits}: "
                     f"{kinds.count('retarget')} retarget, {kinds.count('add-label')} add-label, "
                     f"{kinds.count('remove-label')} remove-label each) in {project.big_file}; "
                     f"min {fmt_ms(min(samples))}, max {fmt_ms(max(samples))}")
    work = [w for run in per_run for w in run["work"]]
    if work:
        counts = ", ".join(f"{name.replace('_', ' ')} {median([w[name] for w in work]):g} (max {max(w[name] for w in work)})"
                           for name in work[0])
        ctx.notes.append(f"{key}: work per edit, median (max) over the edits, from the engine's own count: {counts}")
    if mismatches:
        ctx.notes.append(f"SANITY: {len(mismatches)} edits left a wrong undefined-reference count, first: {mismatches[0]}")
    else:
        ctx.notes.append("synthetic edit sanity OK: after every edit the undefined-reference diagnostics matched the model")
    return rows
