"""Colosseum benchmark suite: one command, timings and ratios measured side by side.

    python bench/run.py                 # everything (about 5 minutes on 2 cores)
    python bench/run.py --quick         # smoke run: 1 repetition, fewer edits, no plasTeX
    python bench/run.py --only flt      # select benchmarks by (part of) their name; repeatable
    python bench/run.py --only lsp      # the language server over stdio (bench/lsp_bench.py)
    python bench/run.py --list          # list the benchmark names

Prints a table (benchmark, ours, baseline, speedup, target, result) and writes every sample to
bench/results/latest.json. See bench/README.md for what each benchmark measures.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

import lsp_bench  # noqa: E402
import synthetic  # noqa: E402

PY = sys.executable

# Targets from the issue.
PLASTEX_SPEEDUP = 50.0  # ours at least 50x faster than leanblueprint's plasTeX build
PYLATEXENC_SPEEDUP = 4.0  # ours under 1/4 of a bare pylatexenc walk
SYNTH_COLD_S = 3.0
SYNTH_RSS_MIB = 300.0
EDIT_MS = 50.0
LSP_EDIT_MS = 50.0  # didChange -> publishDiagnostics, p95, the whole wait
LSP_REQUEST_MS = 20.0  # completion / definition, p95
LSP_RSS_MIB = 300.0  # server RSS after opening the project

CORPUS_PROJECTS = {
    # bench name: (corpus folder, root, label, issue author's anchors: plasTeX s, pylatexenc s)
    "flt": ("ImperialCollegeLondon__FLT", "web.tex", "FLT", (22.7, 3.3)),
    "carleson": ("fpvandoorn__carleson", "web.tex", "Carleson", (41.8, 5.5)),
}
BENCHMARKS = ["flt", "carleson", "synthetic-cold", "synthetic-memory", "file-edit", "synthetic-edit", "inner-loop", "research", "catalog-retrieval",
              "lsp-edit", "lsp-completion", "lsp-definition", "lsp-memory"]

INSTALL_PLASTEX = ("pip install leanblueprint (brings plasTeX 3.1 and the dependency-graph plugin); "
                   "plasTeX also needs kpsewhich: apt-get install texlive-latex-base texlive-latex-extra")
INSTALL_PYLATEXENC = "pip install 'pylatexenc==2.11'"


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
    if not (REPO / "colosseum" / "index.py").is_file():
        ctx.engine_ok, ctx.engine_reason = False, "engine not available yet (colosseum/index.py missing)"
        return
    probe = subprocess.run([PY, "-c", "import colosseum.index, colosseum.cli"], cwd=ctx.tmp,
                           env=engine_env(), capture_output=True, text=True)
    if probe.returncode != 0:
        ctx.engine_ok = False
        ctx.engine_reason = "engine does not import: " + failure_reason(probe.stderr)
        return
    ctx.engine_ok = True


# ---------------------------------------------------------------------------------------------
# 1. cold index of corpus projects, whole process, against plasTeX and pylatexenc


def plastex_command() -> tuple[list[str] | None, str]:
    exe = Path(PY).parent / "plastex"
    exe = str(exe) if exe.is_file() else shutil.which("plastex")
    probe = subprocess.run([PY, "-c", "import leanblueprint, plasTeX, plastexdepgraph"], capture_output=True, text=True)
    if exe is None or probe.returncode != 0:
        return None, "leanblueprint/plasTeX not installed: " + INSTALL_PLASTEX
    if shutil.which("kpsewhich") is None:
        return None, "kpsewhich not found (plasTeX needs it): apt-get install texlive-latex-base texlive-latex-extra"
    return [exe], ""


def pylatexenc_version() -> str | None:
    probe = subprocess.run([PY, "-c", "import pylatexenc; print(pylatexenc.__version__)"], capture_output=True, text=True)
    return probe.stdout.strip() if probe.returncode == 0 else None


def bench_corpus(ctx: Ctx, key: str) -> list[Row]:
    folder, root, label, anchors = CORPUS_PROJECTS[key]
    src = ctx.corpus / folder
    row_p = Row(key, f"{label} cold index vs plasTeX build", target=f">= {PLASTEX_SPEEDUP:.0f}x faster")
    row_w = Row(key, f"{label} cold index vs pylatexenc walk", target=f">= {PYLATEXENC_SPEEDUP:.0f}x faster")
    if not (src / root).is_file():
        for r in (row_p, row_w):
            r.result = f"skipped: corpus project not found at {src} (set COLOSSEUM_CORPUS)"
        return [row_p, row_w]
    work = ctx.tmp / key
    work.mkdir(parents=True, exist_ok=True)
    walk_src = fresh_copy(src, work / "walk" / "src")

    # what can run
    ours_problem = None if ctx.engine_ok else "skipped: " + ctx.engine_reason
    walk_ver = pylatexenc_version()
    walk_problem = None if walk_ver else "skipped: pylatexenc not installed: " + INSTALL_PYLATEXENC
    if walk_ver and walk_ver != "2.11":
        note = f"pylatexenc {walk_ver} measured (the issue's anchors used 2.11: {INSTALL_PYLATEXENC})"
        if note not in ctx.notes:
            ctx.notes.append(note)
    plastex, why = plastex_command()
    plastex_problem = None if plastex else "skipped: " + why
    if ctx.quick and plastex:
        plastex_problem = "skipped: --quick (plasTeX takes 15-40 s a project; run without --quick)"
    plastex_args = ["-c", "plastex.cfg"]
    if plastex and not plastex_problem and shutil.which("pdftoppm") is None:
        plastex_args.append("--disable-images")
        note = ("plasTeX measured with --disable-images: its image step needs pdftoppm, which is missing "
                "(apt-get install poppler-utils for the full build); without images plasTeX is faster, "
                "so the speedup against it is understated")
        if note not in ctx.notes:
            ctx.notes.append(note)

    def run_plastex(rep: int) -> dict:
        nonlocal plastex_args
        while True:
            base = work / "plastex" / f"run{rep}"
            if base.exists():
                shutil.rmtree(base)
            proj = fresh_copy(src, base / "src")  # plastex.cfg writes the site to ../web
            print(f"  {label}: plasTeX run {rep + 1}/{ctx.plastex_repeats} ...", file=sys.stderr, flush=True)
            with open(base / "stdout.log", "wb") as out:
                m = run_measured(plastex + plastex_args + [root], cwd=proj, stdout=out,
                                 stderr_path=base / "stderr.log")
            shutil.rmtree(base, ignore_errors=True)
            if m["rc"] != 0 and "--disable-images" not in plastex_args:
                reason = failure_reason(m["stderr_tail"])
                if "pdftoppm" in reason or "imager" in reason.lower() or " gs" in reason:
                    ctx.notes.append(f"plasTeX full build failed in its image step ({reason}); "
                                     "measured with --disable-images instead")
                    plastex_args = plastex_args + ["--disable-images"]
                    continue
            return m

    # warm-up and sanity check of ours (not timed): .pyc files, and does the output look right?
    sanity = {}
    if not ours_problem:
        out = subprocess.run([PY, "-m", "colosseum", "dag", str(walk_src), "--format", "json"], cwd=work,
                             env=engine_env(), capture_output=True, text=True)
        if out.returncode != 0:
            ours_problem = f"ERROR: ours exit {out.returncode}: {failure_reason(out.stderr)}"
        else:
            try:
                dag = json.loads(out.stdout)
                sanity = {"nodes": len(dag.get("nodes", [])), "edges": len(dag.get("edges", []))}
            except Exception as exc:
                ours_problem = f"ERROR: ours printed no JSON: {exc}"

    ours_s, walk_s, plastex_s = [], [], []
    ours_rss, walk_rss, plastex_rss = [], [], []
    ours_cpu, walk_cpu, plastex_cpu = [], [], []
    walk_stderr = ""
    n_rounds = max(ctx.repeats, 0 if plastex_problem else ctx.plastex_repeats)
    for rep in range(n_rounds):
        # interleaved, so that machine noise hits all three alike
        if rep < ctx.repeats and not ours_problem:
            proj = fresh_copy(src, work / "ours" / "src")
            m = run_measured([PY, "-m", "colosseum", "dag", str(proj), "--format", "json"], cwd=work,
                             env=engine_env())
            if m["rc"] != 0:
                ours_problem = f"ERROR: ours exit {m['rc']}: {failure_reason(m['stderr_tail'])}"
            else:
                ours_s.append(m["seconds"])
                ours_rss.append(m["maxrss_mib"])
                ours_cpu.append(m["cpu_s"])
        if rep < ctx.repeats and not walk_problem:
            m = run_measured([PY, str(BENCH / "pylatexenc_walk.py"), str(walk_src / root)], cwd=work)
            if m["rc"] != 0:
                walk_problem = f"ERROR: pylatexenc walk exit {m['rc']}: {failure_reason(m['stderr_tail'])}"
            else:
                walk_s.append(m["seconds"])
                walk_rss.append(m["maxrss_mib"])
                walk_cpu.append(m["cpu_s"])
                walk_stderr = m["stderr_tail"].strip()
        if rep < ctx.plastex_repeats and not plastex_problem:
            m = run_plastex(rep)
            if m["rc"] != 0:
                plastex_problem = (f"ERROR: plasTeX build failed (exit {m['rc']}): "
                                   f"{failure_reason(m['stderr_tail'])}")
            else:
                plastex_s.append(m["seconds"])
                plastex_rss.append(m["maxrss_mib"])
                plastex_cpu.append(m["cpu_s"])

    ours = median(ours_s)
    common = {"project": folder, "root": root,
              "ours_cmd": "python -m colosseum dag <copy of project dir> --format json > /dev/null",
              "ours_samples_s": ours_s, "ours_cpu_s": ours_cpu, "ours_maxrss_mib": ours_rss,
              "ours_output": sanity}
    row_p.data = dict(common, baseline_cmd="plastex " + " ".join(plastex_args) + " " + root,
                      baseline_samples_s=plastex_s, baseline_cpu_s=plastex_cpu, baseline_maxrss_mib=plastex_rss,
                      issue_anchor_baseline_s=anchors[0])
    row_w.data = dict(common, baseline_cmd=f"python bench/pylatexenc_walk.py {root}", baseline_samples_s=walk_s,
                      baseline_cpu_s=walk_cpu,
                      baseline_maxrss_mib=walk_rss, baseline_output=walk_stderr,
                      issue_anchor_baseline_s=anchors[1])
    for row, samples, problem, need, suffix in (
        (row_p, plastex_s, plastex_problem, PLASTEX_SPEEDUP,
         " (no images)" if "--disable-images" in plastex_args else ""),
        (row_w, walk_s, walk_problem, PYLATEXENC_SPEEDUP, ""),
    ):
        if ours_s:
            row.ours = fmt_s(ours)
        if samples:
            row.baseline = fmt_s(median(samples)) + suffix
        if ours_s and samples:
            speedup = median(samples) / ours
            row.ratio = f"{speedup:.1f}x"
            row.data["speedup"] = speedup
        row.result = problem or ours_problem or verdict(row.data["speedup"] >= need)
    if ours_cpu and (plastex_cpu or walk_cpu):
        parts = [f"ours {fmt_s(median(ours_cpu))}"]
        for name, cpu in (("plasTeX", plastex_cpu), ("pylatexenc", walk_cpu)):
            if cpu:
                parts.append(f"{name} {fmt_s(median(cpu))} ({median(cpu) / median(ours_cpu):.1f}x)")
        ctx.notes.append(f"{label}: CPU time (user+sys, less sensitive to other load): " + ", ".join(parts))
    if sanity:
        ctx.notes.append(f"{label}: `colosseum dag` output has {sanity['nodes']} nodes and {sanity['edges']} edges")
    if walk_stderr:
        ctx.notes.append(f"{label}: pylatexenc walk saw {walk_stderr}")
    return [row_p, row_w]


# ---------------------------------------------------------------------------------------------
# 2. synthetic project: cold index, peak memory, edit latency


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


def bench_synthetic_cold(ctx: Ctx) -> list[Row]:
    row = Row("synthetic-cold", "synthetic 50k lines: cold ProjectIndex.open", target=f"< {SYNTH_COLD_S:.0f} s")
    if not ctx.engine_ok:
        row.result = "skipped: " + ctx.engine_reason
        return [row]
    res = synthetic_cold_runs(ctx)
    if res["error"]:
        row.result = "ERROR: " + res["error"]
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
    if not ctx.engine_ok:
        row.result = "skipped: " + ctx.engine_reason
        return [row]
    res = synthetic_cold_runs(ctx)
    if res["error"]:
        row.result = "ERROR: " + res["error"]
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
    if not ctx.engine_ok:
        for r in rows:
            r.result = "skipped: " + ctx.engine_reason
        return rows
    project = synthetic_project(ctx, big=True, single=single)
    params = json.dumps(project.params)
    samples, per_run, mismatches = [], [], []
    runs = 1 if ctx.quick else max(1, min(ctx.repeats, 3))
    for rep in range(runs):
        data, m = child(ctx, ["edits", str(project.root), params, str(ctx.edits), "7"])
        if "error" in data or "unavailable" in data:
            for r in rows:
                r.result = "ERROR: " + (data.get("unavailable") or data.get("error"))
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


# ---------------------------------------------------------------------------------------------
# 3. the language server over stdio (bench/lsp_bench.py): one session serves the four lsp-* rows


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
    if not ctx.engine_ok:
        for r in rows:
            r.result = "skipped: " + ctx.engine_reason
        return None
    out = lsp_session(ctx)
    if "error" in out:
        for r in rows:
            r.result = "ERROR: " + out["error"]
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


# ---------------------------------------------------------------------------------------------
# main


def print_table(rows: list[Row]) -> str:
    head = ("benchmark", "ours", "baseline", "speedup", "target", "result")
    cells = [head] + [(r.name, r.ours, r.baseline, r.ratio, r.target, r.result) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(5)]
    lines = []
    for k, c in enumerate(cells):
        lines.append("  ".join(c[i].ljust(widths[i]) for i in range(5)) + "  " + c[5])
        if k == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 6)
    return "\n".join(lines)


def environment() -> dict:
    def version(mod):
        p = subprocess.run([PY, "-c", f"import importlib.metadata as m; print(m.version('{mod}'))"],
                           capture_output=True, text=True)
        return p.stdout.strip() or None

    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    except OSError:
        rev = ""
    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "git_head": rev or None,
        "pylatexenc": version("pylatexenc"),
        "plasTeX": version("plasTeX"),
        "leanblueprint": version("leanblueprint"),
        "kpsewhich": shutil.which("kpsewhich"),
        "pdftoppm": shutil.which("pdftoppm"),
    }


def bench_inner_loop(ctx: Ctx) -> list[Row]:
    import asyncio

    import inner_loop_bench

    m = asyncio.run(inner_loop_bench.measure(0.2))
    ratio = Row("inner-loop", "inner loop, default tree: wall / critical path (0.2 s latency)",
                ours=f"{m['ratio']:.3f}", target="<= 1.15", result=verdict(m["ratio"] <= 1.15), data=m)
    overhead = Row("inner-loop", "inner loop: harness overhead per model call",
                   ours=f"{m['overhead_per_call_ms']:.2f} ms", target="< 2 ms", result=verdict(m["overhead_per_call_ms"] < 2))
    tokens = Row("inner-loop", "inner loop: uncached input tokens per obligation, with / without prompt caching",
                 ours=f"{m['uncached_input_tokens_with_caching']:,}", baseline=f"{m['input_tokens_without_caching']:,}",
                 ratio=f"{m['input_tokens_without_caching'] / max(1, m['uncached_input_tokens_with_caching']):.1f}x")
    return [ratio, overhead, tokens]


def bench_catalog(ctx: Ctx) -> list[Row]:
    import catalog_bench

    m = catalog_bench.measure()
    return [Row("catalog-retrieval", "knowledge catalog, 10,000 entries: one retrieval, p95",
                ours=f"{m['retrieve_p95_ms']:.1f} ms", target="< 100 ms", result=verdict(m["retrieve_p95_ms"] < 100),
                data=m)]


RUNNERS = {
    "catalog-retrieval": bench_catalog,
    "inner-loop": bench_inner_loop,
    "research": lambda ctx: [Row(**r) for r in __import__("research_bench").rows()],  # bench/research_bench.py
    "synthetic-cold": bench_synthetic_cold,
    "synthetic-memory": bench_synthetic_memory,
    "synthetic-edit": bench_synthetic_edit,
    "file-edit": bench_file_edit,
    "lsp-edit": bench_lsp_edit,
    "lsp-completion": bench_lsp_completion,
    "lsp-definition": bench_lsp_definition,
    "lsp-memory": bench_lsp_memory,
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Colosseum benchmark suite (see bench/README.md)")
    ap.add_argument("--quick", action="store_true", help="smoke run: 1 repetition, 20 edits, no plasTeX")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="run benchmarks whose name contains NAME (repeatable, or comma-separated): "
                         + ", ".join(BENCHMARKS))
    ap.add_argument("--repeats", type=int, help="repetitions of each measurement (default 5, --quick 1)")
    ap.add_argument("--plastex-repeats", type=int, help="repetitions of the plasTeX build (default 3)")
    ap.add_argument("--edits", type=int, help="edits per run of the edit benchmark (default 50, --quick 20)")
    ap.add_argument("--lsp-samples", type=int,
                    help="edits, completions and definitions in the lsp-* benchmarks (default 100 each, --quick 20)")
    ap.add_argument("--json", type=Path, default=BENCH / "results" / "latest.json", help="where to write results")
    ap.add_argument("--keep-tmp", action="store_true", help="keep the temporary directory")
    ap.add_argument("--list", action="store_true", help="list benchmark names and exit")
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(BENCHMARKS))
        return 0
    selectors = [s.strip() for arg in args.only for s in arg.split(",") if s.strip()]
    selected = [b for b in BENCHMARKS if not selectors or any(s in b for s in selectors)]
    if not selected:
        print(f"no benchmark matches {selectors}; names: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2

    corpus = Path(os.environ.get("COLOSSEUM_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus")
    tmp = Path(tempfile.mkdtemp(prefix="colosseum-bench-"))
    ctx = Ctx(quick=args.quick,
              repeats=args.repeats or (1 if args.quick else 5),
              plastex_repeats=args.plastex_repeats or (1 if args.quick else 3),
              edits=args.edits or (20 if args.quick else 50),
              lsp_samples=args.lsp_samples or (20 if args.quick else 100),
              tmp=tmp, corpus=corpus)
    check_engine(ctx)
    load = os.getloadavg()[0]
    if load > 0.5:
        ctx.notes.append(f"the machine was busy when the run started (1-minute load average {load:.2f} on "
                         f"{os.cpu_count()} cores): timings are noisy, compare the CPU-time figures too")
    if not ctx.engine_ok:
        ctx.notes.append(ctx.engine_reason)
    print(f"colosseum bench: {', '.join(selected)}; {ctx.repeats} repetition(s), medians reported; "
          f"corpus {corpus}", file=sys.stderr)
    rows: list[Row] = []
    t_start = time.perf_counter()
    try:
        for name in selected:
            print(f"running {name} ...", file=sys.stderr, flush=True)
            try:
                if name in CORPUS_PROJECTS:
                    rows += bench_corpus(ctx, name)
                else:
                    rows += RUNNERS[name](ctx)
            except Exception as exc:  # one broken benchmark does not take the others down
                rows.append(Row(name, name, result=f"ERROR: {type(exc).__name__}: {exc}"))
                ctx.notes.append(f"{name} crashed:\n{traceback.format_exc()}")
    finally:
        if not args.keep_tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.perf_counter() - t_start

    print()
    print(print_table(rows))
    print()
    print(f"speedup = baseline time / ours (whole processes, medians of {ctx.repeats} runs; plasTeX: "
          f"{ctx.plastex_repeats}); {elapsed:.0f} s in all")
    for note in ctx.notes:
        print("note: " + note)
    counts = {k: sum(1 for r in rows if r.result.startswith(k)) for k in ("PASS", "FAIL", "skipped", "ERROR")}
    print(f"{counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['skipped']} skipped, {counts['ERROR']} ERROR")

    result = {
        "command": " ".join([Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:])),
        "environment": environment(),
        "settings": {"quick": ctx.quick, "repeats": ctx.repeats, "plastex_repeats": ctx.plastex_repeats,
                     "edits": ctx.edits, "lsp_samples": ctx.lsp_samples, "corpus": str(corpus), "selected": selected},
        "targets": {"plastex_speedup": PLASTEX_SPEEDUP, "pylatexenc_speedup": PYLATEXENC_SPEEDUP,
                    "synthetic_cold_s": SYNTH_COLD_S, "synthetic_rss_mib": SYNTH_RSS_MIB, "edit_ms": EDIT_MS,
                    "lsp_edit_p95_ms": LSP_EDIT_MS, "lsp_request_p95_ms": LSP_REQUEST_MS,
                    "lsp_rss_mib": LSP_RSS_MIB},
        "rows": [asdict(r) for r in rows],
        "notes": ctx.notes,
        "elapsed_s": elapsed,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"results written to {args.json}")
    return 1 if counts["ERROR"] else 0


if __name__ == "__main__":
    sys.exit(main())
