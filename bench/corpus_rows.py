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

    ours_runs, walk_runs, plastex_runs = Samples(), Samples(), Samples()
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
                ours_runs.add(m)
        if rep < ctx.repeats and not walk_problem:
            m = run_measured([PY, str(BENCH / "pylatexenc_walk.py"), str(walk_src / root)], cwd=work)
            if m["rc"] != 0:
                walk_problem = f"ERROR: pylatexenc walk exit {m['rc']}: {failure_reason(m['stderr_tail'])}"
            else:
                walk_runs.add(m)
                walk_stderr = m["stderr_tail"].strip()
        if rep < ctx.plastex_repeats and not plastex_problem:
            m = run_plastex(rep)
            if m["rc"] != 0:
                plastex_problem = (f"ERROR: plasTeX build failed (exit {m['rc']}): "
                                   f"{failure_reason(m['stderr_tail'])}")
            else:
                plastex_runs.add(m)

    ours = median(ours_runs.seconds)
    common = {"project": folder, "root": root,
              "ours_cmd": "python -m colosseum dag <copy of project dir> --format json > /dev/null",
              **ours_runs.fields("ours"), "ours_output": sanity}
    row_p.data = dict(common, baseline_cmd="plastex " + " ".join(plastex_args) + " " + root,
                      **plastex_runs.fields("baseline"), issue_anchor_baseline_s=anchors[0])
    row_w.data = dict(common, baseline_cmd=f"python bench/pylatexenc_walk.py {root}",
                      **walk_runs.fields("baseline"), baseline_output=walk_stderr, issue_anchor_baseline_s=anchors[1])
    for row, samples, problem, need, suffix in (
        (row_p, plastex_runs.seconds, plastex_problem, PLASTEX_SPEEDUP,
         " (no images)" if "--disable-images" in plastex_args else ""),
        (row_w, walk_runs.seconds, walk_problem, PYLATEXENC_SPEEDUP, ""),
    ):
        if ours_runs.seconds:
            row.ours = fmt_s(ours)
        if samples:
            row.baseline = fmt_s(median(samples)) + suffix
        if ours_runs.seconds and samples:
            speedup = median(samples) / ours
            row.ratio = f"{speedup:.1f}x"
            row.data["speedup"] = speedup
        row.result = problem or ours_problem or verdict(row.data["speedup"] >= need)
    if ours_runs.cpu_s and (plastex_runs.cpu_s or walk_runs.cpu_s):
        parts = [f"ours {fmt_s(median(ours_runs.cpu_s))}"]
        for name, cpu in (("plasTeX", plastex_runs.cpu_s), ("pylatexenc", walk_runs.cpu_s)):
            if cpu:
                parts.append(f"{name} {fmt_s(median(cpu))} ({median(cpu) / median(ours_runs.cpu_s):.1f}x)")
        ctx.notes.append(f"{label}: CPU time (user+sys, less sensitive to other load): " + ", ".join(parts))
    if sanity:
        ctx.notes.append(f"{label}: `colosseum dag` output has {sanity['nodes']} nodes and {sanity['edges']} edges")
    if walk_stderr:
        ctx.notes.append(f"{label}: pylatexenc walk saw {walk_stderr}")
    return [row_p, row_w]
