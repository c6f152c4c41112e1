"""``colosseum research PATH --label LABEL``: the research pipeline on a theorem with no proof
yet, from strategy cards to a reviewed draft, written as a NEW file (never over the author's
files; an existing file is refused). ``--select-with MODEL_B`` runs the pipeline with both
models and submits by cross-model selection.

Exit status: 0 when the draft was accepted by the global review, 1 when the run ended otherwise
(not ready, incomplete, revise or rejected at the round limit, budget), 2 for bad input, 130
when interrupted."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from colosseum.cli.terminal import open_project, say
from colosseum.core.paths import STATE_DIR_NAME


def _at_least_one(text: str) -> int:
    """An argparse type: a whole number of at least 1 (0 rounds or 0 judges is no run at all)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_arguments(sub) -> None:
    research = sub.add_parser("research", help="explore strategies, cut a skeleton, solve and review it")
    research.add_argument("path", help="project directory or its root .tex file")
    research.add_argument("--label", required=True, help="the theorem to prove (a claim with no proof yet)")
    research.add_argument("--out", help="where to write the draft (a new file; default <file>-<label>-skeleton.tex "
                                        "beside the theorem's file)")
    research.add_argument("--select-with", metavar="MODEL_B",
                          help="also run the pipeline with MODEL_B; B judges A's proof (--judges times) and A is "
                               "submitted if at least --threshold judges find it correct, else B")
    research.add_argument("--judges", type=_at_least_one,
                          help="cross-model selection: how many judgements (default [research] judges, or 8)")
    research.add_argument("--threshold", type=_at_least_one, help="cross-model selection: how many must say "
                                                                  "correct (default [research] select_threshold, or 5)")
    research.add_argument("--rounds", type=_at_least_one, help="global reviews at most (default 3)")
    research.add_argument("--max-calls", type=_at_least_one,
                          help="budget for the whole run, both models and the judges")
    research.add_argument("--dry-run", action="store_true", help="say what it would cost, spend nothing")
    research.add_argument("--model", help="model A (default: [models] model in colosseum.toml)")
    research.add_argument("--no-cache", action="store_true", help="ask the model even for answers already on disk")
    research.set_defaults(run=run_research_command)


class _Line:
    """One progress line on stderr, rewritten in place."""

    def __init__(self):
        self.width = 0

    def __call__(self, event) -> None:
        text = event.line()[:160]
        print("\r" + text.ljust(self.width), end="", file=sys.stderr, flush=True)
        self.width = len(text)


def run_research_command(args) -> int:
    import asyncio  # here, not at the top: building the parser must not load the engine

    from colosseum.app.research import default_output, research_setup
    from colosseum.app.run_settings import RunOverrides
    from colosseum.loops.research.draft import DraftDocument, DraftError

    index = open_project(args.path)
    if index is None:
        return 2
    try:
        draft = DraftDocument(index, args.label)
    except DraftError as exc:
        say(str(exc))
        return 2
    overrides = RunOverrides(args.model, args.max_calls, not args.no_cache)
    if args.select_with and (args.judges or args.threshold) and not _selection_fits(args, research_setup(index, overrides)):
        return 2
    setup = research_setup(index, overrides, args.rounds, args.judges, args.threshold)
    for problem in setup.problems + [p.message for p in index.config.problems]:
        say(f"colosseum.toml: {problem} (the default is used)")
    out = Path(args.out).resolve() if args.out else default_output(draft.file, args.label)
    if out.exists():
        say(f"{out} exists; the research pipeline never overwrites a file (pass --out NEW_FILE)")
        return 2
    if args.dry_run:
        from colosseum.loops.review import review_config

        return _dry_run(args, setup, review_config(index.config)[0].reviewers)
    try:
        return asyncio.run(_run(args, index, draft, setup, out))
    except KeyboardInterrupt:
        print(f"\ncolosseum: cancelled; what was done is in {STATE_DIR_NAME}/runs", file=sys.stderr)
        return 130


def _selection_fits(args, configured) -> bool:
    """The selection as it will run: the command line over colosseum.toml, compared once resolved."""
    judges = args.judges or configured.selection.judges
    threshold = args.threshold or configured.selection.threshold
    if threshold <= judges:
        return True
    say(f"the selection threshold ({threshold}{' from --threshold' if args.threshold else ''}) "
        f"cannot be more than the number of judges ({judges}{' from --judges' if args.judges else ''})")
    return False


def _dry_run(args, setup, reviewers: int) -> int:
    from colosseum.loops.research.settings import planned_calls
    from colosseum.models.pricing import cost_usd
    from colosseum.models.provider import Usage

    config, inner_config, selection = setup.config, setup.inner_config, setup.selection
    obligations = 6
    plan = planned_calls(config, inner_config, reviewers, obligations)
    runs = 2 if args.select_with else 1
    typical = plan["typical"] * runs + (selection.judges if args.select_with else 0)
    model = setup.settings.model_name()
    upper_cost = cost_usd(Usage(input_tokens=typical * 6000, output_tokens=typical * 2000), model,
                          setup.settings.prices)
    money = (f"; at most about ${upper_cost:.2f} at {model}'s list price for the typical run (less with prompt "
             "caching)" if upper_cost is not None else f"; no price known for {model} (set [models] prices)")
    print(f"{args.label}: exploration {plan['exploration']} calls (widths {config.exploration_widths}, k = {config.k}, "
          f"{'adaptive' if config.adaptive_widths else 'fixed'} widths, then the readiness gate); decomposition "
          f"{plan['decomposition']}; each obligation {plan['per_obligation']} (inner loop widths "
          f"{inner_config.widths} and its local review); each global review {plan['global_review']}.")
    both = (f"; run with both models plus {selection.judges} judgements, {typical} calls" if args.select_with else "")
    print(f"A skeleton of {obligations} obligations costs about {plan['typical']} calls with no retry and one round"
          f"{both}; with every retry, {config.max_explorations} explorations and {config.rounds} rounds, up to about "
          f"{plan['upper'] * runs} calls{money}. "
          + (f"The budget stops the run at {config.max_calls} calls. " if config.max_calls else "")
          + "Nothing was sent.")
    return 0


