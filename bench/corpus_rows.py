"""Rows `flt` and `carleson`: cold index of a real blueprint, whole process, against leanblueprint's
plasTeX build and a bare pylatexenc walk (bench/pylatexenc_walk.py). See bench/README.md.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from harness import (BENCH, PY, Ctx, Row, engine_env, failure_reason, fmt_s, fresh_copy, median, run_measured,
                     verdict)

# Targets from the issue.
PLASTEX_SPEEDUP = 50.0  # ours at least 50x faster than leanblueprint's plasTeX build
PYLATEXENC_SPEEDUP = 4.0  # ours under 1/4 of a bare pylatexenc walk

CORPUS_PROJECTS = {
    # bench name: (corpus folder, root, label, issue author's anchors: plasTeX s, pylatexenc s)
    "flt": ("ImperialCollegeLondon__FLT", "web.tex", "FLT", (22.7, 3.3)),
    "carleson": ("fpvandoorn__carleson", "web.tex", "Carleson", (41.8, 5.5)),
}

INSTALL_PLASTEX = ("pip install leanblueprint (brings plasTeX 3.1 and the dependency-graph plugin); "
                   "plasTeX also needs kpsewhich: apt-get install texlive-latex-base texlive-latex-extra")
INSTALL_PYLATEXENC = "pip install 'pylatexenc==2.11'"


@dataclass
class Samples:
    """One tool's figures, a run each: wall time, peak RSS, CPU time (user + sys)."""

    seconds: list[float] = field(default_factory=list)
    maxrss_mib: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)

    def add(self, measured: dict) -> None:
        """Append one run_measured() result."""
        self.seconds.append(measured["seconds"])
        self.maxrss_mib.append(measured["maxrss_mib"])
        self.cpu_s.append(measured["cpu_s"])

    def fields(self, who: str) -> dict:
        """These runs as the results file names them: {who}_samples_s, {who}_cpu_s, {who}_maxrss_mib."""
        return {f"{who}_samples_s": self.seconds, f"{who}_cpu_s": self.cpu_s, f"{who}_maxrss_mib": self.maxrss_mib}


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


@dataclass
class CorpusRun:
    """One project's measurement under way: where its copies live, what stops each tool (a `skipped: ...`
    or `ERROR: ...` result, None while the tool can run) and the samples so far."""

    folder: str
    root: str
    label: str
    src: Path  # the project in the corpus, never written to
    work: Path  # this project's part of the run's temporary directory
    walk_src: Path  # the copy the warm-up of ours and the pylatexenc walk read
    plastex: list[str] | None = None  # the plastex executable, None when it is not installed
    plastex_args: list[str] = field(default_factory=lambda: ["-c", "plastex.cfg"])
    ours_problem: str | None = None
    walk_problem: str | None = None
    plastex_problem: str | None = None
    sanity: dict = field(default_factory=dict)  # node and edge counts of ours' JSON
    walk_stderr: str = ""  # what the pylatexenc walk says it saw
    ours_runs: Samples = field(default_factory=Samples)
    walk_runs: Samples = field(default_factory=Samples)
    plastex_runs: Samples = field(default_factory=Samples)


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
    run = CorpusRun(folder, root, label, src, work, walk_src=fresh_copy(src, work / "walk" / "src"))
    find_what_can_run(ctx, run)
    warm_up_ours(run)
    measure_interleaved(ctx, run)
    fill_rows(run, row_p, row_w, anchors)
    add_notes(ctx, run)
    return [row_p, row_w]


def add_note_once(ctx: Ctx, note: str) -> None:
    if note not in ctx.notes:
        ctx.notes.append(note)


def find_what_can_run(ctx: Ctx, run: CorpusRun) -> None:
    """Set each tool's problem (not installed, --quick) and the plasTeX arguments."""
    run.ours_problem = None if ctx.engine_ok else "skipped: " + ctx.engine_reason
    walk_ver = pylatexenc_version()
    run.walk_problem = None if walk_ver else "skipped: pylatexenc not installed: " + INSTALL_PYLATEXENC
    if walk_ver and walk_ver != "2.11":
        add_note_once(ctx, f"pylatexenc {walk_ver} measured (the issue's anchors used 2.11: {INSTALL_PYLATEXENC})")
    run.plastex, why = plastex_command()
    run.plastex_problem = None if run.plastex else "skipped: " + why
    if ctx.quick and run.plastex:
        run.plastex_problem = "skipped: --quick (plasTeX takes 15-40 s a project; run without --quick)"
    if run.plastex and not run.plastex_problem and shutil.which("pdftoppm") is None:
        run.plastex_args.append("--disable-images")
        add_note_once(ctx, "plasTeX measured with --disable-images: its image step needs pdftoppm, which is missing "
                           "(apt-get install poppler-utils for the full build); without images plasTeX is faster, "
                           "so the speedup against it is understated")


def run_plastex(ctx: Ctx, run: CorpusRun, rep: int) -> dict:
    """One plasTeX build on a fresh copy; when the full build fails in its image step, the run goes on
    with --disable-images (this build again, and every later one)."""
    while True:
        base = run.work / "plastex" / f"run{rep}"
        if base.exists():
            shutil.rmtree(base)
        proj = fresh_copy(run.src, base / "src")  # plastex.cfg writes the site to ../web
        print(f"  {run.label}: plasTeX run {rep + 1}/{ctx.plastex_repeats} ...", file=sys.stderr, flush=True)
        with open(base / "stdout.log", "wb") as out:
            m = run_measured(run.plastex + run.plastex_args + [run.root], cwd=proj, stdout=out,
                             stderr_path=base / "stderr.log")
        shutil.rmtree(base, ignore_errors=True)
        if m["rc"] != 0 and "--disable-images" not in run.plastex_args:
            reason = failure_reason(m["stderr_tail"])
            if "pdftoppm" in reason or "imager" in reason.lower() or " gs" in reason:
                ctx.notes.append(f"plasTeX full build failed in its image step ({reason}); "
                                 "measured with --disable-images instead")
                run.plastex_args = run.plastex_args + ["--disable-images"]
                continue
        return m


