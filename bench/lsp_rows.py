"""Rows `lsp-edit`, `lsp-completion`, `lsp-definition` and `lsp-memory`: one session of the language
server over stdio (bench/lsp_bench.py) on the big synthetic project serves all four.
"""

from __future__ import annotations

import json

import lsp_bench
from harness import (PY, Ctx, Row, engine_env, fmt_ms, fmt_s, fresh_copy, mark_error, median, p95,
                     skip_without_engine, synthetic_project, verdict)

# Targets from the issue.
LSP_EDIT_MS = 50.0  # didChange -> publishDiagnostics, p95, the whole wait
LSP_REQUEST_MS = 20.0  # completion / definition, p95
LSP_RSS_MIB = 300.0  # server RSS after opening the project


def lsp_session(ctx: Ctx) -> dict:
    if "lsp" in ctx.cache:
        return ctx.cache["lsp"]
    project = synthetic_project(ctx, big=True)
    copy = fresh_copy(project.root, ctx.tmp / "lsp" / "src")
    out: dict = {}
    try:
        out["data"] = lsp_bench.measure(project, copy, n_edits=ctx.lsp_samples, n_requests=ctx.lsp_samples,
                                        python=PY, env=engine_env(), stderr_path=ctx.tmp / "lsp" / "server.stderr")
    except (lsp_bench.LspError, OSError) as exc:  # measure() reports every failure as LspError
        out["error"] = str(exc).splitlines()[0][:300]
        ctx.notes.append("lsp benchmark failed:\n" + str(exc))
        ctx.cache["lsp"] = out
        return out
    d = out["data"]
    ctx.notes.append(
        f"lsp: one `python -m colosseum serve` session over stdio on the synthetic-big project (workspace folder = "
        f"project dir; the client offers dynamic didChangeWatchedFiles registration, as VS Code does); initialize "
        f"to the first diagnostics of {d['file']}: {fmt_s(d['open_to_first_diagnostics_s'])}")
    ctx.notes.append(
        f"lsp edit: the figure is the whole wait from writing didChange to reading the publishDiagnostics of "
        f"that version, nothing subtracted. {len(d['edit_raw_s'])} edits (seed {d['edit_seed']}: "
        f"{d['edit_kinds'].count('retarget')} retarget, {d['edit_kinds'].count('add-label')} add-label, "
        f"{d['edit_kinds'].count('remove-label')} remove-label), one at a time; until the last file's diagnostics "
        f"of an edit: median {fmt_ms(median(d['edit_publication_done_s']))}; "
        f"server CPU time per edit: median {fmt_ms(median(d['edit_server_cpu_s']))}, "
        f"p95 {fmt_ms(p95(d['edit_server_cpu_s']))}")
    if d["edit_mismatches"]:
        m = d["edit_mismatches"][0]
        ctx.notes.append(f"SANITY: lsp edit: {len(d['edit_mismatches'])} publications had wrong undefined-reference "
                         f"diagnostics; first: {json.dumps(m)[:600]}")
    else:
        ctx.notes.append("lsp edit sanity OK: after every edit the file's undefined-reference diagnostics were exactly "
                         "the (line, label) pairs of the model, and the project-wide count matched")
    for key, what in (("completion", "completion after \\cref{"), ("definition", "definition on a reference")):
        bad = d[f"{key}_mismatches"]
        if bad:
            ctx.notes.append(f"SANITY: lsp {what}: {len(bad)} wrong answers; first: {json.dumps(bad[0])[:400]}")
        else:
            extra = (f" (every answer had {'/'.join(map(str, d['completion_items']))} items, all project labels)"
                     if key == "completion" else " (every answer pointed at the line of that \\label)")
            ctx.notes.append(f"lsp {what} sanity OK{extra}; {len(d[key + '_s'])} requests at different positions, "
                             f"one at a time; min {fmt_ms(min(d[key + '_s']))}, max {fmt_ms(max(d[key + '_s']))}")
    ctx.cache["lsp"] = out
    return out


