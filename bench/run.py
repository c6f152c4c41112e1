"""Colosseum benchmark suite: one command, timings and ratios measured side by side.

    python bench/run.py                 # everything (about 5 minutes on 2 cores)
    python bench/run.py --quick         # smoke run: 1 repetition, fewer edits, no plasTeX
    python bench/run.py --only flt      # select benchmarks by (part of) their name; repeatable
    python bench/run.py --only lsp      # the language server over stdio (bench/lsp_bench.py)
    python bench/run.py --only dag-html # the dependency-graph page at 2,500 claims in Chromium (dag_rows.py)
    python bench/run.py --list          # list the benchmark names

Prints a table (benchmark, ours, baseline, speedup, target, result) and writes every sample to
bench/results/latest.json. See bench/README.md for what each benchmark measures.

This module is the command line, the table and the results file; the rows come from
corpus_rows.py (flt, carleson), engine_rows.py (synthetic-*, file-edit), model_loop_rows.py
(inner-loop, research, catalog-retrieval), lsp_rows.py (lsp-*), scale_rows.py (scale, import-cost)
and probe_rows.py (probe), on top of harness.py.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus_rows import CORPUS_PROJECTS, PLASTEX_SPEEDUP, PYLATEXENC_SPEEDUP, bench_corpus  # noqa: E402
from dag_rows import DAG_PAGE_S, bench_dag_html  # noqa: E402
from engine_rows import (EDIT_MS, SYNTH_COLD_S, SYNTH_RSS_MIB, bench_file_edit, bench_synthetic_cold,  # noqa: E402
                         bench_synthetic_edit, bench_synthetic_memory)
from harness import BENCH, PY, REPO, Ctx, Row, check_engine  # noqa: E402
from lsp_rows import (LSP_EDIT_MS, LSP_REQUEST_MS, LSP_RSS_MIB, bench_lsp_burst,  # noqa: E402
                      bench_lsp_cold_start, bench_lsp_completion, bench_lsp_definition, bench_lsp_edit,
                      bench_lsp_memory)
from model_loop_rows import bench_catalog, bench_inner_loop, bench_research  # noqa: E402
from probe_rows import bench_probe  # noqa: E402
from scale_rows import COLD_740K_S, GROWTH_MAX, IMPORT_MS, KB_PER_LINE, bench_import_cost, bench_scale  # noqa: E402

BENCHMARKS = ["flt", "carleson", "synthetic-cold", "synthetic-memory", "file-edit", "synthetic-edit", "inner-loop", "research", "catalog-retrieval",
              "lsp-edit", "lsp-burst", "lsp-completion", "lsp-definition", "lsp-cold-start", "lsp-memory", "scale",
              "import-cost", "probe", "dag-html"]


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


RUNNERS = {
    "dag-html": bench_dag_html,
    "catalog-retrieval": bench_catalog,
    "inner-loop": bench_inner_loop,
    "research": bench_research,
    "synthetic-cold": bench_synthetic_cold,
    "synthetic-memory": bench_synthetic_memory,
    "synthetic-edit": bench_synthetic_edit,
    "file-edit": bench_file_edit,
    "lsp-edit": bench_lsp_edit,
    "lsp-burst": bench_lsp_burst,
    "lsp-cold-start": bench_lsp_cold_start,
    "lsp-completion": bench_lsp_completion,
    "lsp-definition": bench_lsp_definition,
    "lsp-memory": bench_lsp_memory,
    "scale": bench_scale,
    "import-cost": bench_import_cost,
    "probe": bench_probe,
}


def argument_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description="Colosseum benchmark suite (see bench/README.md)")
    ap.add_argument("--quick", action="store_true", help="smoke run: 1 repetition, 20 edits, no plasTeX")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="run benchmarks whose name contains NAME (repeatable, or comma-separated): "
                         + ", ".join(BENCHMARKS))
    ap.add_argument("--repeats", type=int, help="repetitions of each measurement (default 5, --quick 1)")
    ap.add_argument("--plastex-repeats", type=int, help="repetitions of the plasTeX build (default 3)")
    ap.add_argument("--edits", type=int, help="edits per run of the edit benchmark (default 50, --quick 20)")
    ap.add_argument("--lsp-samples", type=int,
                    help="edits, completions and definitions in the lsp-* benchmarks (default 1000 each, --quick 50; "
                         "bursts: a fiftieth, at least 5)")
    ap.add_argument("--json", type=Path, default=BENCH / "results" / "latest.json", help="where to write results")
    ap.add_argument("--keep-tmp", action="store_true", help="keep the temporary directory")
    ap.add_argument("--list", action="store_true", help="list benchmark names and exit")
    return ap


def make_ctx(args: argparse.Namespace, tmp: Path) -> Ctx:
    """The run's settings from the command line (--quick sets the defaults lower), the engine checked."""
    corpus = Path(os.environ.get("COLOSSEUM_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus")
    ctx = Ctx(quick=args.quick,
              repeats=args.repeats or (1 if args.quick else 5),
              plastex_repeats=args.plastex_repeats or (1 if args.quick else 3),
              edits=args.edits or (20 if args.quick else 50),
              lsp_samples=args.lsp_samples or (50 if args.quick else 1000),
              tmp=tmp, corpus=corpus)
    check_engine(ctx)
    load = os.getloadavg()[0]
    if load > 0.5:
        ctx.notes.append(f"the machine was busy when the run started (1-minute load average {load:.2f} on "
                         f"{os.cpu_count()} cores): timings are noisy, compare the CPU-time figures too")
    if not ctx.engine_ok:
        ctx.notes.append(ctx.engine_reason)
    return ctx


def run_rows(ctx: Ctx, selected: list[str]) -> list[Row]:
    rows: list[Row] = []
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
    return rows


def print_report(ctx: Ctx, rows: list[Row], elapsed: float) -> dict[str, int]:
    """The table, the notes and the count of each result; returns that count."""
    print()
    print(print_table(rows))
    print()
    print(f"speedup = baseline time / ours (whole processes, medians of {ctx.repeats} runs; plasTeX: "
          f"{ctx.plastex_repeats}); {elapsed:.0f} s in all")
    for note in ctx.notes:
        print("note: " + note)
    counts = {k: sum(1 for r in rows if r.result.startswith(k)) for k in ("PASS", "FAIL", "skipped", "ERROR")}
    print(f"{counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['skipped']} skipped, {counts['ERROR']} ERROR")
    return counts


def write_results(path: Path, argv: list[str] | None, ctx: Ctx, selected: list[str], rows: list[Row],
                  elapsed: float) -> None:
    result = {
        "command": " ".join([Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:])),
        "environment": environment(),
        "settings": {"quick": ctx.quick, "repeats": ctx.repeats, "plastex_repeats": ctx.plastex_repeats,
                     "edits": ctx.edits, "lsp_samples": ctx.lsp_samples, "corpus": str(ctx.corpus),
                     "selected": selected},
        "targets": {"plastex_speedup": PLASTEX_SPEEDUP, "pylatexenc_speedup": PYLATEXENC_SPEEDUP,
                    "synthetic_cold_s": SYNTH_COLD_S, "synthetic_rss_mib": SYNTH_RSS_MIB, "edit_ms": EDIT_MS,
                    "lsp_edit_p95_ms": LSP_EDIT_MS, "lsp_request_p95_ms": LSP_REQUEST_MS,
                    "lsp_rss_mib": LSP_RSS_MIB, "kb_per_line": KB_PER_LINE, "cold_740k_s": COLD_740K_S,
                    "scale_growth": GROWTH_MAX, "import_ms": IMPORT_MS, "dag_page_s": DAG_PAGE_S},
        "rows": [asdict(r) for r in rows],
        "notes": ctx.notes,
        "elapsed_s": elapsed,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"results written to {path}")


def main(argv: list[str] | None = None) -> int:
    args = argument_parser().parse_args(argv)
    if args.list:
        print("\n".join(BENCHMARKS))
        return 0
    selectors = [s.strip() for arg in args.only for s in arg.split(",") if s.strip()]
    selected = [b for b in BENCHMARKS if not selectors or any(s in b for s in selectors)]
    if not selected:
        print(f"no benchmark matches {selectors}; names: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2

    tmp = Path(tempfile.mkdtemp(prefix="colosseum-bench-"))
    ctx = make_ctx(args, tmp)
    print(f"colosseum bench: {', '.join(selected)}; {ctx.repeats} repetition(s), medians reported; "
          f"corpus {ctx.corpus}", file=sys.stderr)
    t_start = time.perf_counter()
    try:
        rows = run_rows(ctx, selected)
    finally:
        if not args.keep_tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.perf_counter() - t_start
    counts = print_report(ctx, rows, elapsed)
    write_results(args.json, argv, ctx, selected, rows, elapsed)
    return 1 if counts["ERROR"] else 0


if __name__ == "__main__":
    sys.exit(main())
