"""``colosseum review PATH [--format json] [--label LABEL | --labels A,B,C] [--reviewers N] [--model M]
[--max-calls N] [--dry-run] [--no-cache] [--batch]``: the global review of a document, or with ``--label``
the local review of one claim or section (``--labels``: of several, in one run: one budget, and
with ``--batch`` one batch; exit 3 when any failed).

Exit codes: 0 accepted or revise (local: passed), 3 rejected (local: failed), 1 the review could
not run (model unreachable, budget), 2 bad input (a claim with no proof: nothing to review, no
call), 130 cancelled."""

from __future__ import annotations

import sys

from colosseum.cli.terminal import (add_batch_argument, add_quiet_argument, open_project, openable, price_phrase,
                                    print_cache_reuse, print_json, progress_for, say, say_stale_answers,
                                    show_batch_progress)
from colosseum.core.paths import STATE_DIR_NAME

EXIT_REJECTED = 3


def add_arguments(sub) -> None:
    review = sub.add_parser("review", help="review the whole document as one argument (or one claim with --label)")
    review.add_argument("path", help="project directory or its root .tex file")
    review.add_argument("--format", choices=("text", "json"), default="text")
    which = review.add_mutually_exclusive_group()
    which.add_argument("--label", help="review only this claim or section (a local review, incremental)")
    which.add_argument("--labels", metavar="A,B,C",
                       help="local reviews of several claims or sections together (one budget; with --batch one "
                       "batch for all); a line per label, the exit code 3 when any failed")
    review.add_argument("--reviewers", type=int, help="independent reviewers (default: [review] reviewers, or 3)")
    review.add_argument("--model", help="model name (default: [models] model in colosseum.toml)")
    review.add_argument("--max-calls", type=int, help="budget: refuse to start a review that needs more calls")
    review.add_argument("--dry-run", action="store_true",
                        help="count the document's tokens and say what the review would cost; no model call "
                             "(without an API key: a character-based estimate, labelled so)")
    review.add_argument("--no-cache", action="store_true",
                        help="ask the model even for answers already on disk: the response cache is not used, and "
                             f"with --label the local-review cache ({STATE_DIR_NAME}/reviews/local) is not read (the new "
                             "review is stored there)")
    add_batch_argument(review)
    add_quiet_argument(review)
    review.set_defaults(run=run_review)


def run_review(args) -> int:
    from colosseum.app.review import refusal, review_setup
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.stops import run_in_terminal

    index = open_project(args.path)  # Lean-checked claims are formal for the reviewers
    if index is None:
        return 2
    for problem in [] if args.quiet else index.config.problems:
        say(f"colosseum.toml: {problem.message} (the default is used)")
    if args.reviewers is not None and args.reviewers < 1:
        say("--reviewers must be at least 1")
        return 2
    overrides = RunOverrides(args.model, args.max_calls, not args.no_cache, batch=args.batch)
    setup = review_setup(index, overrides, args.reviewers)
    if setup.settings.batch_refusal():
        say(setup.settings.batch_refusal())
        return 2
    for problem in [] if args.quiet else setup.problems:
        say(f"colosseum.toml: {problem} (the default is used)")
    labels = _labels(args)
    if args.labels is not None and not labels:
        say("--labels names no claim or section (no model call was made)")
        return 2
    for label in labels:
        refused = refusal(index, label)
        if refused is not None:
            say(refused.message + (" (no model call was made)" if refused.no_proof else ""))
            return 2
    provider_and_model = _provider(setup, args)
    if provider_and_model is None:
        return 2
    run = _dry_run if args.dry_run else _local_many if args.labels is not None else _local if args.label else _global
    if not args.dry_run:
        say_stale_answers(index.root_dir, args)
    progress = progress_for(args)
    show_batch_progress(provider_and_model[0], progress)
    try:
        return run_in_terminal(lambda: run(index, *provider_and_model, setup, args, progress),
                               lambda stop: _stopped(stop, setup, progress))
    finally:
        progress.finish()


