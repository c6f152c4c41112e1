"""``colosseum solve PATH --label LABEL [--dry-run] [--resume RUN]``: one obligation through the inner loop."""

from __future__ import annotations

import sys

from colosseum.cli.terminal import open_project, price_phrase, progress_bar, say


def add_arguments(sub) -> None:
    solve = sub.add_parser("solve", help="run the inner loop on one obligation")
    solve.add_argument("path", help="project directory or its root .tex file")
    solve.add_argument("--label", required=True, help="the claim to prove")
    solve.add_argument("--dry-run", action="store_true", help="say what it would cost, spend nothing")
    solve.add_argument("--model", help="model name (default: [models] model in colosseum.toml)")
    solve.add_argument("--max-calls", type=int, help="budget: refuse to start a run that needs more calls")
    solve.add_argument("--no-cache", action="store_true", help="ask the model even for answers already on disk")
    solve.add_argument("--resume", metavar="RUN", help="continue an abandoned, failed or incomplete run (its folder "
                       "name under .colosseum/runs/ or its path): calls answered before come from the cache")
    solve.set_defaults(run=run_solve)


def run_solve(args) -> int:
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.solve import plan_resume, plan_solve
    from colosseum.app.stops import RunRefused, run_in_terminal
    from colosseum.models import ProviderError

    index = open_project(args.path)
    if index is None:
        return 2
    for problem in index.config.problems:
        say(f"colosseum.toml: {problem.message} (the default is used)")
    try:
        overrides = RunOverrides(args.model, args.max_calls, not args.no_cache)
        plan = (plan_resume(index, args.label, args.resume, overrides) if args.resume
                else plan_solve(index, args.label, overrides))
    except RunRefused as exc:
        say(str(exc))
        return 2
    if args.dry_run:
        _print_estimate(args.label, plan)
        return 0
    try:
        run = plan.start(plan.formal_evidence())
    except ProviderError as exc:
        say(exc.message)
        return 2
    outcome = run_in_terminal(lambda: run.run(progress_bar), run.outcome)
    if outcome.stop is not None:
        return _stopped(outcome)
    print(file=sys.stderr)
    if outcome.dropped_note:
        say(outcome.dropped_note)
    _print_result(index, outcome, run.plan.settings.prices)
    return 0


def _print_estimate(label: str, plan) -> None:
    estimate = plan.estimate()
    money = price_phrase(estimate.upper_cost_usd, estimate.model)
    print(f"{label}: {estimate.calls_described}; about {estimate.input_tokens:,} input tokens before prompt "
          f"caching and up to ~{estimate.output_tokens:,} output tokens{money}. Nothing was sent.")


def _stopped(outcome) -> int:
    stop = outcome.stop
    if stop.kind == "budget-exceeded":  # the run never started: no progress line to end
        say(stop.detail)
    elif stop.cancelled:
        print(f"\ncolosseum: cancelled; what was done is in {outcome.directory}", file=sys.stderr)
        return 130
    elif stop.kind == "incomplete":
        print(f"\ncolosseum: incomplete: {stop.detail}; what was done is in {outcome.directory}", file=sys.stderr)
    elif stop.kind == "budget-reached":
        print(f"\ncolosseum: stopped at the budget ({outcome.config.max_calls} calls); what was done is in "
              f"{outcome.directory}", file=sys.stderr)
    else:
        print(f"\ncolosseum: the model could not be reached: {stop.detail}", file=sys.stderr)
    return 1


def _print_result(index, outcome, prices) -> None:
    from colosseum.models.pricing import cost_usd

    result = outcome.result
    print(result.root.candidate.proof)
    if outcome.curated:
        print(f"\nwritten to the catalog: {', '.join(outcome.curated)}")
    print(f"\n{len(result.surviving_critiques)} critique(s) survived:")
    for c in result.surviving_critiques:
        print(f"  {c.severity} {c.kind}: {c.explanation}")
    cost = cost_usd(result.usage, outcome.model, prices)
    spent = f", about ${cost:.2f}" if cost is not None else ""
    print(f"\n{result.usage.calls} model calls{spent}, {outcome.cache_hits} answers from the cache; run written to "
          f"{outcome.directory.relative_to(index.root_dir)}")
