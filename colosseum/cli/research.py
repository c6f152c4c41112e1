"""``colosseum research PATH --label LABEL [--format text|json] [--resume RUN] [--batch]`` (``--labels A,B``: several, cli/research_many.py): the research pipeline on a theorem with no proof
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

from colosseum.cli.terminal import (add_batch_argument, add_quiet_argument, open_project, price_phrase,
                                    print_cache_reuse, print_json, progress_for, say, say_stale_answers,
                                    show_batch_progress)


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
    which = research.add_mutually_exclusive_group(required=True)
    which.add_argument("--label", help="the theorem to prove (a claim with no proof yet)")
    which.add_argument("--labels", metavar="A,B,C",
                       help="several theorems, each in a run folder of its own, sharing one provider (with --batch "
                            "each stage of all of them goes out as one batch); a line per theorem at the end")
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
    research.add_argument("--format", choices=("text", "json"), default="text",
                          help="json: one object with the status, the draft file, the obligations that passed, the "
                          "selection, the run's folder and what each model spent (several labels: those objects "
                          "in `runs`, and `totals`)")
    research.add_argument("--dry-run", action="store_true", help="say what it would cost, spend nothing")
    research.add_argument("--model", help="model A (default: [models] model in colosseum.toml)")
    research.add_argument("--no-cache", action="store_true", help="ask the model even for answers already on disk")
    research.add_argument("--resume", metavar="RUN", help="continue an abandoned, failed, cancelled, budget-stopped "
                          "or incomplete run (its folder name under .colosseum/runs/ or its path): calls answered "
                          "before come from the cache; with --labels, RUN,RUN,...: each run goes on for the theorem "
                          "it researched, the other labels start anew")
    research.add_argument("--trust", action="store_true", help="trust this project: falsifiers and refuters may run "
                          "Python in the sandbox (the cards' falsifiable tests, small cases of a claim)")
    add_batch_argument(research)
    add_quiet_argument(research)
    research.set_defaults(run=run_research_command)


def run_research_command(args) -> int:
    from colosseum.app.research import default_output, research_setup, research_target
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.stops import RunRefused

    index = open_project(args.path)
    if index is None:
        return 2
    if args.labels is not None:
        from colosseum.cli.research_many import run_research_many

        return run_research_many(args, index)
    try:
        draft = research_target(index, args.label)
    except RunRefused as exc:
        say(str(exc))
        return 2
    overrides = RunOverrides(args.model, args.max_calls, not args.no_cache, trust=args.trust, batch=args.batch)
    resumed = _resumed(args, index)
    if resumed is False:
        return 2
    if resumed is not None:
        overrides = resumed.overrides(overrides)
    if args.select_with and (args.judges or args.threshold) and not selection_fits(args, research_setup(index, overrides)):
        return 2
    setup = research_setup(index, overrides, args.rounds, args.judges, args.threshold)
    if resumed is not None:
        setup = resumed.setup(setup)
    if setup.settings.batch_refusal():
        say(setup.settings.batch_refusal())
        return 2
    for problem in [] if args.quiet else setup.problems + [p.message for p in index.config.problems]:
        say(f"colosseum.toml: {problem} (the default is used)")
    if setup.probes is not None and setup.probes.tools is None and not args.quiet:
        say(f"falsifiers and refuters run no code: {setup.probes.reason}")  # once per run
    out = Path(args.out).resolve() if args.out else default_output(draft.file, args.label)
    if out.exists():
        say(f"{out} exists; the research pipeline never overwrites a file (pass --out NEW_FILE)")
        return 2
    if args.dry_run:
        return _dry_run(args, index, setup)
    return _run(args, draft, setup, out, resumed.folder if resumed is not None else None)


def _resumed(args, index):
    """The run ``--resume`` names (None without it; False, said, when it cannot be resumed)."""
    from colosseum.app.research import research_to_resume
    from colosseum.app.stops import RunRefused

    if not args.resume:
        return None
    if args.select_with:
        say("--resume continues a run of one model; a run with --select-with cannot be resumed yet")
        return False
    try:
        return research_to_resume(index, args.label, args.resume)
    except RunRefused as exc:
        say(str(exc))
        return False


def selection_fits(args, configured) -> bool:
    """The selection as it will run: the command line over colosseum.toml, compared once resolved."""
    judges = args.judges or configured.selection.judges
    threshold = args.threshold or configured.selection.threshold
    if threshold <= judges:
        return True
    say(f"the selection threshold ({threshold}{' from --threshold' if args.threshold else ''}) "
        f"cannot be more than the number of judges ({judges}{' from --judges' if args.judges else ''})")
    return False


def _price_scope(estimate, plan: dict) -> str:
    """What the price covers: the typical run, and what every retry and round would cost (the same
    tokens a call). The bound for the typical run alone read as the bound of the whole run, printed
    right after "up to about 3708 calls"."""
    if estimate.upper_cost_usd is None or not estimate.typical_calls:
        return " for the typical run"
    worst = estimate.upper_cost_usd * plan["upper"] * estimate.runs / estimate.typical_calls
    return f" for the typical run, up to about ${worst:,.2f} with every retry and round"


def _dry_run(args, index, setup) -> int:
    from colosseum.app.research import estimate_research, plan_lines

    config, inner_config, selection = setup.config, setup.inner_config, setup.selection
    estimate = estimate_research(index, setup, bool(args.select_with))
    plan, model = estimate.plan, estimate.model
    money = price_phrase(estimate.upper_cost_usd, model, _price_scope(estimate, plan), batch=setup.settings.overrides.batch)
    print(f"{args.label}: exploration {plan['exploration']} calls (widths {config.exploration_widths}, k = {config.k}, "
          f"{'adaptive' if config.adaptive_widths else 'fixed'} widths, then the readiness gate); decomposition "
          f"{plan['decomposition']}; each obligation {plan['per_obligation']} (inner loop widths "
          f"{inner_config.widths} and its local review); each global review {plan['global_review']}.")
    print("\n".join(plan_lines(config, inner_config, plan)))
    if setup.probes is not None and setup.probes.tools is not None:  # (why they run none was said on stderr)
        print("Probes: falsifiers run the cards' falsifiable tests and " + setup.probes.plan_line())
    both = (f"; run with both models plus {selection.judges} judgements, {estimate.typical_calls} calls"
            if args.select_with else "")
    print(f"A skeleton of {estimate.obligations} obligations costs about {plan['typical']} calls with no retry and "
          f"one round{both}; with every retry, {config.max_explorations} explorations and {config.rounds} rounds, up "
          f"to about {plan['upper'] * estimate.runs} calls{money}. "
          + (f"The budget stops the run at {config.max_calls} calls. " if config.max_calls else "")
          + "Nothing was sent.")
    if setup.settings.batch_line():
        print(setup.settings.batch_line())
    print_cache_reuse(setup.settings)
    return 0


def _run(args, draft, setup, out: Path, directory: Path | None = None) -> int:
    from colosseum.app.project import open_for_run
    from colosseum.app.research import SecondModel, start_research
    from colosseum.app.stops import run_in_terminal
    from colosseum.models import ProviderError

    # model B works on its own index of the project: each run overlays its draft on the index it works on
    second = SecondModel(args.select_with, lambda: open_for_run(args.path, say)) if args.select_with else None
    try:
        runs = start_research(setup, draft, second, directory=directory)
    except ProviderError as exc:
        say(exc.message)
        return 2
    say_stale_answers(setup.settings.root_dir, args)
    progress = progress_for(args)
    for run in runs.runs:
        show_batch_progress(run.provider, progress)
    outcome = run_in_terminal(lambda: runs.run(lambda event: progress.show(event.line())), runs.outcome)
    progress.finish()
    if args.format == "json":
        return _print_json(draft, outcome, out)
    if outcome.result is None:
        return _stopped(outcome)
    _print_selection(outcome)
    return _finish(args, draft, outcome, out)


def _print_json(draft, outcome, out: Path) -> int:
    """The outcome as one JSON object on stdout (the draft file written first); stderr says what
    went wrong as the text output does."""
    from colosseum.app.research import write_draft_file
    from colosseum.app.research_many import research_summary

    written = None
    if outcome.result is not None and outcome.result.draft.strip():
        written = write_draft_file(draft, outcome.result, out)
        if not written.written:
            say(f"{out} appeared meanwhile; the draft is only in the run directory")
        elif written.catalog_error:
            say(f"the catalog was not updated: {written.catalog_error}")
    elif outcome.result is None:
        _stopped(outcome)  # says why on stderr; the exit code is the summary's (the same)
    summary = research_summary(outcome, draft.index.root_dir, out, written)
    print_json(summary)
    return summary["exit_code"]


def _stopped(outcome) -> int:
    """A run that stopped with no result: cancelled (Ctrl-C), or the theorem could no longer take a draft."""
    if outcome.stop.cancelled:
        print(f"colosseum: cancelled; what was done is in {outcome.directory}", file=sys.stderr)
        return 130
    say(outcome.stop.detail)
    return 2 if outcome.stop.kind == "refused" else 1


def _print_selection(outcome) -> None:
    picked = outcome.selection
    if picked is None:
        return
    if picked.failure:
        say(f"the selection could not finish ({picked.failure}); model A's run is kept")
    elif picked.picked is not None:
        models = [r.model for r in outcome.runs]
        print(f"cross-model selection: {picked.picked.reason}; submitting model {picked.chosen} "
              f"({models[1] if picked.chosen == 'B' else models[0]})")


def _finish(args, draft, outcome, out: Path) -> int:
    result, index = outcome.result, draft.index
    print(f"{args.label}: {result.status}" + (f" ({result.message})" if result.message else ""))
    if result.decomposition is not None:
        passed = sum(1 for o in result.decomposition.obligations if result.sections.get(o) is not None
                     and result.sections[o].status == "passed")
        print(f"{passed} of {len(result.decomposition.obligations)} obligations passed their local review")
    _print_computation(index, args.label)
    if result.draft.strip():
        _write_draft(args, draft, result, out)
    cost = outcome.cost_usd
    spent = f", about ${cost:.2f}" if cost is not None else ", cost unknown (no price known)"
    runs = outcome.runs
    by_model = " (" + ", ".join(f"{r.model} {r.calls}" for r in runs) + ")" if len(runs) > 1 else ""
    print(f"{outcome.calls} model calls{by_model}{spent}, {outcome.cache_hits} answers from the cache; run written to "
          f"{outcome.directory.relative_to(index.root_dir)}")
    return 0 if result.status == "accepted" else 1


def _write_draft(args, draft, result, out: Path) -> None:
    from colosseum.app.research import input_line, write_draft_file

    written = write_draft_file(draft, result, out)
    if not written.written:
        say(f"{out} appeared meanwhile; the draft is only in the run directory")
        return
    print(f"draft written to {out}; add {input_line(out, draft.index.roots[0])} after {args.label}")
    if written.catalog_error:
        say(f"the catalog was not updated: {written.catalog_error}")
    elif written.catalog:
        print(f"written to the catalog: {', '.join(written.catalog)}")


def _print_computation(index, label: str) -> None:
    """The catalog's computations on the theorem, apart from the review (nothing when none ran)."""
    from colosseum.app.evidence import claims_computation
    from colosseum.catalog.evidence import computation_line

    items = claims_computation(index).get(label) or []
    if items:
        print("Computation (not a proof):")
        for item in items:
            print(f"  {computation_line(item)}")