def _provider(setup, args) -> tuple | None:
    """(provider, model); a dry run needs no key: without the API's counter the size is estimated
    from characters (the provider is then None). None once it said why there is no provider."""
    from colosseum.models import ProviderError

    from colosseum.core.paths import reviews_dir

    try:
        # --batch keeps its batch ids beside the reviews: a review stopped while its batch ran fetches
        # that batch when it is asked again (the same requests have the same custom ids)
        return setup.settings.provider(run_dir=reviews_dir(setup.settings.root_dir))
    except ProviderError as exc:
        if not args.dry_run:
            say(exc.message)
            return None
        say(f"{exc.message}; the dry run estimates from characters instead")
        return None, setup.settings.model_name()


def _stopped(stop, setup, progress) -> int:
    """A run that stopped: cancelled, the budget, or the model unreachable."""
    progress.finish()
    if stop.cancelled:
        say("cancelled")
        return 130
    if stop.kind == "budget-reached":
        say(f"stopped at the budget ({setup.config.max_calls} calls)")
    elif stop.kind == "model-unreachable":
        say(f"the model could not be reached: {stop.detail}")
    else:
        say("" + stop.detail)
    return 1


def _labels(args) -> list[str]:
    """The labels of the local reviews asked for (none for a global review)."""
    if args.labels is not None:
        from colosseum.app.solve_many import label_list

        return label_list(args.labels)
    return [args.label] if args.label else []


async def _dry_run(index, provider, model, setup, args, progress) -> int:
    from colosseum.app.review import estimate_global_review

    if args.labels is not None:
        from colosseum.app.review import local_reviewer

        labels = _labels(args)
        reviewer = local_reviewer(index.root_dir, provider, setup.config, refresh=args.no_cache)
        fresh = sum(1 for label in labels if args.no_cache or reviewer.needs_call(index, label))
        print(f"{len(labels)} local reviews: {fresh} model call(s), the others unchanged since their last review "
              "(no call). Nothing was sent.")
        if setup.settings.batch_line():
            print(setup.settings.batch_line())
        print_cache_reuse(setup.settings)
        return 0
    if args.label:
        print(f"{args.label}: 1 model call for a local review (none if it is unchanged since the last one). "
              "Nothing was sent.")
        print_cache_reuse(setup.settings)
        return 0
    estimate = await estimate_global_review(index, provider, model, setup.config, setup.settings.prices)
    money = price_phrase(estimate.upper_cost_usd, model, batch=setup.settings.overrides.batch)
    print(f"global review: the document is {estimate.tokens:,} tokens ({estimate.measured_by}), {estimate.note}; "
          f"about {estimate.calls} model calls ({setup.config.reviewers} reviewers){money}. No model call was made.")
    if setup.settings.batch_line():
        print(setup.settings.batch_line())
    print_cache_reuse(setup.settings)
    return 0



async def _global(index, provider, model, setup, args, progress) -> int:
    from colosseum.app.review import review_globally

    prices = setup.settings.prices
    outcome = await review_globally(index, provider, setup.config, progress, prices)
    if outcome.stop is not None:
        return _stopped(outcome.stop, setup, progress)
    report, path = outcome.report, outcome.path
    progress.finish()
    if args.format == "json":
        from colosseum.loops.review.report import report_json

        print_json(report_json(report, index.root_dir, prices))
    else:
        print(f"verdict: {report.verdict}")
        for reason in report.reasons:
            print(f"  {reason}")
        active = [c for c in report.critiques if c.active]
        print(f"\n{len(active)} critique(s), {sum(1 for c in active if not c.anchored)} unanchored:")
        for c in active:
            where = f"{index.relative(c.file)}:{c.line}" if c.anchored else "(unanchored)"
            print(f"  {where}: {c.severity} {c.kind}: {c.message}")
        _print_computation(outcome.computation or {})
    if not args.quiet:
        print(_cost_line(report.usage, report.cache_hits, report.token_counts, report.model, prices)
              + f"; report in {openable(path)}", file=sys.stderr)
    return EXIT_REJECTED if report.verdict == "rejected" else 0


