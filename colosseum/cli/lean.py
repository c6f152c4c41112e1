r"""``colosseum lean PATH``: check the paper's Lean (declarations named with ``\lean{...}`` and inline
Lean) with a progress bar per file on stderr.

Exit codes: 0 every check passed; 1 a check failed (a declaration missing or not elaborating, a
``\leanok`` whose claim Lean refutes, e.g. a proof marked \leanok that uses ``sorry``, or inline
Lean with errors); 3 nothing failed but something could not be checked (Lean not installed, the
project does not build, the time limit, a crash); 2 bad arguments or no LaTeX project; 130
cancelled (Ctrl-C). Without trust (``--trust``, COLOSSEUM_TRUST=1 or ``trusted_folders`` in the
user-level config) nothing runs and the exit code is 2: ``lake serve`` runs the project's code. A statement formalized with its proof still ``sorry`` is not a failure unless
its proof is marked \leanok."""

from __future__ import annotations

import sys
from pathlib import Path

from colosseum.cli.terminal import Progress, add_quiet_argument, print_json

EXIT_FAILED, EXIT_USAGE, EXIT_UNCHECKED, EXIT_CANCELLED = 1, 2, 3, 130


def add_arguments(sub) -> None:
    lean = sub.add_parser("lean", help="check the Lean declarations and inline Lean of the paper")
    lean.add_argument("path", help="project directory or its root .tex file")
    lean.add_argument("--format", choices=("text", "json"), default="text")
    lean.add_argument("--time-limit", type=float, metavar="SECONDS",
                      help="per file (default: [lean] time_limit in colosseum.toml, else 300)")
    lean.add_argument("--no-cache", action="store_true", help="ask Lean again even about files it answered before")
    lean.add_argument("--no-catalog", action="store_true",
                      help="do not record passing checks as formal evidence in the catalog")
    lean.add_argument("--trust", action="store_true",
                      help="trust this project to run its code (lake serve elaborates its lakefile.lean)")
    add_quiet_argument(lean)
    lean.set_defaults(run=run_lean)


class _Bar(Progress):
    """The progress line of a Lean check: the file being checked and how many are done."""

    def __init__(self, quiet: bool = False):
        super().__init__(enabled=False if quiet else None)

    def __call__(self, event) -> None:
        filled = self.BAR_WIDTH * event.done // max(1, event.total)
        what = "checking" if event.status == "checking" else event.status
        bar = "#" * filled + "." * (self.BAR_WIDTH - filled)
        self.show(f"Lean [{bar}] {event.done}/{event.total} {what} {event.name}")


def run_lean(args) -> int:
    from colosseum.app.lean import check_in_terminal, conclude, lean_setup, lean_trust, plan_lean_check
    from colosseum.app.project import ProjectNotOpened, open_plain

    if args.time_limit is not None and args.time_limit <= 0:
        print("colosseum: --time-limit must be a positive number of seconds", file=sys.stderr)
        return EXIT_USAGE
    try:
        index = open_plain(args.path)
    except ProjectNotOpened as exc:
        print(f"colosseum: {exc}", file=sys.stderr)
        return EXIT_USAGE
    trust = lean_trust(index.root_dir, flag=args.trust)
    if not trust:
        print(f"colosseum: {trust.reason}", file=sys.stderr)
        return EXIT_USAGE
    settings = lean_setup(index, args.time_limit)
    for problem in [] if args.quiet else settings.problems:
        print(f"colosseum: colosseum.toml: {problem.message} (the default is used)", file=sys.stderr)
    bar = _Bar(args.quiet)
    report = check_in_terminal(plan_lean_check(index, settings), bar, use_cache=not args.no_cache)
    bar.finish()
    if report is None:
        print("colosseum: Lean check cancelled; what was finished is cached", file=sys.stderr)
        return EXIT_CANCELLED
    outcome = conclude(index, settings, report, record_in_catalog=not args.no_catalog)
    if args.format == "json":
        print_json(_json(index, outcome))
    else:
        _print_text(index, outcome)
    if report.problem:
        print(f"colosseum: Lean: {report.problem}", file=sys.stderr)
    if not args.quiet:
        files = report.units
        print(f"{len(outcome.results)} claim(s) with \\lean: {outcome.count('formal')} formal, "
              f"{outcome.count('statement')} with the statement only, {outcome.count('failed')} failed, "
              f"{outcome.count('unchecked')} unchecked; {len(files)} file(s): {report.count('checked')} checked by Lean, "
              f"{report.count('cached')} from the cache, {len(files) - report.count('checked') - report.count('cached')} "
              f"not checked; {report.seconds:.1f} s" + (f"; toolchain {report.toolchain}" if report.toolchain else ""),
              file=sys.stderr)
    if report.cancelled:
        return EXIT_CANCELLED
    return EXIT_FAILED if outcome.failed else EXIT_UNCHECKED if outcome.unchecked else 0


def _print_text(index, outcome) -> None:
    from colosseum.graph.export import diagnostics_text

    for r in outcome.results:
        print(f"{index.relative(r.claim.file)}:{r.claim.location.range.start.line + 1}: {r.id}: {r.status}"
              + ("" if r.marked_leanok else " (not marked \\leanok)"))
        for d in r.decls:
            print(f"    {d.status:9} {d.message}")
    inline = [d for d in outcome.diagnostics if d.code in ("colosseum/lean-inline", "colosseum/lean-unchecked")]
    if inline:
        print(diagnostics_text(index, inline))
    if outcome.recorded:
        print(f"formal evidence recorded in the catalog: {', '.join(outcome.recorded)}")


def _json(index, outcome) -> dict:
    from colosseum.graph.export import diagnostic_record

    report, results, graph = outcome.report, outcome.results, index.graph
    return {
        "lean_project": str(report.lean_project) if report.lean_project else None,
        "toolchain": report.toolchain or None,
        "problem": report.problem,
        "cancelled": report.cancelled,
        "seconds": round(report.seconds, 3),
        "files": [{"name": u.name, "kind": u.kind, "status": u.status, "seconds": round(u.seconds, 3),
                   "message": u.message} for u in report.units],
        "claims": [{"id": r.id, "kind": r.claim.kind, "file": index.relative(r.claim.file),
                    "line": r.claim.location.range.start.line + 1, "leanok": r.marked_leanok,
                    "leanok_statement": r.statement_marked, "leanok_proof": r.proof_marked, "status": r.status,
                    "dag_status": graph.status.get(r.id),
                    "declarations": [{"name": d.name, "status": d.status, "axioms": d.axioms, "message": d.message,
                                      "source": str(Path(d.source)) if d.source else None,
                                      "line": d.line + 1 if d.line is not None else None} for d in r.decls]}
                   for r in results],
        "diagnostics": [dict(diagnostic_record(index, d), source=d.source) for d in outcome.diagnostics],
        "catalog": outcome.recorded,
    }
