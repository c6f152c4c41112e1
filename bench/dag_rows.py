"""The dependency-graph page at 2,500 claims (`dag-html`). See bench/README.md.

A blueprint of 2,500 claims (bench/synthetic_claims.py) is written, `python -m colosseum dag DIR
--format html` makes the page (timed, one fresh process), and tests/dag_page_browser.js opens it in
headless Chromium (playwright-core, editor-clients/vscode's devDependency) and waits for the flag
the page sets when its layout is drawn. Reported: from the page's start to two animation frames
after that flag (laid out and painted), the layout alone (which layout ran: dagre, or by generation
above dagre's budget), and switching to top down. Skipped, saying why, without node, Chromium or
playwright-core."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from harness import PY, REPO, Ctx, Row, engine_env, fmt_s, median, run_measured, skip_without_engine, verdict
from synthetic_claims import write_claims_project

DAG_CLAIMS = 2500
DAG_PAGE_S = 5.0  # ours: a 2,500-claim blueprint opens, laid out and painted, within 5 s
CHROMIUM = "/usr/bin/chromium"
PLAYWRIGHT = REPO / "editor-clients" / "vscode" / "node_modules" / "playwright-core"
DRIVER = REPO / "tests" / "dag_page_browser.js"


def missing_browser() -> str | None:
    if shutil.which("node") is None:
        return "node is not on PATH"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM}"
    if not PLAYWRIGHT.is_dir():
        return f"no playwright-core in {PLAYWRIGHT} (npm ci in editor-clients/vscode)"
    return None


def open_page(page) -> dict:
    done = subprocess.run(["node", str(DRIVER), "--page", str(page), "--playwright", str(PLAYWRIGHT),
                           "--chromium", CHROMIUM], capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        raise RuntimeError(f"dag_page_browser.js exited {done.returncode}: {done.stderr[-500:]}")
    return json.loads(done.stdout)


def bench_dag_html(ctx: Ctx) -> list[Row]:
    row = Row("dag-html", f"dag --format html, {DAG_CLAIMS} claims: page laid out and painted in Chromium",
              target=f"<= {DAG_PAGE_S:.0f} s")
    if skip_without_engine(ctx, [row]):
        return [row]
    if (reason := missing_browser()) is not None:
        row.result = "skipped: " + reason
        return [row]
    root = write_claims_project(ctx.tmp / "dag-html-blueprint", n_claims=DAG_CLAIMS)
    page = ctx.tmp / "dag-html.html"
    with page.open("w", encoding="utf-8") as out:
        made = run_measured([PY, "-m", "colosseum", "dag", str(root), "--format", "html"], cwd=ctx.tmp,
                            env=engine_env(), stdout=out)
    if made["rc"] != 0:
        raise RuntimeError(f"colosseum dag exited {made['rc']}: {made['stderr_tail'][-300:]}")
    runs = [open_page(page) for _ in range(max(1, min(ctx.repeats, 3)))]
    painted = median([r["first"]["paintedMs"] for r in runs]) / 1000
    layout = median([r["first"]["layoutMs"] for r in runs]) / 1000
    switch = median([r["tb"]["layout"]["layoutMs"] for r in runs]) / 1000
    engine = runs[0]["first"]["engine"]
    row.ours = f"{fmt_s(painted)} (layout {fmt_s(layout)}, {engine}; top down {fmt_s(switch)})"
    row.baseline = f"page written in {fmt_s(made['seconds'])}"
    row.result = verdict(painted <= DAG_PAGE_S)
    row.data = {"claims": DAG_CLAIMS, "nodes": runs[0]["lr"]["nodes"], "edges": runs[0]["lr"]["edges"],
                "engine": engine, "painted_s": painted, "layout_s": layout, "top_down_layout_s": switch,
                "write_s": made["seconds"], "samples_painted_ms": [r["first"]["paintedMs"] for r in runs],
                "note": runs[0]["first"]["note"]}
    return [row]