async def _local(index, provider, model, setup, args, progress) -> int:
    from colosseum.app.review import local_reviewer, review_claim
    from colosseum.loops.review.report import critique_json

    reviewer = local_reviewer(index.root_dir, provider, setup.config, refresh=args.no_cache)
    outcome = await review_claim(reviewer, index, args.label, progress)
    if outcome.stop is not None:
        return _stopped(outcome.stop, setup, progress)
    review = outcome.review
    progress.finish()
    active = [c for c in review.critiques if c.active]
    hits = getattr(provider, "hits", 0)
    if args.format == "json":
        print_json({"label": review.label, "verdict": review.verdict, "cached": review.cached,
                    "reasons": review.reasons, "critiques": [critique_json(c, index.root_dir) for c in active],
                    "usage": {"calls": review.usage.calls, "input_tokens": review.usage.input_tokens,
                              "output_tokens": review.usage.output_tokens, "response_cache_hits": hits}})
    else:
        print(f"{review.label}: {review.verdict}" + (" (unchanged since the last review: no call)" if review.cached else ""))
        for reason in review.reasons:
            print(f"  {reason}")
        for c in active:
            where = f"{index.relative(c.file)}:{c.line}" if c.file is not None else "(unanchored)"
            print(f"  {where}: {c.severity} {c.kind}: {c.message}")
    if not args.quiet:
        print(_cost_line(review.usage, hits, 0, review.model, setup.settings.prices), file=sys.stderr)
    return 0 if review.passed else EXIT_REJECTED


async def _local_many(index, provider, model, setup, args, progress) -> int:
    """Local reviews of several labels in one run (one budget, and with --batch one batch)."""
    from colosseum.app.review import local_reviewer, review_many
    from colosseum.loops.review.report import critique_json

    reviewer = local_reviewer(index.root_dir, provider, setup.config, refresh=args.no_cache)
    outcome = await review_many(reviewer, index, _labels(args), progress)
    if outcome.stop is not None:
        return _stopped(outcome.stop, setup, progress)
    progress.finish()
    reviews, hits = outcome.reviews, getattr(provider, "hits", 0)
    failed = sum(1 for review in reviews if not review.passed)
    calls = sum(review.usage.calls for review in reviews)
    if args.format == "json":
        print_json({"reviews": [{"label": r.label, "verdict": r.verdict, "cached": r.cached, "reasons": r.reasons,
                                 "critiques": [critique_json(c, index.root_dir) for c in r.critiques if c.active],
                                 "usage": {"calls": r.usage.calls, "input_tokens": r.usage.input_tokens,
                                           "output_tokens": r.usage.output_tokens}} for r in reviews],
                    "totals": {"reviews": len(reviews), "passed": len(reviews) - failed, "failed": failed,
                               "calls": calls, "response_cache_hits": hits}})
    else:
        width = max(len(review.label) for review in reviews)
        for review in reviews:
            note = "  (unchanged since the last review: no call)" if review.cached else ""
            active = sum(1 for c in review.critiques if c.active)
            print(f"{review.label:{width}}  {review.verdict:6}  {active} critique(s){note}")
        print(f"\ntotal: {len(reviews)} reviews: {len(reviews) - failed} passed, {failed} failed")
    if not args.quiet:
        print(_cost_line(reviewer.usage, hits, 0, reviewer.model, setup.settings.prices), file=sys.stderr)
    return EXIT_REJECTED if failed else 0


def _cost_line(usage, hits: int, counts: int, model: str, prices) -> str:
    from colosseum.models.pricing import cost_usd

    cost = cost_usd(usage, model, prices)
    money = f", about ${cost:.2f}" if cost is not None else f", cost unknown (no price for {model})"
    return (f"{usage.calls} model calls, {usage.input_tokens:,} input tokens ({usage.cache_read_tokens:,} from the "
            f"prompt cache), {usage.output_tokens:,} output tokens, {hits} answers from the response cache, "
            f"{counts} token counts{money}")


def _print_computation(by_label: dict) -> None:
    """What probes found on the paper's claims, apart from the review (nothing when none ran)."""
    if not by_label:
        return
    from colosseum.catalog.evidence import computation_line

    print("\nComputation (not a proof):")
    for label, items in sorted(by_label.items()):
        for item in items:
            print(f"  {label}: {computation_line(item)}")
