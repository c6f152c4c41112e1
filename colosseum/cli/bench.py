"""``colosseum bench PATH [--labels a,b,c]``: the method against direct, best-of-n and self-refine
at equal list-price cost on a paper's claims (every claim with a line ``% colosseum: benchmark``
when no labels are given), graded against the paper's own proofs; the report goes to
``.colosseum/bench/<time>/``. Exit 0 when the report is written, 1 when the run stopped early or a
grader call failed, 2 for bad input, 130 when interrupted."""

from __future__ import annotations

import sys
from pathlib import Path

from colosseum.cli.terminal import (add_batch_argument, add_quiet_argument, open_project, print_json, progress_for, say,
                                    say_stale_answers, show_batch_progress)


def add_arguments(sub) -> None:
    bench = sub.add_parser("bench", help="compare the method with simple baselines at equal cost")
    bench.add_argument("path", nargs="?", help="project directory or its root .tex file (with --copy-problems: "
                       "the new folder for the shipped problem set)")
    bench.add_argument("--copy-problems", action="store_true", help="copy the problem set that ships with colosseum "
                       "(26 standard lemmas with reference proofs) into PATH, a new folder, and stop: then run "
                       "`colosseum bench PATH`")
    bench.add_argument("--labels", help="comma-separated claims (default: every claim marked "
                       "`%% colosseum: benchmark`)")
    bench.add_argument("--graders", type=int, help="grader calls per answer (default: [bench] graders, 3)")
    bench.add_argument("--grader-model", help="the graders' model (default: [bench] grader_model, else the "
                       "solvers')")
    bench.add_argument("--model", help="the solvers' model (default: [models] model in colosseum.toml)")
    bench.add_argument("--max-calls", type=int, help="the inner loop's call budget on each problem")
    bench.add_argument("--no-cache", action="store_true", help="ask the model even for answers already on disk")
    bench.add_argument("--dry-run", action="store_true", help="list the problems and the calls planned, spend nothing")
    bench.add_argument("--format", choices=("text", "json"), default="text",
                       help="json: the report's data on stdout")
    add_batch_argument(bench)
    bench.add_argument("--resume", metavar="RUN", help="continue a bench run stopped while its batches were out "
                       "(RUN: its folder's name under .colosseum/bench/): their results are fetched, not sent again")
    add_quiet_argument(bench)
    bench.set_defaults(run=run_bench_command)


def run_bench_command(args) -> int:
    from colosseum.app.bench import EXIT_BAD_INPUT, BenchOutcome, BenchOverrides, bench_folder, plan_bench
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.stops import RunRefused, run_in_terminal
    from colosseum.models import ProviderError

    if args.copy_problems or args.path is None:
        return _copy_problems(args.path)
    index = open_project(args.path)
    if index is None:
        return EXIT_BAD_INPUT
    labels = [x.strip() for x in args.labels.split(",") if x.strip()] if args.labels else None
    try:
        plan = plan_bench(index, labels, RunOverrides(args.model, args.max_calls, not args.no_cache, batch=args.batch),
                          BenchOverrides(args.graders, args.grader_model))
        if plan.settings.batch_refusal():
            raise RunRefused(plan.settings.batch_refusal())
        if args.dry_run:
            _print_plan(plan)
            return 0
        folder = bench_folder(index.root_dir, args.resume)
        provider, _ = plan.settings.provider(run_dir=folder)  # --batch keeps its batch ids in the run's folder
    except RunRefused as exc:
        say(str(exc))
        return EXIT_BAD_INPUT
    except ProviderError as exc:
        say(exc.message)
        return EXIT_BAD_INPUT
    say_stale_answers(index.root_dir, args)
    progress = progress_for(args)
    show_batch_progress(provider, progress)
    outcome = run_in_terminal(lambda: plan.run(progress, provider, folder),
                              lambda reason: BenchOutcome(folder, stop=reason))
    progress.finish()
    if outcome.stop is not None:
        say(f"the bench stopped ({outcome.stop.kind}): {outcome.stop.detail}")
        return outcome.exit_code
    if args.format == "json":
        print_json({k: v for k, v in outcome.data.items() if k != "schema_version"})
    else:
        _print_summary(outcome)
    return outcome.exit_code


def _copy_problems(destination: str | None) -> int:
    """The shipped problem set into a new folder of the author's choosing (never over a folder
    that holds anything): what `colosseum bench` runs on when there is no paper of one's own."""
    from colosseum.app.bench import EXIT_BAD_INPUT, ProblemSetExists, copy_problem_set

    if destination is None:
        say("colosseum bench: give a project (PATH), or copy the problem set that ships with colosseum "
            "first: colosseum bench --copy-problems DIR")
        return EXIT_BAD_INPUT
    try:
        copied = copy_problem_set(Path(destination))
    except ProblemSetExists as exc:
        say(str(exc))
        return EXIT_BAD_INPUT
    print(f"the problem set ({copied.problems} problems with reference proofs) is in {copied.folder}; "
          f"run: colosseum bench {copied.folder} --dry-run")
    return 0


def _print_plan(plan) -> None:
    """What a run would do; nothing is sent."""
    from colosseum.bench.records import BASELINES
    from colosseum.cli.terminal import price_phrase

    for problem in plan.problems:
        reference = "its proof in the paper is the reference" if problem.has_reference else "no proof: graded alone"
        print(f"{problem.label}: {reference}")
    answers = len(plan.problems) * (1 + len(BASELINES))
    print(f"method: the inner loop on each problem ({plan.calls_described()}); then {', '.join(BASELINES)}, "
          f"each at the method's list-price cost on the problem (within 10%); then {plan.bench.graders} grader "
          f"call(s) for each of up to {answers} answers, at {plan.bench.grader_model or plan.pricing.model}'s "
          "list price.")
    money = price_phrase(plan.upper_cost_usd(), plan.pricing.model, " for the whole bench",
                         batch=plan.settings.overrides.batch)
    print(f"{len(plan.problems)} problems, {len(BASELINES) + 1} arms and the graders{money}. Nothing was sent.")
    if plan.settings.batch_line():
        print(plan.settings.batch_line())


def _print_summary(outcome) -> None:
    data = outcome.data
    for name, s in data["methods"].items():
        accuracy = "-" if s["accuracy"] is None else f"{100 * s['accuracy']:.1f}%"
        print(f"{name:12} accuracy {accuracy:>6} ({s['correct']}/{s['problems']} correct, {s['minor_gaps']} minor "
              f"gaps), ${s['cost_usd']:.4f} in {s['calls']} calls")
    kappa = data["agreement"]["fleiss_kappa"]
    print(f"graders: {data['agreement']['raw_percent']}% raw agreement, Fleiss' kappa "
          f"{'-' if kappa is None else kappa}; {len(data['disagreements'])} disagreement(s) listed")
    print(f"{data['calls_made']} model call(s) made; report written to {outcome.directory / 'report.md'}",
          file=sys.stdout)
