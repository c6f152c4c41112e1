"""Rows on how the whole `colosseum check` process grows with the project (`scale-*`) and what its
start-up costs (`import-cost`). See bench/README.md.

scale-*: synthetic projects of 50k, 200k and 500k lines (250 lines a file, a label every 10 lines),
each checked cold by `python -m colosseum check DIR --format json`, one fresh process: wall time,
peak RSS (ru_maxrss from wait4 on that child, as getrusage(RUSAGE_CHILDREN) gives) and KB per line;
then the growth row: KB per line and seconds per line at the largest size over the smallest.

import-cost: `python -X importtime -m colosseum check TINY` against `python -X importtime -c pass`:
the import time the command adds to a bare interpreter (sum of the self times of every module it
imports beyond the interpreter's own start), and the whole process against `python -c pass`.
"""

from __future__ import annotations

import subprocess

from harness import (PY, REPO, Ctx, Row, engine_env, fmt_s, median, run_measured, skip_without_engine, synthetic,
                     verdict)

SCALE_LINES = (50_000, 200_000, 500_000)
SCALE_QUICK_LINES = (20_000, 50_000)
KB_PER_LINE = 0.4  # the target
COLD_740K_S = 10.0  # the target for a 740k-line project, whole process
GROWTH_MAX = 1.5  # linear growth: per-line cost at the largest size at most this over the smallest
IMPORT_MS = 28.0  # half of the 56 ms this row measured before the imports were deferred (issue #15)


def scale_project(ctx: Ctx, lines: int) -> synthetic.SyntheticProject:
    key = f"synthetic-scale-{lines}"
    if key not in ctx.cache:
        ctx.cache[key] = synthetic.write_project(ctx.tmp / key, seed=synthetic.DEFAULT_SEED, n_lines=lines,
                                                 n_files=max(2, lines // 250), n_labels=lines // 10)
    return ctx.cache[key]


def check_once(ctx: Ctx, directory) -> dict:
    """One cold `colosseum check` in a fresh process: exit 0 or 1 (findings) is success."""
    m = run_measured([PY, "-m", "colosseum", "check", str(directory), "--format", "json"], cwd=ctx.tmp,
                     env=engine_env())
    if m["rc"] not in (0, 1):
        raise RuntimeError(f"colosseum check exited {m['rc']}: {m['stderr_tail'][-300:]}")
    return m


def bench_scale(ctx: Ctx, sizes: tuple[int, ...] | None = None) -> list[Row]:
    sizes = sizes or (SCALE_QUICK_LINES if ctx.quick else SCALE_LINES)
    rows = [Row("scale", f"check {n // 1000}k lines: whole process, peak RSS",
                target=f"<= {KB_PER_LINE} KB/line, {COLD_740K_S * n / 740_000:.1f} s") for n in sizes]
    growth = Row("scale", f"growth {sizes[0] // 1000}k -> {sizes[-1] // 1000}k lines (per-line cost)",
                 target=f"<= {GROWTH_MAX}x")
    if skip_without_engine(ctx, rows + [growth]):
        return rows + [growth]
    per_line = {}
    for n, row in zip(sizes, rows):
        project = scale_project(ctx, n)
        lines = sum(project.line_counts().values())
        runs = [check_once(ctx, project.root) for _ in range(max(1, min(ctx.repeats, 2)))]
        seconds = median([r["seconds"] for r in runs])
        rss_mib = max(r["maxrss_mib"] for r in runs)
        kb_line = rss_mib * 1024 / lines
        per_line[n] = (seconds / lines, kb_line)
        row.ours = f"{fmt_s(seconds)}, {rss_mib:.0f} MiB, {kb_line:.2f} KB/line"
        row.result = verdict(kb_line <= KB_PER_LINE and seconds <= COLD_740K_S * n / 740_000)
        row.data = {"lines": lines, "seconds": seconds, "maxrss_mib": rss_mib, "kb_per_line": kb_line,
                    "samples_s": [r["seconds"] for r in runs], "cpu_s": [r["cpu_s"] for r in runs]}
    (t0, m0), (t1, m1) = per_line[sizes[0]], per_line[sizes[-1]]
    growth.ours = f"time {t1 / t0:.2f}x, memory {m1 / m0:.2f}x"
    growth.result = verdict(t1 / t0 <= GROWTH_MAX and m1 / m0 <= GROWTH_MAX)
    growth.data = {"time_per_line_ratio": t1 / t0, "kb_per_line_ratio": m1 / m0}
    return rows + [growth]


def import_ms(cmd: list[str], cwd, env) -> float:
    """Sum of the self times `-X importtime` reports for cmd, in milliseconds."""
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    total = 0
    for line in p.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            self_us = line.split(":", 1)[1].split("|")[0].strip()
            if self_us.isdigit():
                total += int(self_us)
    return total / 1000


def bench_import_cost(ctx: Ctx) -> list[Row]:
    row = Row("import-cost", "check on a tiny project: imports beyond a bare interpreter",
              target=f"<= {IMPORT_MS:.0f} ms")
    if skip_without_engine(ctx, [row]):
        return [row]
    tiny = REPO / "tests" / "projects" / "open-obligations"
    env = engine_env()
    check = [PY, "-X", "importtime", "-m", "colosseum", "check", str(tiny)]
    bare = [PY, "-X", "importtime", "-c", "pass"]
    reps = max(3, ctx.repeats)
    added = median([import_ms(check, ctx.tmp, env) - import_ms(bare, ctx.tmp, env) for _ in range(reps)])
    whole = median([run_measured([PY, "-m", "colosseum", "check", str(tiny)], cwd=ctx.tmp, env=env)["seconds"]
                    for _ in range(reps)])
    empty = median([run_measured([PY, "-c", "pass"], cwd=ctx.tmp, env=env)["seconds"] for _ in range(reps)])
    row.ours = f"{added:.0f} ms"
    row.baseline = f"whole {fmt_s(whole)}, bare python {fmt_s(empty)}"
    row.ratio = f"{empty / whole:.0%} start"
    row.result = verdict(added <= IMPORT_MS)
    row.data = {"import_ms": added, "whole_s": whole, "bare_python_s": empty}
    return [row]
