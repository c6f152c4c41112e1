"""The ``probe`` row: what a computational probe costs before the model's code does anything.

One probe of ``print(1)`` through ``colosseum.probe.run_python`` (bubblewrap, the bootstrap that sets
the limits and drops privileges, the interpreter's start, one line of output, the exit and the
collection of the result) against a plain ``python -c 'print(1)'`` subprocess, timed alternately in
one child process (the engine of this checkout, not an installed one), N times each. The row gives
the median and p95 of both and the ratio of the medians (the table's "speedup", plain / probe: below
1, the share of a probe's start that is the interpreter's own)."""

from __future__ import annotations

import json
import subprocess

from harness import PY, Ctx, Row, engine_env, fmt_s, median, p95, skip_without_engine, verdict

PROBE_MEDIAN_S = 1.0  # a probe that costs more than a second before it runs anything is a regression

_CHILD = r"""
import json, subprocess, sys, time
from colosseum.probe import ProbeLimits, run_python, sandbox_problem

problem = sandbox_problem()
if problem is not None:
    print(json.dumps({"skipped": problem}))
    raise SystemExit(0)
limits = ProbeLimits()  # the defaults of [probe]
runs = int(sys.argv[1])
probe, plain = [], []
run_python("print(1)", limits)  # the first run reads the interpreter's files into the page cache
for _ in range(runs):
    start = time.perf_counter()
    result = run_python("print(1)", limits)
    probe.append(time.perf_counter() - start)
    assert result.stdout == "1\n" and result.limit == "none", result
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True)
    plain.append(time.perf_counter() - start)
    assert done.stdout == b"1\n"
print(json.dumps({"probe": probe, "plain": plain}))
"""


def bench_probe(ctx: Ctx) -> list[Row]:
    runs = 5 if ctx.quick else max(20, 4 * ctx.repeats)
    row = Row("probe", f"probe overhead: print(1) in the sandbox vs python -c (median/p95 of {runs})",
              target=f"median <= {fmt_s(PROBE_MEDIAN_S)}")
    if skip_without_engine(ctx, [row]):
        return [row]
    done = subprocess.run([PY, "-c", _CHILD, str(runs)], cwd=ctx.tmp, env=engine_env(), capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        row.result = f"ERROR: {done.stderr.strip()[-300:]}"
        return [row]
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    if "skipped" in measured:
        row.result = "skipped: " + measured["skipped"]
        return [row]
    probe, plain = measured["probe"], measured["plain"]
    row.ours = f"{fmt_s(median(probe))} / p95 {fmt_s(p95(probe))}"
    row.baseline = f"{fmt_s(median(plain))} / p95 {fmt_s(p95(plain))}"
    row.ratio = f"{median(plain) / median(probe):.2f}x"  # the table's "speedup": baseline / ours
    row.result = verdict(median(probe) <= PROBE_MEDIAN_S)
    row.data = {"runs": runs, "probe_s": probe, "plain_s": plain, "probe_median_s": median(probe),
                "probe_p95_s": p95(probe), "plain_median_s": median(plain), "plain_p95_s": p95(plain),
                "ratio_of_medians": median(probe) / median(plain)}
    return [row]
