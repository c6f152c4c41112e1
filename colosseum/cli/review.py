"""``colosseum review PATH [--format json] [--label LABEL] [--reviewers N] [--model M]
[--max-calls N] [--dry-run] [--no-cache]``: the global review of a document, or with ``--label``
the local review of one claim or section.

Exit codes: 0 accepted or revise (local: passed), 3 rejected (local: failed), 1 the review could
not run (model unreachable, budget), 2 bad input (a claim with no proof: nothing to review, no
call), 130 cancelled."""

from __future__ import annotations

import json
import sys

EXIT_REJECTED = 3


def add_arguments(sub) -> None:
    review = sub.add_parser("review", help="review the whole document as one argument (or one claim with --label)")
    review.add_argument("path", help="project directory or its root .tex file")
    review.add_argument("--format", choices=("text", "json"), default="text")
    review.add_argument("--label", help="review only this claim or section (a local review, incremental)")
    review.add_argument("--reviewers", type=int, help="independent reviewers (default: [review] reviewers, or 3)")
    review.add_argument("--model", help="model name (default: [models] model in colosseum.toml)")
    review.add_argument("--max-calls", type=int, help="budget: refuse to start a review that needs more calls")
    review.add_argument("--dry-run", action="store_true",
                        help="count the document's tokens and say what the review would cost; no model call "
                             "(without an API key: a character-based estimate, labelled so)")
    review.add_argument("--no-cache", action="store_true",
                        help="ask the model even for answers already on disk: the response cache is not used, and "
                             "with --label the local-review cache (.colosseum/reviews/local) is not read (the new "
                             "review is stored there)")
    review.set_defaults(run=run_review)


def _say(message: str) -> None:
    print(f"colosseum: {message}", file=sys.stderr)


