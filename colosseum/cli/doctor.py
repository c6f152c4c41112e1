"""``colosseum doctor [PATH] [--offline] [--format text|json]``: one table of what this machine can
do for the project at PATH (default: the current folder) and how to fix what it cannot: Python and
package versions, the extras, the API key (never printed) with one free live request (skipped with
``--offline``), lake, elan and the toolchain, bubblewrap, latexmk, graphviz, the folder's trust and
the editor clients against this server's version.

Exit codes: 0 everything the project's settings use is available; 1 something it uses is missing;
2 bad input (no such folder)."""

from __future__ import annotations

import sys
from pathlib import Path

EXIT_USAGE = 2
MARKS = {"ok": "ok", "missing": "MISSING", "failed": "FAILED", "skipped": "-", "warning": "warning"}


def add_arguments(sub) -> None:
    doctor = sub.add_parser("doctor", help="what this machine can do for the project, and how to fix the rest")
    doctor.add_argument("path", nargs="?", default=".", help="project directory or its root .tex file (default: .)")
    doctor.add_argument("--offline", action="store_true", help="make no request to the model provider")
    doctor.add_argument("--format", choices=("text", "json"), default="text")
    doctor.set_defaults(run=run_doctor)


def run_doctor(args) -> int:
    from colosseum.app.doctor import examine
    from colosseum.cli.terminal import print_json, say

    path = Path(args.path)
    project_dir = path.parent if path.is_file() else path
    if not project_dir.is_dir():
        say(f"no such folder: {args.path}")
        return EXIT_USAGE
    report = examine(project_dir.resolve(), offline=args.offline)
    if args.format == "json":
        data = report.to_json()
        data.pop("schema_version")
        print_json(data)
    else:
        print_table(report)
    return 0 if report.ready else 1


def print_table(report) -> None:
    rows = [(c.name, MARKS.get(c.state, c.state) + (" (used)" if c.needed else ""), c.detail, c.fix)
            for c in report.checks]
    widths = [max(len(row[i]) for row in rows + [("check", "state", "found", "")]) for i in range(2)]
    print(f"{'check':<{widths[0]}}  {'state':<{widths[1]}}  found")
    for name, state, detail, fix in rows:
        print(f"{name:<{widths[0]}}  {state:<{widths[1]}}  {detail}")
        if fix:
            print(f"{'':<{widths[0]}}  {'':<{widths[1]}}  fix: {fix}")
    blocking = [c.name for c in report.checks if c.blocking]
    print(f"\n{'ready' if not blocking else 'not ready: ' + ', '.join(blocking) + ' (used by the project)'}")
