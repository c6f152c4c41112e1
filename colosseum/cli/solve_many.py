"""``colosseum solve PATH --labels a,b,c`` (or ``--all-obligations``): several obligations through
the inner loop together (colosseum.app.solve_many), each in a run folder of its own; a line per
obligation at the end (verdict, calls, cost, run) and the totals. The exit code is the worst run's:
130 interrupted, 2 bad input, 1 incomplete, 3 refuted, 0 every one unrefuted."""

from __future__ import annotations

from colosseum.cli.terminal import price_phrase, print_cache_reuse, print_json, progress_for, say, show_batch_progress


def run_solve_many(args, index) -> int:
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.solve import EXIT_BAD_INPUT
    from colosseum.app.solve_many import label_list, many_summary, obligation_labels, plan_many
    from colosseum.app.stops import RunRefused, run_in_terminal
    from colosseum.models import ProviderError
    from colosseum.models.batching import batching_of

    labels = obligation_labels(index) if args.all_obligations else label_list(args.labels)
    overrides = RunOverrides(args.model, args.max_calls, not args.no_cache, trust=args.trust, batch=args.batch)
    try:
        plan = plan_many(index, labels, overrides, label_list(args.resume or ""))
    except RunRefused as exc:
        say(f"{exc} (nothing was sent)")
        return EXIT_BAD_INPUT
    if plan.settings.batch_refusal():
        say(plan.settings.batch_refusal())
        return EXIT_BAD_INPUT
    if args.dry_run:
        _print_estimate(plan)
        return 0
    try:
        many = plan.start()
    except ProviderError as exc:
        say(exc.message)
        return EXIT_BAD_INPUT
    first = plan.plans[0]
    if first.probe_tools is None and first.probes is not None and not args.quiet:
        say(f"refuters run no code: {first.probes.reason}")
    progress = progress_for(args)
    show_batch_progress(many.provider, progress)
    outcomes = run_in_terminal(lambda: many.run(progress), many.stopped)
    progress.finish()
    batching = batching_of(many.provider)
    summary = many_summary(outcomes, plan.plans, index.root_dir, len(batching.batches) if batching else None)
    if args.format == "json":
        print_json(summary)
    else:
        _print_summary(summary)
    return summary["totals"]["exit_code"]


def _print_estimate(plan) -> None:
    for each in plan.plans:
        estimate = each.estimate()
        print(f"{each.label}: {estimate.calls_described}")
    total = plan.estimate()
    money = price_phrase(total.upper_cost_usd, plan.plans[0].estimate().model, batch=plan.settings.overrides.batch)
    print(f"total for {len(plan.plans)} obligations: {total.calls} model calls planned, at most {total.maximum_calls}; "
          f"about {total.input_tokens:,} input tokens before prompt caching and up to ~{total.output_tokens:,} "
          f"output tokens{money}. Nothing was sent.")
    if plan.settings.batch_line():
        print(plan.settings.batch_line() + " The obligations' stages go out together: one batch per stage for all.")
    print_cache_reuse(plan.settings)


def _print_summary(summary: dict) -> None:
    """A line per obligation, verdict first, then the totals; each run's report has its proof."""
    width = max(len(run["label"]) for run in summary["runs"])
    for run in summary["runs"]:
        usage = run["usage"]
        cost = f"${usage['cost_usd']:.2f}" if usage["cost_usd"] is not None else "cost unknown"
        stopped = f" ({run['stopped']['kind']}: {run['stopped']['detail']})" if run["stopped"] else ""
        print(f"{run['label']:{width}}  {run['verdict']:10}  {usage['calls']:4} calls  {cost:>8}  "
              f"{run['run']}/report.md{stopped}")
    totals = summary["totals"]
    cost = f", about ${totals['cost_usd']:.2f}" if totals["cost_usd"] is not None else ""
    batches = f", {totals['batches']} batches" if totals["batches"] is not None else ""
    print(f"\ntotal: {totals['obligations']} obligations: {totals['unrefuted']} unrefuted, {totals['refuted']} "
          f"refuted, {totals['incomplete']} incomplete; {totals['calls']} model calls{cost}{batches}, "
          f"{totals['response_cache_hits']} answers from the cache")