def _lsp_rows(ctx: Ctx, rows: list[Row]) -> dict | None:
    if skip_without_engine(ctx, rows):
        return None
    out = lsp_session(ctx)
    if "error" in out:
        mark_error(rows, out["error"])
        return None
    return out["data"]


def _lsp_verdict(ok: bool, mismatches: list) -> str:
    if mismatches:
        return f"FAIL: {len(mismatches)} wrong answers (see notes)"
    return verdict(ok)


def bench_lsp_edit(ctx: Ctx) -> list[Row]:
    r_med = Row("lsp-edit", "LSP didChange -> publishDiagnostics (10k-line file), median",
                target="-", result="-")
    r_p95 = Row("lsp-edit", "LSP didChange -> publishDiagnostics (10k-line file), p95",
                target=f"< {LSP_EDIT_MS:.0f} ms")
    d = _lsp_rows(ctx, [r_med, r_p95])
    if d is None:
        return [r_med, r_p95]
    raw = d["edit_raw_s"]
    r_med.ours = fmt_ms(median(raw))
    r_p95.ours = fmt_ms(p95(raw))
    r_p95.result = _lsp_verdict(p95(raw) * 1000 < LSP_EDIT_MS, d["edit_mismatches"])
    r_p95.data = {k: d[k] for k in ("edit_raw_s", "edit_publication_done_s", "edit_server_cpu_s", "edit_kinds",
                                    "edit_mismatches", "file", "edit_seed", "open_to_first_diagnostics_s",
                                    "command", "transport")}
    r_p95.data.update(compared="p95 of edit_raw_s", median_s=median(raw), p95_s=p95(raw))
    return [r_med, r_p95]


def _bench_lsp_request(ctx: Ctx, key: str, name: str) -> list[Row]:
    row = Row(f"lsp-{key}", name, target=f"< {LSP_REQUEST_MS:.0f} ms")
    d = _lsp_rows(ctx, [row])
    if d is None:
        return [row]
    xs = d[f"{key}_s"]
    row.ours = f"{fmt_ms(p95(xs))} (median {fmt_ms(median(xs))})"
    row.result = _lsp_verdict(p95(xs) * 1000 < LSP_REQUEST_MS, d[f"{key}_mismatches"])
    row.data = {"samples_s": xs, "median_s": median(xs), "p95_s": p95(xs), "mismatches": d[f"{key}_mismatches"],
                "compared": "p95"}
    if key == "completion":
        row.data["items_per_answer"] = d["completion_items"]
    return [row]


def bench_lsp_completion(ctx: Ctx) -> list[Row]:
    return _bench_lsp_request(ctx, "completion", "LSP completion after \\cref{ (10k-line file), p95")


def bench_lsp_definition(ctx: Ctx) -> list[Row]:
    return _bench_lsp_request(ctx, "definition", "LSP definition on a reference (10k-line file), p95")


def bench_lsp_memory(ctx: Ctx) -> list[Row]:
    row = Row("lsp-memory", "LSP server RSS after opening the 50k-line project", target=f"< {LSP_RSS_MIB:.0f} MiB")
    d = _lsp_rows(ctx, [row])
    if d is None:
        return [row]
    rss = d["memory_after_open_mib"]["VmRSS"]
    row.ours = f"{rss:.0f} MiB"
    row.result = verdict(rss < LSP_RSS_MIB)
    row.data = {"after_open_mib": d["memory_after_open_mib"], "at_end_mib": d["memory_at_end_mib"],
                "source": "/proc/PID/status of the server process (VmRSS; VmHWM = its peak)"}
    end = d["memory_at_end_mib"]
    ctx.notes.append(f"lsp memory: server VmRSS {rss:.0f} MiB after opening (peak so far {d['memory_after_open_mib']['VmHWM']:.0f} MiB), "
                     f"{end['VmRSS']:.0f} MiB after all edits and requests (peak {end['VmHWM']:.0f} MiB)")
    return [row]