def _progress(stage: str, done: int, total: int) -> None:
    width = 24
    filled = width * done // max(1, total)
    print(f"\r{stage:28} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end="", file=sys.stderr, flush=True)


def _cost_line(usage, hits: int, counts: int, model: str, prices) -> str:
    from colosseum.models.pricing import cost_usd

    cost = cost_usd(usage, model, prices)
    money = f", about ${cost:.2f}" if cost is not None else f", cost unknown (no price for {model})"
    return (f"{usage.calls} model calls, {usage.input_tokens:,} input tokens ({usage.cache_read_tokens:,} from the "
            f"prompt cache), {usage.output_tokens:,} output tokens, {hits} answers from the response cache, "
            f"{counts} token counts{money}")


def run_review(args) -> int:
    import asyncio

    from colosseum.settings.project import valid_table
    from colosseum.models import ProviderError
    from colosseum.loops.review.settings import review_config
    from colosseum.cli.solve import open_for_run

    index = open_for_run(args.path)  # Lean-checked claims are formal for the reviewers
    if index is None:
        return 2
    for problem in index.config.problems:
        _say(f"colosseum.toml: {problem.message} (the default is used)")
    if args.reviewers is not None and args.reviewers < 1:
        _say("--reviewers must be at least 1")
        return 2
    config, problems = review_config(index.config, args.max_calls, args.reviewers, args.model)
    for problem in problems:
        _say(f"colosseum.toml: {problem} (the default is used)")
    if args.label and args.label not in index.claims and args.label not in index.sections:
        _say(f"no claim or section `{args.label}` in the project")
        return 2
    if args.label:
        from colosseum.loops.review.local_review import material

        if not material(index, args.label).proof.strip():
            _say(f"nothing to review: `{args.label}` has no proof (no model call was made)")
            return 2
    models = valid_table(index.config, "models")
    from colosseum.models.configured import configured_provider

    try:
        provider, model = configured_provider(models, None if args.no_cache else index.root_dir / ".colosseum" / "cache",
                                              args.model)
    except ProviderError as exc:
        if not args.dry_run:
            _say(exc.message)
            return 2
        # a dry run needs no key: without the API's counter the size is estimated from characters
        provider, model = None, args.model or models.get("model") or _default_model()
        _say(f"{exc.message}; the dry run estimates from characters instead")
    try:
        if args.dry_run:
            return asyncio.run(_dry_run(index, provider, model, config, models.get("prices"), args))
        if args.label:
            return asyncio.run(_local(index, provider, model, config, models.get("prices"), args))
        return asyncio.run(_global(index, provider, model, config, models.get("prices"), args))
    except KeyboardInterrupt:
        _say("\ncancelled")
        return 130
    except Exception as exc:  # noqa: BLE001 - every failure of a run becomes one clear line
        return _failure(exc, config)


def _default_model() -> str:
    from colosseum.models.anthropic_provider import DEFAULT_MODEL

    return DEFAULT_MODEL


def _failure(exc: BaseException, config) -> int:
    """A run that stopped: the budget, or the model unreachable; anything else is a bug and raises."""
    from colosseum.core.exception_groups import first_leaf
    from colosseum.models.errors import BudgetExceeded, BudgetReached
    from colosseum.models import ProviderError

    exceeded = first_leaf(exc, BudgetExceeded)
    if exceeded is not None:
        _say("\n" + str(exceeded))
        return 1
    if first_leaf(exc, BudgetReached) is not None:
        _say(f"\nstopped at the budget ({config.max_calls} calls)")
        return 1
    failure = first_leaf(exc, ProviderError)
    if failure is not None:
        _say(f"\nthe model could not be reached: {failure}")
        return 1
    raise exc


async def _dry_run(index, provider, model, config, prices, args) -> int:
    from colosseum.models.pricing import cost_usd
    from colosseum.models.provider import Usage
    from colosseum.loops.review.anchoring import document_text
    from colosseum.loops.review.global_review import NO_RELIED_ON, WHOLE_SCOPE, _reviewer_values, reviewer_step

    if args.label:
        print(f"{args.label}: 1 model call for a local review (none if it is unchanged since the last one). "
              "Nothing was sent.")
        return 0
    values = _reviewer_values(config, 0, WHOLE_SCOPE, document_text(index).render_all(), NO_RELIED_ON)
    if provider is None:
        tokens = _estimated_tokens("global_reviewer", values)
        how = "a character-based estimate, one token per four characters: no API key, so the API's counter was not asked"
    else:
        tokens = await reviewer_step(provider, config).count("global_reviewer", values)
        how = "counted by the API's token counter" if getattr(provider, "exact_token_counts", False) else \
            "an estimate: this provider has no counter API"
    budget = config.part_budget()
    if tokens <= budget:
        planned, note = config.reviewers, "read in one request"
    else:
        parts = -(-tokens // budget) + 1  # the cut is along sections, so about one part more
        planned, note = config.reviewers * (parts + 1), f"too long for one request: about {parts} parts and a synthesis"
    upper = cost_usd(Usage(input_tokens=planned * min(tokens, budget), output_tokens=planned * config.output_tokens),
                     model, prices)
    money = (f"; at most about ${upper:.2f} at {model}'s list price (less with prompt caching)"
             if upper is not None else f"; no price known for {model} (set [models] prices)")
    print(f"global review: the document is {tokens:,} tokens ({how}), {note}; about {planned} model calls "
          f"({config.reviewers} reviewers){money}. No model call was made.")
    return 0


def _estimated_tokens(role: str, values: dict) -> int:
    from colosseum.models.prompts import load_prompt

    system, user = load_prompt(role).render(values)
    return (len(system) + len(user)) // 4 + 1


async def _global(index, provider, model, config, prices, args) -> int:
    from colosseum.loops.review import review_document, write_report

    report = await review_document(index, provider, config, _progress)
    print(file=sys.stderr)
    path = write_report(report, index, prices=prices)
    if args.format == "json":
        from colosseum.loops.review.report import report_json

        print(json.dumps(report_json(report, index.root_dir, prices), indent=2, ensure_ascii=False))
    else:
        print(f"verdict: {report.verdict}")
        for reason in report.reasons:
            print(f"  {reason}")
        active = [c for c in report.critiques if c.active]
        print(f"\n{len(active)} critique(s), {sum(1 for c in active if not c.anchored)} unanchored:")
        for c in active:
            where = f"{index.relative(c.file)}:{c.line}" if c.anchored else "(unanchored)"
            print(f"  {where}: {c.severity} {c.kind}: {c.message}")
    print(_cost_line(report.usage, report.cache_hits, report.token_counts, report.model, prices)
          + f"; report in {index.relative(path)}", file=sys.stderr)
    return EXIT_REJECTED if report.verdict == "rejected" else 0


async def _local(index, provider, model, config, prices, args) -> int:
    from colosseum.loops.review import LocalReviewCache, LocalReviewer
    from colosseum.loops.review.report import critique_json
    from colosseum.loops.review.storage import reviews_directory

    cache = LocalReviewCache(reviews_directory(index.root_dir) / "local", refresh=args.no_cache)
    reviewer = LocalReviewer(provider, cache, config)
    review = await reviewer.review(index, args.label, progress=_progress)
    print(file=sys.stderr)
    active = [c for c in review.critiques if c.active]
    if args.format == "json":
        print(json.dumps({"label": review.label, "verdict": review.verdict, "cached": review.cached,
                          "reasons": review.reasons, "critiques": [critique_json(c, index.root_dir) for c in active],
                          "usage": {"calls": review.usage.calls, "input_tokens": review.usage.input_tokens,
                                    "output_tokens": review.usage.output_tokens,
                                    "response_cache_hits": getattr(provider, "hits", 0)}}, indent=2, ensure_ascii=False))
    else:
        print(f"{review.label}: {review.verdict}" + (" (unchanged since the last review: no call)" if review.cached else ""))
        for reason in review.reasons:
            print(f"  {reason}")
        for c in active:
            where = f"{index.relative(c.file)}:{c.line}" if c.file is not None else "(unanchored)"
            print(f"  {where}: {c.severity} {c.kind}: {c.message}")
    print(_cost_line(review.usage, getattr(provider, "hits", 0), 0, review.model, prices), file=sys.stderr)
    return 0 if review.passed else EXIT_REJECTED
