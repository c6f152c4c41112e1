"""``colosseum solve PATH --label LABEL [--format text|json] [--dry-run] [--resume RUN] [--batch]``: one obligation
through the inner loop (``--labels a,b,c`` or ``--all-obligations``: several together, cli/solve_many.py). The exit code is the verdict's (0 unrefuted, 3 refuted, 1 incomplete, 2 bad
input, 130 interrupted: app.solve.VERDICT_EXIT)."""

from __future__ import annotations

import sys
from pathlib import Path

from colosseum.cli.terminal import (add_batch_argument, add_quiet_argument, open_project, openable, price_phrase,
                                    print_cache_reuse, print_json, progress_for, say, say_stale_answers,
                                    show_batch_progress)


def add_arguments(sub) -> None:
    solve = sub.add_parser("solve", help="run the inner loop on one obligation (or several together)")
    solve.add_argument("path", help="project directory or its root .tex file")
    which = solve.add_mutually_exclusive_group(required=True)
    which.add_argument("--label", help="the claim to prove")
    which.add_argument("--labels", metavar="A,B,C",
                       help="several obligations solved together, each in a run of its own; with --batch each "
                       "stage of all of them is one batch; a summary at the end, the exit code the worst run's")
    which.add_argument("--all-obligations", action="store_true",
                       help="like --labels with every claim marked as an obligation (colosseum obligations)")
    solve.add_argument("--format", choices=("text", "json"), default="text",
                       help="json: one object with the verdict, the proof as it would be inserted, the surviving "
                       "critiques, the run's folder and its usage (several labels: those objects in `runs`, and "
                       "`totals`)")
    solve.add_argument("--dry-run", action="store_true", help="say what it would cost, spend nothing")
    solve.add_argument("--model", help="model name (default: [models] model in colosseum.toml)")
    solve.add_argument("--max-calls", type=int, help="budget: refuse to start a run that needs more calls")
    solve.add_argument("--no-cache", action="store_true", help="ask the model even for answers already on disk")
    solve.add_argument("--resume", metavar="RUN", help="continue an abandoned, failed or incomplete run (its folder "
                       "name under .colosseum/runs/ or its path): calls answered before come from the cache; with "
                       "--labels, RUN,RUN,...: each run goes on for the label it solved, the other labels start anew")
    solve.add_argument("--trust", action="store_true",
                       help="trust this project: the refuters may run Python in the sandbox to test the claim")
    add_batch_argument(solve)
    add_quiet_argument(solve)
    solve.set_defaults(run=run_solve)


def run_solve(args) -> int:
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.solve import EXIT_BAD_INPUT, plan_resume, plan_solve, solve_summary
    from colosseum.app.stops import RunRefused, run_in_terminal
    from colosseum.models import ProviderError

    index = open_project(args.path)
    if index is None:
        return EXIT_BAD_INPUT
    for problem in [] if args.quiet else index.config.problems:
        say(f"colosseum.toml: {problem.message} (the default is used)")
    if args.label is None:
        from colosseum.cli.solve_many import run_solve_many

        return run_solve_many(args, index)
    try:
        overrides = RunOverrides(args.model, args.max_calls, not args.no_cache, trust=args.trust, batch=args.batch)
        plan = (plan_resume(index, args.label, args.resume, overrides) if args.resume
                else plan_solve(index, args.label, overrides))
    except RunRefused as exc:
        say(str(exc))
        return EXIT_BAD_INPUT
    if plan.settings.batch_refusal():
        say(plan.settings.batch_refusal())
        return EXIT_BAD_INPUT
    if args.dry_run:
        _print_estimate(args.label, plan)
        return 0
    try:
        run = plan.start(plan.formal_evidence())
    except ProviderError as exc:
        say(exc.message)
        return EXIT_BAD_INPUT
    if plan.probe_tools is None and plan.probes is not None and not args.quiet:
        say(f"refuters run no code: {plan.probes.reason}")  # once per run; the run's record says it too
    say_stale_answers(index.root_dir, args)
    progress = progress_for(args)
    show_batch_progress(run.provider, progress)
    outcome = run_in_terminal(lambda: run.run(progress), run.outcome)
    progress.finish()
    if outcome.stop is not None:
        _stopped(outcome)
    elif not args.quiet:
        if outcome.dropped_note:
            say(outcome.dropped_note)
    summary = solve_summary(outcome, index.root_dir, run.plan.settings.prices, plan.context.computation)
    if args.format == "json":
        print_json(summary)
    else:
        _print_result(outcome, summary, plan.context.computation, index.root_dir)
    return outcome.exit_code