def warm_up_ours(run: CorpusRun) -> None:
    """Run ours once, not timed: it compiles the .pyc files, and its JSON is checked (run.sanity)."""
    if run.ours_problem:
        return
    out = subprocess.run([PY, "-m", "colosseum", "dag", str(run.walk_src), "--format", "json"], cwd=run.work,
                         env=engine_env(), capture_output=True, text=True)
    if out.returncode != 0:
        run.ours_problem = f"ERROR: ours exit {out.returncode}: {failure_reason(out.stderr)}"
        return
    try:
        dag = json.loads(out.stdout)
        run.sanity = {"nodes": len(dag.get("nodes", [])), "edges": len(dag.get("edges", []))}
    except Exception as exc:
        run.ours_problem = f"ERROR: ours printed no JSON: {exc}"


def measure_interleaved(ctx: Ctx, run: CorpusRun) -> None:
    """The timed runs, interleaved round by round so that machine noise hits all three tools alike."""
    n_rounds = max(ctx.repeats, 0 if run.plastex_problem else ctx.plastex_repeats)
    for rep in range(n_rounds):
        if rep < ctx.repeats and not run.ours_problem:
            proj = fresh_copy(run.src, run.work / "ours" / "src")
            m = run_measured([PY, "-m", "colosseum", "dag", str(proj), "--format", "json"], cwd=run.work,
                             env=engine_env())
            if m["rc"] != 0:
                run.ours_problem = f"ERROR: ours exit {m['rc']}: {failure_reason(m['stderr_tail'])}"
            else:
                run.ours_runs.add(m)
        if rep < ctx.repeats and not run.walk_problem:
            m = run_measured([PY, str(BENCH / "pylatexenc_walk.py"), str(run.walk_src / run.root)], cwd=run.work)
            if m["rc"] != 0:
                run.walk_problem = f"ERROR: pylatexenc walk exit {m['rc']}: {failure_reason(m['stderr_tail'])}"
            else:
                run.walk_runs.add(m)
                run.walk_stderr = m["stderr_tail"].strip()
        if rep < ctx.plastex_repeats and not run.plastex_problem:
            m = run_plastex(ctx, run, rep)
            if m["rc"] != 0:
                run.plastex_problem = (f"ERROR: plasTeX build failed (exit {m['rc']}): "
                                       f"{failure_reason(m['stderr_tail'])}")
            else:
                run.plastex_runs.add(m)


def fill_rows(run: CorpusRun, row_p: Row, row_w: Row, anchors: tuple[float, float]) -> None:
    """The two rows' figures, speedups, results and data from the samples."""
    ours = median(run.ours_runs.seconds)
    common = {"project": run.folder, "root": run.root,
              "ours_cmd": "python -m colosseum dag <copy of project dir> --format json > /dev/null",
              **run.ours_runs.fields("ours"), "ours_output": run.sanity}
    row_p.data = dict(common, baseline_cmd="plastex " + " ".join(run.plastex_args) + " " + run.root,
                      **run.plastex_runs.fields("baseline"), issue_anchor_baseline_s=anchors[0])
    row_w.data = dict(common, baseline_cmd=f"python bench/pylatexenc_walk.py {run.root}",
                      **run.walk_runs.fields("baseline"), baseline_output=run.walk_stderr,
                      issue_anchor_baseline_s=anchors[1])
    for row, samples, problem, need, suffix in (
        (row_p, run.plastex_runs.seconds, run.plastex_problem, PLASTEX_SPEEDUP,
         " (no images)" if "--disable-images" in run.plastex_args else ""),
        (row_w, run.walk_runs.seconds, run.walk_problem, PYLATEXENC_SPEEDUP, ""),
    ):
        if run.ours_runs.seconds:
            row.ours = fmt_s(ours)
        if samples:
            row.baseline = fmt_s(median(samples)) + suffix
        if run.ours_runs.seconds and samples:
            speedup = median(samples) / ours
            row.ratio = f"{speedup:.1f}x"
            row.data["speedup"] = speedup
        row.result = problem or run.ours_problem or verdict(row.data["speedup"] >= need)


def add_notes(ctx: Ctx, run: CorpusRun) -> None:
    """CPU times side by side, the size of ours' output and what the walk saw."""
    ours_cpu, plastex_cpu, walk_cpu = run.ours_runs.cpu_s, run.plastex_runs.cpu_s, run.walk_runs.cpu_s
    if ours_cpu and (plastex_cpu or walk_cpu):
        parts = [f"ours {fmt_s(median(ours_cpu))}"]
        for name, cpu in (("plasTeX", plastex_cpu), ("pylatexenc", walk_cpu)):
            if cpu:
                parts.append(f"{name} {fmt_s(median(cpu))} ({median(cpu) / median(ours_cpu):.1f}x)")
        ctx.notes.append(f"{run.label}: CPU time (user+sys, less sensitive to other load): " + ", ".join(parts))
    if run.sanity:
        ctx.notes.append(f"{run.label}: `colosseum dag` output has {run.sanity['nodes']} nodes and "
                         f"{run.sanity['edges']} edges")
    if run.walk_stderr:
        ctx.notes.append(f"{run.label}: pylatexenc walk saw {run.walk_stderr}")
