"""``colosseum probe PATH --label L``: the prober alone on one claim, testing it on small cases with
Python run in the sandbox (colosseum.app.probe).

Exit codes: 0 consistent (the cases checked agree); 3 a counterexample; 1 inconclusive, or the
probe could not run (bubblewrap unavailable, no model provider, the call failed); 2 bad input (no
project, no such claim) or a folder not trusted (the probe runs code the model wrote, with the
project's settings, so it asks for the author's trust first, as Lean does)."""

from __future__ import annotations

import sys

from colosseum.cli.terminal import print_json

EXIT_CONSISTENT, EXIT_INCOMPLETE, EXIT_USAGE, EXIT_COUNTEREXAMPLE = 0, 1, 2, 3
EXIT_OF_VERDICT = {"consistent": EXIT_CONSISTENT, "counterexample": EXIT_COUNTEREXAMPLE,
                   "inconclusive": EXIT_INCOMPLETE}


def add_arguments(sub) -> None:
    probe = sub.add_parser("probe", help="test a claim on small cases with Python run in a sandbox")
    probe.add_argument("path", help="project directory or its root .tex file")
    probe.add_argument("--label", required=True, help="the claim's label")
    probe.add_argument("--format", choices=("text", "json"), default="text")
    probe.add_argument("--dry-run", action="store_true", help="say what would run; no model call, no execution")
    probe.add_argument("--trust", action="store_true", help="trust this project to run probes")
    probe.add_argument("--no-cache", action="store_true", help="ask the model again even when its answers, and the "
                       "runs they asked for, are on disk")
    probe.add_argument("--no-catalog", action="store_true",
                       help="do not record the verdict (consistent, or a counterexample) as computation evidence "
                       "in the catalog")
    probe.set_defaults(run=run_probe_command)


def _fail(message: str, code: int) -> int:
    print(f"colosseum: {message}", file=sys.stderr)
    return code


def run_probe_command(args) -> int:
    from colosseum.app.probe import plan_lines, probe_setup
    from colosseum.app.project import ProjectNotOpened, open_plain
    from colosseum.app.refusals import RunRefused
    from colosseum.probe import probe_trust

    try:
        index = open_plain(args.path)
        setup = probe_setup(index, args.label)
    except (ProjectNotOpened, RunRefused) as exc:
        return _fail(str(exc), EXIT_USAGE)
    trust = probe_trust(index.root_dir, flag=args.trust)
    if args.dry_run:  # runs no code: it says what a run would do, and that an untrusted one would not start
        print("\n".join(plan_lines(setup)))
        if not trust:
            print(f"a run would not start: {trust.reason}")
        return EXIT_CONSISTENT
    if not trust:
        return _fail(trust.reason, EXIT_USAGE)
    if not setup.runnable:
        return _fail(setup.sandbox, EXIT_INCOMPLETE)
    return _run(args, setup)


def _run(args, setup) -> int:
    import asyncio

    from colosseum.app.probe import run_probe
    from colosseum.app.run_settings import RunOverrides, RunSettings
    from colosseum.models.provider import ProviderError

    # through the answer cache as every model command: a rerun replays the answers and the runs' outputs
    # they were given, and the sandbox runs nothing (--no-cache asks and runs again)
    settings = RunSettings.of(setup.index, RunOverrides(use_cache=not args.no_cache))
    try:
        provider, model = settings.provider()
    except ProviderError as exc:
        return _fail(str(exc), EXIT_INCOMPLETE)
    outcome = asyncio.run(run_probe(setup, provider, model, record_in_catalog=not args.no_catalog))
    if args.format == "json":
        print_json({"label": setup.label, "verdict": outcome.verdict, "answer": outcome.answer,
                    "executions": len(outcome.executions), "requests": outcome.requests,
                    "failure": outcome.failure or None, "run": str(outcome.folder),
                    "catalog_entry": outcome.catalog_entry})
    else:
        _print_text(setup, outcome)
    return EXIT_OF_VERDICT[outcome.verdict]


def _print_text(setup, outcome) -> None:
    answer = outcome.answer
    print(f"{setup.label}: {outcome.verdict} ({len(outcome.executions)} run(s), {outcome.requests} request(s))")
    if outcome.failure:
        print(f"  the call failed: {outcome.failure}")
    if answer.get("range"):
        print(f"  checked: {answer['range']} ({answer.get('cases_checked', 0)} case(s))")
    if outcome.verdict == "counterexample":
        print(f"  counterexample: {answer.get('counterexample', {}).get('case', '')}")
    if answer.get("explanation"):
        print(f"  {answer['explanation']}")
    if outcome.catalog_entry:
        print(f"  written to the catalog: {outcome.catalog_entry} (computation evidence, not a proof)")
    print(f"  run: {outcome.folder}")
