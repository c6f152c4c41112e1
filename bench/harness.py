"""What every part of the benchmark suite (bench/run.py) shares: the row of the table, the run's
context, statistics and formatting, whole-process measurement, and the synthetic projects.
"""

from __future__ import annotations

import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import synthetic  # noqa: E402

PY = sys.executable


# ---------------------------------------------------------------------------------------------
# results


@dataclass
class Row:
    bench: str  # benchmark name (for --only)
    name: str  # what is printed
    ours: str = "n/a"
    baseline: str = "-"
    ratio: str = "-"
    target: str = ""
    result: str = ""  # PASS | FAIL | skipped: ... | ERROR: ...
    data: dict = field(default_factory=dict)


@dataclass
class Ctx:
    quick: bool
    repeats: int
    plastex_repeats: int
    edits: int
    lsp_samples: int
    tmp: Path
    corpus: Path
    engine_ok: bool = False
    engine_reason: str = ""
    notes: list[str] = field(default_factory=list)
    cache: dict = field(default_factory=dict)


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def p95(xs):
    """Nearest-rank 95th percentile."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)]


def fmt_s(x: float) -> str:
    if x != x:
        return "n/a"
    if x < 1:
        return f"{x * 1000:.0f} ms"
    return f"{x:.2f} s"


def fmt_ms(x: float) -> str:
    return "n/a" if x != x else f"{x * 1000:.1f} ms"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def skip_without_engine(ctx: Ctx, rows: list[Row]) -> bool:
    """Mark the rows skipped when the engine does not import; True when it does not."""
    if ctx.engine_ok:
        return False
    for r in rows:
        r.result = "skipped: " + ctx.engine_reason
    return True


def mark_error(rows: list[Row], reason: str) -> None:
    for r in rows:
        r.result = "ERROR: " + reason


# ---------------------------------------------------------------------------------------------
# processes


def engine_env() -> dict:
    env = dict(os.environ)
    extra = [str(REPO), str(REPO / "server")]
    if env.get("PYTHONPATH"):
        extra.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(extra)
    return env


def run_measured(cmd: list[str], cwd: Path, env: dict | None = None, stdout=subprocess.DEVNULL,
                 stderr_path: Path | None = None, timeout: float = 1800) -> dict:
    """Run cmd as a whole process; its wall time, exit status and peak RSS.

    Peak RSS is ru_maxrss from wait4() on this one child: the figure getrusage(RUSAGE_CHILDREN)
    gives in a parent that has had this single child, without the harness's other children
    (plasTeX, earlier runs) mixed in, as RUSAGE_CHILDREN would.
    """
    err = open(stderr_path, "wb") if stderr_path else tempfile.TemporaryFile()
    timed_out = False
    try:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=stdout, stderr=err, stdin=subprocess.DEVNULL)

        def kill():
            nonlocal timed_out
            timed_out = True
            proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, ru = os.wait4(proc.pid, 0)  # blocking: no polling loop stealing a core
        finally:
            timer.cancel()
        elapsed = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.flush()
        err.seek(max(0, err.tell() - 20000))
        if stderr_path:
            err.close()
            with open(stderr_path, "rb") as f:
                f.seek(max(0, stderr_path.stat().st_size - 20000))
                captured = f.read()
        else:
            captured = err.read()
    finally:
        err.close()
    return {
        "seconds": elapsed,
        "rc": proc.returncode if not timed_out else -9,
        "maxrss_mib": ru.ru_maxrss / 1024,  # Linux reports KiB
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "stderr_tail": captured.decode("utf-8", "replace")[-4000:] + ("\ntimed out" if timed_out else ""),
    }


def failure_reason(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if any(k in ln for k in ("Error", "error:", "Exception", "No such file", "not found")):
            return ln[:300]
    return lines[-1][:300] if lines else "no output"


def fresh_copy(src: Path, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest)
    return dest


def check_engine(ctx: Ctx) -> None:
    if not (REPO / "colosseum" / "index" / "project_index.py").is_file():
        ctx.engine_ok, ctx.engine_reason = False, "engine not available yet (colosseum/index/project_index.py missing)"
        return
    probe = subprocess.run([PY, "-c", "import colosseum.index.project_index, colosseum.cli.main"], cwd=ctx.tmp,
                           env=engine_env(), capture_output=True, text=True)
    if probe.returncode != 0:
        ctx.engine_ok = False
        ctx.engine_reason = "engine does not import: " + failure_reason(probe.stderr)
        return
    ctx.engine_ok = True
    # Bytecode, as an installed package has it (pip compiles at install time; plasTeX's has it):
    # with PYTHONDONTWRITEBYTECODE set, a checkout would otherwise compile every module anew in
    # every timed process.
    compiled = subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "colosseum"), str(REPO / "server")],
                              capture_output=True, text=True)
    if compiled.returncode != 0:
        ctx.notes.append("compileall failed; timings include compiling the engine: " + failure_reason(compiled.stderr))


# ---------------------------------------------------------------------------------------------
# the synthetic projects, generated once a run


def synthetic_project(ctx: Ctx, big: bool, single: bool = False) -> synthetic.SyntheticProject:
    key = "synthetic-single" if single else "synthetic-big" if big else "synthetic"
    if key not in ctx.cache:
        t0 = time.perf_counter()
        if single:  # one 10,000-line chapter, the shape of Carleson's blueprint
            preamble = synthetic.PREAMBLE.format(seed=synthetic.DEFAULT_SEED).count("\n")
            project = synthetic.write_project(ctx.tmp / key, seed=synthetic.DEFAULT_SEED,
                                              n_lines=preamble + 2 + 10_000, n_files=2, n_labels=1000,
                                              n_undefined=3, big_file_lines=10_000)
        else:
            project = synthetic.write_project(ctx.tmp / key, seed=synthetic.DEFAULT_SEED,
                                              big_file_lines=10_000 if big else None)
        st = project.stats()
        ctx.notes.append(f"{key}: generated {st['lines']} lines in {st['files']} files with {st['labels']} labels, "
                         f"{st['references']} references ({st['undefined_references']} undefined)"
                         + (f", big file {st['big_file']} of {st['big_file_lines']} lines" if big else "")
                         + f" in {time.perf_counter() - t0:.2f} s")
        ctx.cache[key] = project
    return ctx.cache[key]
