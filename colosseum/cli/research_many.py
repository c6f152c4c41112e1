"""``colosseum research PATH --labels a,b``: several theorems through the research pipeline together
(colosseum.app.research_many), each in a run folder of its own with its own draft file; a line per
theorem at the end (status, calls, cost, run) and the totals (``--format json``: each run's object
in ``runs``, and ``totals``). The exit code is the worst run's:
130 interrupted, 2 bad input, 1 not accepted, 0 every draft accepted."""

from __future__ import annotations

from colosseum.cli.terminal import (price_phrase, print_cache_reuse, print_json, progress_for, say, say_stale_answers,
                                    show_batch_progress)


def run_research_many(args, index) -> int:
    from colosseum.app.project import open_for_run
    from colosseum.app.research import SecondModel
    from colosseum.app.research_many import ManyOptions, many_research_summary, plan_research_many, start_many
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.solve_many import label_list
    from colosseum.app.stops import RunRefused, run_in_terminal
    from colosseum.models import ProviderError

    refusal = _unsupported(args)
    if refusal:
        say(f"{refusal} (nothing was sent)")
        return 2
    overrides = RunOverrides(args.model, args.max_calls, not args.no_cache, trust=args.trust, batch=args.batch)
    options = ManyOptions(args.rounds, args.judges, args.threshold, tuple(label_list(args.resume or "")))
    try:
        targets = plan_research_many(index, label_list(args.labels), overrides, options,
                                     lambda: open_for_run(args.path, say))
    except RunRefused as exc:
        say(f"{exc} (nothing was sent)")
        return 2
    settings = targets[0].setup.settings
    if settings.batch_refusal():
        say(settings.batch_refusal())
        return 2
    if args.select_with and (args.judges or args.threshold) and not _selection_fits(args, index, overrides):
        return 2
    if args.dry_run:
        _print_estimate(index, targets, bool(args.select_with))
        return 0
    second = SecondModel(args.select_with, lambda: open_for_run(args.path, say)) if args.select_with else None
    try:
        many = start_many(index, targets, second)
    except ProviderError as exc:
        say(exc.message)
        return 2
    say_stale_answers(index.root_dir, args)
    progress = progress_for(args)
    for provider in (many.provider, many.second_provider):
        if provider is not None:
            show_batch_progress(provider, progress)
    outcomes = run_in_terminal(lambda: many.run(lambda event: progress.show(event.line())), many.stopped)
    progress.finish()
    drafts = {target.label: (target.out, _write(target, outcome)) for target, outcome in zip(targets, outcomes)}
    summary = many_research_summary(outcomes, index.root_dir, _batches(many), drafts)
    if args.format == "json":
        print_json(summary)
    else:
        _print_summary(summary)
    return summary["totals"]["exit_code"]


def _batches(many) -> int | None:
    """The batches sent for every theorem (model B's too); None without --batch."""
    from colosseum.models.batching import batching_of

    found = [batching_of(p) for p in (many.provider, many.second_provider) if p is not None]
    found = [b for b in found if b is not None]
    return sum(len(b.batches) for b in found) if found else None


def _selection_fits(args, index, overrides) -> bool:
    """The selection as every theorem will run it, compared as a single ``research`` compares it."""
    from colosseum.app.research import research_setup
    from colosseum.cli.research import selection_fits as fits

    return fits(args, research_setup(index, overrides))


def _unsupported(args) -> str:
    """What --labels does not take: one draft path for several drafts; a run of two models to resume
    (as with --label, a run with --select-with cannot be resumed yet)."""
    if args.out:
        return "--labels takes no --out (each theorem's draft goes beside its file; run it with --label)"
    if args.resume and args.select_with:
        return "--resume continues runs of one model; runs with --select-with cannot be resumed yet"
    return ""


def _write(target, outcome):
    """The theorem's draft file (a DraftWritten), or None when the run left no draft."""
    from colosseum.app.research import write_draft_file

    result = outcome.result
    if result is None or not result.draft.strip():
        return None
    written = write_draft_file(target.draft, result, target.out)
    if not written.written:
        say(f"{target.out} appeared meanwhile; {target.label}'s draft is only in its run directory")
    elif written.catalog_error:
        say(f"{target.label}: the catalog was not updated: {written.catalog_error}")
    return written


def _print_estimate(index, targets, with_selection: bool = False) -> None:
    from colosseum.app.research import estimate_research

    estimates = [estimate_research(index, target.setup, with_selection) for target in targets]
    for target, estimate in zip(targets, estimates):
        print(f"{target.label}: about {estimate.typical_calls} calls with no retry and one round, "
              f"up to about {estimate.plan['upper'] * estimate.runs}")
    costs = [estimate.upper_cost_usd for estimate in estimates]
    upper_cost = None if None in costs else sum(costs)
    settings = targets[0].setup.settings
    money = price_phrase(upper_cost, estimates[0].model, " for the typical runs", batch=settings.overrides.batch)
    print(f"total for {len(targets)} theorems: about {sum(e.typical_calls for e in estimates)} calls, up to about "
          f"{sum(e.plan['upper'] * e.runs for e in estimates)}{money}. Nothing was sent.")
    if settings.batch_line():
        print(settings.batch_line() + " The theorems' stages go out together: one batch per stage for all.")
    print_cache_reuse(settings)


def _print_summary(summary: dict) -> None:
    """A line per theorem, status first, then the totals; each run's report has the strategy and reviews."""
    width = max(len(run["label"]) for run in summary["runs"])
    for run in summary["runs"]:
        usage = run["usage"]
        cost = f"${usage['cost_usd']:.2f}" if usage["cost_usd"] is not None else "cost unknown"
        message = f" ({run['message']})" if run["message"] else ""
        print(f"{run['label']:{width}}  {run['status']:10}  {usage['calls']:4} calls  {cost:>8}  "
              f"{run['report']}{message}")
    totals = summary["totals"]
    cost = f", about ${totals['cost_usd']:.2f}" if totals["cost_usd"] is not None else ""
    batches = f", {totals['batches']} batches" if totals["batches"] is not None else ""
    print(f"\ntotal: {totals['theorems']} theorems: {totals['accepted']} accepted; {totals['calls']} model "
          f"calls{cost}{batches}, {totals['response_cache_hits']} answers from the cache")
