"""``colosseum research PATH --labels a,b``: several theorems through the research pipeline together
(colosseum.app.research_many), each in a run folder of its own with its own draft file; a line per
theorem at the end (status, calls, cost, run) and the totals. The exit code is the worst run's:
130 interrupted, 2 bad input, 1 not accepted, 0 every draft accepted."""

from __future__ import annotations

from colosseum.cli.terminal import price_phrase, print_cache_reuse, progress_for, say, show_batch_progress


def run_research_many(args, index) -> int:
    from colosseum.app.project import open_for_run
    from colosseum.app.research_many import many_research_summary, plan_research_many, start_many
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.solve_many import label_list
    from colosseum.app.stops import RunRefused, run_in_terminal
    from colosseum.models import ProviderError
    from colosseum.models.batching import batching_of

    refusal = _unsupported(args)
    if refusal:
        say(f"{refusal} (nothing was sent)")
        return 2
    overrides = RunOverrides(args.model, args.max_calls, not args.no_cache, trust=args.trust, batch=args.batch)
    try:
        targets = plan_research_many(index, label_list(args.labels), overrides, args.rounds,
                                     lambda: open_for_run(args.path, say))
    except RunRefused as exc:
        say(f"{exc} (nothing was sent)")
        return 2
    settings = targets[0].setup.settings
    if settings.batch_refusal():
        say(settings.batch_refusal())
        return 2
    if args.dry_run:
        _print_estimate(index, targets)
        return 0
    try:
        many = start_many(index, targets)
    except ProviderError as exc:
        say(exc.message)
        return 2
    progress = progress_for(args)
    show_batch_progress(many.provider, progress)
    outcomes = run_in_terminal(lambda: many.run(lambda event: progress.show(event.line())), many.stopped)
    progress.finish()
    for target, outcome in zip(targets, outcomes):
        _write(target, outcome)
    batching = batching_of(many.provider)
    summary = many_research_summary(outcomes, index.root_dir, len(batching.batches) if batching else None)
    _print_summary(summary)
    return summary["totals"]["exit_code"]


def _unsupported(args) -> str:
    """What --labels does not take (yet): one draft path, a second model, a run to resume."""
    for flag, value in (("--out", args.out), ("--select-with", args.select_with), ("--resume", args.resume)):
        if value:
            return f"--labels takes no {flag} (each theorem's draft goes beside its file; run it with --label)"
    return ""


def _write(target, outcome) -> None:
    from colosseum.app.research import write_draft_file

    result = outcome.result
    if result is None or not result.draft.strip():
        return
    written = write_draft_file(target.draft, result, target.out)
    if not written.written:
        say(f"{target.out} appeared meanwhile; {target.label}'s draft is only in its run directory")
    elif written.catalog_error:
        say(f"{target.label}: the catalog was not updated: {written.catalog_error}")


def _print_estimate(index, targets) -> None:
    from colosseum.app.research import estimate_research

    estimates = [estimate_research(index, target.setup, False) for target in targets]
    for target, estimate in zip(targets, estimates):
        print(f"{target.label}: about {estimate.plan['typical']} calls with no retry and one round, "
              f"up to about {estimate.plan['upper']}")
    costs = [estimate.upper_cost_usd for estimate in estimates]
    upper_cost = None if None in costs else sum(costs)
    settings = targets[0].setup.settings
    money = price_phrase(upper_cost, estimates[0].model, " for the typical runs", batch=settings.overrides.batch)
    print(f"total for {len(targets)} theorems: about {sum(e.plan['typical'] for e in estimates)} calls, up to about "
          f"{sum(e.plan['upper'] for e in estimates)}{money}. Nothing was sent.")
    if settings.batch_line():
        print(settings.batch_line() + " The theorems' stages go out together: one batch per stage for all.")
    print_cache_reuse(settings)


def _print_summary(summary: dict) -> None:
    """A line per theorem, status first, then the totals; each run's report has the strategy and reviews."""
    width = max(len(run["label"]) for run in summary["runs"])
    for run in summary["runs"]:
        cost = f"${run['cost_usd']:.2f}" if run["cost_usd"] is not None else "cost unknown"
        message = f" ({run['message']})" if run["message"] else ""
        print(f"{run['label']:{width}}  {run['status']:10}  {run['calls']:4} calls  {cost:>8}  "
              f"{run['run']}/report.md{message}")
    totals = summary["totals"]
    cost = f", about ${totals['cost_usd']:.2f}" if totals["cost_usd"] is not None else ""
    batches = f", {totals['batches']} batches" if totals["batches"] is not None else ""
    print(f"\ntotal: {totals['theorems']} theorems: {totals['accepted']} accepted; {totals['calls']} model "
          f"calls{cost}{batches}, {totals['response_cache_hits']} answers from the cache")
