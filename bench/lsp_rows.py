"""Rows `lsp-edit`, `lsp-burst`, `lsp-completion`, `lsp-definition`, `lsp-cold-start` and
`lsp-memory`: one session of the language server over stdio (bench/lsp_bench.py, with the typing
steps of bench/lsp_typing.py) on the big synthetic project serves them all; `lsp-cold-start`
also times a cold `colosseum check` of the same project, in the same run, for the ratio.
"""

from __future__ import annotations

import json

import lsp_bench
from harness import (PY, Ctx, Row, engine_env, fmt_ms, fmt_s, fresh_copy, mark_error, median, p95, run_measured,
                     skip_without_engine, synthetic_project, verdict)

# Targets from the issue.
LSP_EDIT_MS = 50.0  # didChange -> publishDiagnostics, p95, the whole wait
LSP_REQUEST_MS = 20.0  # completion / definition, p95
LSP_RSS_MIB = 300.0  # server RSS after opening the project
LSP_BURST_MS = 50.0  # last keystroke of a burst -> its findings, median
LSP_DRIFT = 1.25  # median of the last 100 edits over the first 100: no drift
LSP_COLD_RATIO = 1.5  # server start to first findings over a cold `colosseum check`, at most
DRIFT_WINDOW = 100


def lsp_session(ctx: Ctx) -> dict:
    if "lsp" in ctx.cache:
        return ctx.cache["lsp"]
    project = synthetic_project(ctx, big=True)
    copy = fresh_copy(project.root, ctx.tmp / "lsp" / "src")
    out: dict = {}
    try:
        out["data"] = lsp_bench.measure(project, copy, n_edits=ctx.lsp_samples, n_requests=ctx.lsp_samples,
                                        n_bursts=max(5, ctx.lsp_samples // 50), python=PY, env=engine_env(),
                                        stderr_path=ctx.tmp / "lsp" / "server.stderr")
    except (lsp_bench.LspError, OSError) as exc:  # measure() reports every failure as LspError
        out["error"] = str(exc).splitlines()[0][:300]
        ctx.notes.append("lsp benchmark failed:\n" + str(exc))
        ctx.cache["lsp"] = out
        return out
    _session_notes(ctx, out["data"])
    ctx.cache["lsp"] = out
    return out


def _session_notes(ctx: Ctx, d: dict) -> None:
    ctx.notes.append(
        f"lsp: one `python -m colosseum serve` session over stdio on the synthetic-big project (workspace folder = "
        f"project dir; the client offers what VS Code offers: dynamic didChangeWatchedFiles, insert/replace edits, "
        f"itemDefaults.editRange); initialize to the first diagnostics of {d['file']}: "
        f"{fmt_s(d['open_to_first_diagnostics_s'])}, from starting the process {fmt_s(d['cold_start_s'])}")
    ctx.notes.append(
        f"lsp edit: {len(d['edit_raw_s'])} edits queued (each sent as the findings of the one before arrived, never "
        f"waiting for `ready`), timed from writing didChange to reading the publishDiagnostics of that version "
        f"(seed {d['edit_seed']}: {d['edit_kinds'].count('retarget')} retarget, {d['edit_kinds'].count('add-label')} "
        f"add-label, {d['edit_kinds'].count('remove-label')} remove-label); server CPU time per edit: median "
        f"{fmt_ms(median(d['edit_server_cpu_s']))}, p95 {fmt_ms(p95(d['edit_server_cpu_s']))}")
    for key, what in (("edit", f"edit ({d['edit_checked']} edits checked)"), ("burst", "burst"),
                      ("completion", "completion inside \\cref{"), ("definition", "definition on a reference")):
        bad = d[f"{key}_mismatches"]
        if bad:
            ctx.notes.append(f"SANITY: lsp {what}: {len(bad)} wrong answers; first: {json.dumps(bad[0])[:600]}")
        else:
            ctx.notes.append(f"lsp {what} sanity OK")
    waits = d["burst_wait_s"]
    ctx.notes.append(
        f"lsp burst: {len(waits)} bursts of {d['burst_keystrokes']} keystrokes {d['burst_gap_s'] * 1000:.0f} ms apart; "
        f"last keystroke to its findings: median {fmt_ms(median(waits))}, max {fmt_ms(max(waits))}; publications "
        f"per burst: median {median(d['burst_publications']):.0f} (of {d['burst_keystrokes']} versions); server CPU "
        f"per burst: median {fmt_ms(median(d['burst_server_cpu_s']))}; completion asked as `\\cref{{` was typed, "
        f"while the server indexed: median {fmt_ms(median(d['burst_completion_s']))}, "
        f"max {fmt_ms(max(d['burst_completion_s']))}")
    ctx.notes.append(
        f"lsp completion: items per answer {'/'.join(map(str, d['completion_items']))}; nothing typed: median "
        f"{fmt_ms(median(d['completion_s']))}, p95 {fmt_ms(p95(d['completion_s']))}; four characters typed: median "
        f"{fmt_ms(median(d['completion_typed_s']))}, p95 {fmt_ms(p95(d['completion_typed_s']))}")


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
    r_med = Row("lsp-edit", "LSP didChange -> publishDiagnostics, queued edits (10k-line file), median",
                target="-", result="-")
    r_p95 = Row("lsp-edit", "LSP didChange -> publishDiagnostics, queued edits, p95", target=f"< {LSP_EDIT_MS:.0f} ms")
    r_drift = Row("lsp-edit", f"LSP edits: median of the last {DRIFT_WINDOW} over the first {DRIFT_WINDOW}",
                  target=f"<= {LSP_DRIFT:.2f}x")
    d = _lsp_rows(ctx, [r_med, r_p95, r_drift])
    if d is None:
        return [r_med, r_p95, r_drift]
    raw = d["edit_raw_s"]
    r_med.ours = fmt_ms(median(raw))
    r_p95.ours = fmt_ms(p95(raw))
    r_p95.result = _lsp_verdict(p95(raw) * 1000 < LSP_EDIT_MS, d["edit_mismatches"])
    r_p95.data = {k: d[k] for k in ("edit_raw_s", "edit_server_cpu_s", "edit_kinds", "edit_mismatches", "file",
                                    "edit_seed", "command", "transport")}
    r_p95.data.update(compared="p95 of edit_raw_s", median_s=median(raw), p95_s=p95(raw))
    window = min(DRIFT_WINDOW, len(raw) // 2)
    first, last = median(raw[:window]), median(raw[-window:])
    cpu = d["edit_server_cpu_s"]
    r_drift.ours = f"{last / first:.2f}x ({fmt_ms(first)} -> {fmt_ms(last)})"
    r_drift.ratio = f"CPU {median(cpu[-window:]) / max(median(cpu[:window]), 1e-3):.2f}x"
    r_drift.result = verdict(last / first <= LSP_DRIFT)
    r_drift.data = {"first_median_s": first, "last_median_s": last, "window": window,
                    "first_cpu_median_s": median(cpu[:window]), "last_cpu_median_s": median(cpu[-window:])}
    return [r_med, r_p95, r_drift]


def bench_lsp_burst(ctx: Ctx) -> list[Row]:
    row = Row("lsp-burst", "LSP burst of 40 keystrokes 30 ms apart: last keystroke -> findings, median",
              target=f"<= {LSP_BURST_MS:.0f} ms")
    d = _lsp_rows(ctx, [row])
    if d is None:
        return [row]
    waits = d["burst_wait_s"]
    row.ours = f"{fmt_ms(median(waits))} (max {fmt_ms(max(waits))})"
    row.result = _lsp_verdict(median(waits) * 1000 <= LSP_BURST_MS, d["burst_mismatches"])
    row.data = {k: d[k] for k in ("burst_wait_s", "burst_server_cpu_s", "burst_publications", "burst_completion_s",
                                  "burst_mismatches", "burst_keystrokes", "burst_gap_s")}
    return [row]


def bench_lsp_cold_start(ctx: Ctx) -> list[Row]:
    row = Row("lsp-cold-start", "LSP cold start: process start -> first diagnostics (50k lines)",
              target=f"<= {LSP_COLD_RATIO:.1f}x the CLI")
    d = _lsp_rows(ctx, [row])
    if d is None:
        return [row]
    project = synthetic_project(ctx, big=True)
    copy = fresh_copy(project.root, ctx.tmp / "lsp" / "cli")
    cli = []
    for _ in range(max(3, ctx.repeats)):
        m = run_measured([PY, "-m", "colosseum", "check", str(copy), "--format", "json"], cwd=ctx.tmp,
                         env=engine_env())
        if m["rc"] not in (0, 1):
            mark_error([row], f"colosseum check exited {m['rc']}")
            return [row]
        cli.append(m["seconds"])
    server = d["cold_start_s"]
    row.ours = fmt_s(server)
    row.baseline = f"check {fmt_s(median(cli))}"
    row.ratio = f"{median(cli) / server:.2f}x"
    row.result = verdict(server / median(cli) <= LSP_COLD_RATIO)
    row.data = {"server_cold_start_s": server, "initialize_to_diagnostics_s": d["open_to_first_diagnostics_s"],
                "cli_check_s": cli, "server_over_cli": server / median(cli),
                "cli": "python -m colosseum check DIR --format json, whole process, median"}
    ctx.notes.append(f"lsp cold start: the server took {server / median(cli):.2f}x the CLI's cold check "
                     f"({fmt_s(server)} against {fmt_s(median(cli))}, median of {len(cli)}; initialize to first "
                     f"diagnostics alone {fmt_s(d['open_to_first_diagnostics_s'])})")
    return [row]


def _bench_lsp_request(ctx: Ctx, key: str, name: str) -> list[Row]:
    row = Row(f"lsp-{key}", name, target=f"< {LSP_REQUEST_MS:.0f} ms")
    d = _lsp_rows(ctx, [row])
    if d is None:
        return [row]
    xs = d[f"{key}_s"] + (d["completion_typed_s"] if key == "completion" else [])
    row.ours = f"{fmt_ms(p95(xs))} (median {fmt_ms(median(xs))})"
    row.result = _lsp_verdict(p95(xs) * 1000 < LSP_REQUEST_MS, d[f"{key}_mismatches"])
    row.data = {"samples_s": xs, "median_s": median(xs), "p95_s": p95(xs), "mismatches": d[f"{key}_mismatches"],
                "compared": "p95"}
    if key == "completion":
        row.data.update(items_per_answer=d["completion_items"], typed_samples_s=d["completion_typed_s"],
                        while_indexing_s=d["burst_completion_s"])
    return [row]


def bench_lsp_completion(ctx: Ctx) -> list[Row]:
    return _bench_lsp_request(ctx, "completion", "LSP completion inside \\cref{, 5,000 labels, p95")


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