def _print_estimate(label: str, plan) -> None:
    estimate = plan.estimate()
    money = price_phrase(estimate.upper_cost_usd, estimate.model, batch=plan.settings.overrides.batch)
    print(f"{label}: {estimate.calls_described}; about {estimate.input_tokens:,} input tokens before prompt "
          f"caching and up to ~{estimate.output_tokens:,} output tokens{money}. Nothing was sent.")
    if plan.settings.batch_line():
        print(plan.settings.batch_line())
    print_cache_reuse(plan.settings)



def _stopped(outcome) -> None:
    """Says on stderr why the run stopped (its exit code is the outcome's)."""
    stop = outcome.stop
    if stop.kind == "budget-exceeded":  # the run never started: no progress line to end
        say(stop.detail)
    elif stop.cancelled:
        print(f"colosseum: cancelled; what was done is in {outcome.directory}", file=sys.stderr)
    elif stop.kind == "incomplete":
        print(f"colosseum: incomplete: {stop.detail}; what was done is in {outcome.directory}", file=sys.stderr)
    elif stop.kind == "budget-reached":
        print(f"colosseum: stopped at the budget ({outcome.config.max_calls} calls); what was done is in "
              f"{outcome.directory}", file=sys.stderr)
    elif stop.kind == "refused":
        say(stop.detail)
    else:
        print(f"colosseum: the model could not be reached: {stop.detail}", file=sys.stderr)


def _print_result(outcome, summary: dict, computation=(), root_dir=".") -> None:
    """The text output says what the JSON says, the verdict first."""
    if summary["proof"] is None:  # stopped: stderr said why
        print(f"verdict: incomplete ({summary['stopped']['kind']}); what was done is in "
              f"{openable(Path(root_dir) / summary['run'])}")
        return
    blocking = sum(1 for c in summary["critiques"] if c["severity"] in ("fatal", "major"))
    why = (f"{blocking} fatal or major critique(s) survived the final check" if summary["verdict"] == "refuted"
           else "no fatal or major critique survived the final check")
    print(f"verdict: {summary['verdict']} ({why})\n")
    print(summary["proof"])
    if outcome.curated:
        print(f"\nwritten to the catalog: {', '.join(outcome.curated)}")
    print_computation(computation)
    print(f"\n{len(summary['critiques'])} critique(s) survived:")
    for c in summary["critiques"]:
        where = "" if c["anchored"] else " (unanchored)"
        print(f"  {c['severity']} {c['kind']}{where}: \"{c['quote']}\" {c['text']}")
    usage = summary["usage"]
    spent = f", about ${usage['cost_usd']:.2f}" if usage["cost_usd"] is not None else ""
    print(f"\n{usage['calls']} model calls{spent}, {usage['response_cache_hits']} answers from the cache; "
          f"run written to {openable(Path(root_dir) / summary['run'])}")


def print_computation(items) -> None:
    """The catalog's computations on the claim (colosseum.catalog.evidence items), in a section of
    their own: small cases checked, never a proof (nothing when no probe checked the claim)."""
    if not items:
        return
    from colosseum.catalog.evidence import computation_line

    print("\nComputation (not a proof):")
    for item in items:
        print(f"  {computation_line(item)}")