async def _run(args, index, draft, setup, out: Path) -> int:
    import asyncio
    from colosseum.app.project import open_for_run
    from colosseum.loops.inner.run_record import run_directory
    from colosseum.models import ProviderError

    try:
        inner_a, model_a = setup.settings.provider()
        inner_b, model_b = setup.settings.provider(args.select_with) if args.select_with else (None, None)
    except ProviderError as exc:
        say(exc.message)
        return 2
    top = run_directory(index.root_dir, f"research-{args.label}")
    line = _Line()

    def progress_of(model: str):
        def progress(event) -> None:
            event.model = model if args.select_with else ""
            line(event)
        return progress

    run_a = setup.new_run(index, args.label, inner_a, model_a, top / "model-a" if args.select_with else top,
                          progress_of(model_a))
    run_b = setup.new_run(open_for_run(args.path, say), args.label, inner_b, model_b, top / "model-b",
                          progress_of(model_b)) if args.select_with else None
    try:
        result_a, result_b = await _both(run_a, run_b)
    except (KeyboardInterrupt, asyncio.CancelledError):
        print(f"\ncolosseum: cancelled; what was done is in {top}", file=sys.stderr)
        return 130
    print(file=sys.stderr)
    chosen = result_a
    if run_b is not None:
        chosen = await _select(args, draft, setup, (result_a, result_b), run_b, (model_a, model_b), top)
    return _finish(args, index, draft, chosen, [r for r in (run_a, run_b) if r is not None], out, top)


async def _both(run_a, run_b) -> tuple:
    import asyncio
    from colosseum.loops.research.pipeline import run_research

    if run_b is None:
        return await run_research(run_a), None
    async with asyncio.TaskGroup() as group:
        task_a = group.create_task(run_research(run_a))
        task_b = group.create_task(run_research(run_b))
    return task_a.result(), task_b.result()


async def _select(args, draft, setup, results: tuple, run_b, models: tuple, top: Path):
    from colosseum.app.research import select_between

    problem = f"{args.label}: {draft.statement(args.label)}"
    picked = await select_between(*results, run_b.provider, problem, setup.selection, *models, top)
    if picked.failure:
        say(f"the selection could not finish ({picked.failure}); model A's run is kept")
        return results[0]
    if picked.picked is not None:
        print(f"cross-model selection: {picked.picked.reason}; submitting model {picked.chosen} "
              f"({models[1] if picked.chosen == 'B' else models[0]})")
    return results[1] if picked.chosen == "B" else results[0]


def _finish(args, index, draft, result, runs, out: Path, top: Path) -> int:
    from colosseum.models.pricing import cost_usd

    print(f"{args.label}: {result.status}" + (f" ({result.message})" if result.message else ""))
    if result.decomposition is not None:
        passed = sum(1 for o in result.decomposition.obligations if result.sections.get(o) is not None
                     and result.sections[o].status == "passed")
        print(f"{passed} of {len(result.decomposition.obligations)} obligations passed their local review")
    if result.draft.strip():
        _write_draft(args, index, draft, result, out)
    calls = sum(r.provider.usage.calls for r in runs)
    hits = sum(r.provider.cached_answers for r in runs)
    costs = [cost_usd(r.provider.usage, r.model, r.prices) for r in runs]
    spent = f", about ${sum(costs):.2f}" if all(c is not None for c in costs) else ", cost unknown (no price known)"
    by_model = " (" + ", ".join(f"{r.model} {r.provider.usage.calls}" for r in runs) + ")" if len(runs) > 1 else ""
    print(f"{calls} model calls{by_model}{spent}, {hits} answers from the cache; run written to "
          f"{top.relative_to(index.root_dir)}")
    return 0 if result.status == "accepted" else 1


def _write_draft(args, index, draft, result, out: Path) -> None:
    from colosseum.app.research import CatalogNotUpdated, input_line, record_reviewed_lemmas, skeleton_file_text

    try:
        with open(out, "x", encoding="utf-8") as handle:  # a new file, never an existing one
            handle.write(skeleton_file_text(result, args.label, out, index.roots[0], draft.replace_to != draft.offset))
    except FileExistsError:
        say(f"{out} appeared meanwhile; the draft is only in the run directory")
        return
    print(f"draft written to {out}; add {input_line(out, index.roots[0])} after {args.label}")
    try:
        written = record_reviewed_lemmas(index, draft, result, out)
    except CatalogNotUpdated as exc:
        say(f"the catalog was not updated: {exc}")
        return
    if written:
        print(f"written to the catalog: {', '.join(written)}")
