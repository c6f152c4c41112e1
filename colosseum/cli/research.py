"""``colosseum research PATH --label LABEL``: the research pipeline on a theorem with no proof
yet, from strategy cards to a reviewed draft, written as a NEW file (never over the author's
files; an existing file is refused). ``--select-with MODEL_B`` runs the pipeline with both
models and submits by cross-model selection.

Exit status: 0 when the draft was accepted by the global review, 1 when the run ended otherwise
(not ready, incomplete, revise or rejected at the round limit, budget), 2 for bad input, 130
when interrupted."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path


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


def default_output(claim_file: Path, label: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", label).strip("-").lower() or "theorem"
    return claim_file.with_name(f"{claim_file.stem}-{slug}-skeleton.tex")


def input_line(out: Path, root: Path) -> str:
    relative = Path(os.path.relpath(out, root.parent)).as_posix()
    return "\\input{" + (relative[:-4] if relative.endswith(".tex") else relative) + "}"


def skeleton_file_text(result, label: str, out: Path, root: Path, replaces_proof: bool) -> str:
    where = "in place of its empty proof" if replaces_proof else "right after the theorem"
    header = [f"Written by `colosseum research` for {label} (run {Path(str(result.run_dir)).name}, model "
              f"{result.model}, status {result.status}).", f"Put {input_line(out, root)} {where}."]
    header += draft_summary(result)
    header.append("Model review is evidence, not a formal check: read it before relying on it.")
    return "\n".join(f"% {line}" for line in header) + "\n\n" + result.draft.strip() + "\n"


def draft_summary(result) -> list[str]:
    """Exactly what the draft holds: which obligations were proved and passed their local review,
    what happened to the others, and what the global review said (if it ran)."""
    obligations = list(result.decomposition.obligations) if result.decomposition is not None else []
    outcomes = result.sections
    passed = [o for o in obligations if outcomes.get(o) is not None and outcomes[o].status == "passed"]
    lines = []
    if obligations and len(passed) == len(obligations):
        lines.append(f"Each of the {len(obligations)} obligations below was proved by the inner loop and passed "
                     "its local review.")
    elif obligations:
        lines.append(f"{len(passed)} of the {len(obligations)} obligations below were proved by the inner loop and "
                     "passed their local review" + (f" ({', '.join(passed)})" if passed else "") + "; the others "
                     "have no reviewed proof:")
        lines += [f"  {o}: {_unproved(outcomes.get(o))}" for o in obligations if o not in passed]
    if result.rounds:
        lines.append(f"Global review: {result.final_verdict} (round {len(result.rounds)}); its report is in the "
                     "run directory.")
    else:
        lines.append("No global review was run on this draft.")
    return lines


def _unproved(outcome) -> str:
    if outcome is None:
        return "never attempted (the run stopped before it)"
    if outcome.status == "blocked":
        return "never attempted (what it rests on did not pass)"
    if outcome.status == "failed" and outcome.attempts:
        return f"did not pass its local review ({outcome.attempts} attempt{'s' if outcome.attempts != 1 else ''})"
    if outcome.status == "failed":
        return "not finished (the run stopped during its first attempt)"
    return outcome.status


class _Line:
    """One progress line on stderr, rewritten in place."""

    def __init__(self):
        self.width = 0

    def __call__(self, event) -> None:
        text = event.line()[:160]
        print("\r" + text.ljust(self.width), end="", file=sys.stderr, flush=True)
        self.width = len(text)


def run_research_command(args) -> int:
    import asyncio

    from colosseum.loops.research.draft import DraftDocument, DraftError
    from colosseum.loops.research.settings import research_settings
    from colosseum.cli.solve import open_for_run

    index = open_for_run(args.path)
    if index is None:
        return 2
    try:
        draft = DraftDocument(index, args.label)
    except DraftError as exc:
        print(f"colosseum: {exc}", file=sys.stderr)
        return 2
    if args.select_with and (args.judges or args.threshold):
        # the selection as it will run: the command line over colosseum.toml, compared once resolved
        _, configured, _ = research_settings(index.config)
        judges, threshold = args.judges or configured.judges, args.threshold or configured.threshold
        if threshold > judges:
            print(f"colosseum: the selection threshold ({threshold}{' from --threshold' if args.threshold else ''}) "
                  f"cannot be more than the number of judges ({judges}{' from --judges' if args.judges else ''})",
                  file=sys.stderr)
            return 2
    config, selection, problems = research_settings(index.config, args.rounds, args.max_calls, args.judges,
                                                    args.threshold)
    for problem in problems + [p.message for p in index.config.problems]:
        print(f"colosseum: colosseum.toml: {problem} (the default is used)", file=sys.stderr)
    out = Path(args.out).resolve() if args.out else default_output(draft.file, args.label)
    if out.exists():
        print(f"colosseum: {out} exists; the research pipeline never overwrites a file (pass --out NEW_FILE)",
              file=sys.stderr)
        return 2
    from colosseum.settings.project import valid_table
    from colosseum.loops.review import review_config
    from colosseum.cli.solve import inner_loop_config

    from dataclasses import replace

    # the research run's own budget bounds every call, the inner loop's included
    inner_config = replace(inner_loop_config(index.config)[0], max_calls=None)
    models = valid_table(index.config, "models")
    review, _ = review_config(index.config)
    if args.dry_run:
        return _dry_run(args, config, inner_config, review.reviewers, selection, models)
    try:
        return asyncio.run(_run(args, index, draft, config, inner_config, selection, models, out))
    except KeyboardInterrupt:
        print("\ncolosseum: cancelled; what was done is in .colosseum/runs", file=sys.stderr)
        return 130


def _dry_run(args, config, inner_config, reviewers: int, selection, models: dict) -> int:
    from colosseum.models.anthropic_provider import DEFAULT_MODEL
    from colosseum.models.pricing import cost_usd
    from colosseum.models.provider import Usage
    from colosseum.loops.research.settings import planned_calls

    obligations = 6
    plan = planned_calls(config, inner_config, reviewers, obligations)
    runs = 2 if args.select_with else 1
    typical = plan["typical"] * runs + (selection.judges if args.select_with else 0)
    model = args.model or models.get("model") or DEFAULT_MODEL
    upper_cost = cost_usd(Usage(input_tokens=typical * 6000, output_tokens=typical * 2000), model, models.get("prices"))
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


async def _run(args, index, draft, config, inner_config, selection, models: dict, out: Path) -> int:
    import asyncio

    from colosseum.catalog.store import load_catalog
    from colosseum.loops.inner.run_record import run_directory
    from colosseum.cli.knowledge import catalog_directory
    from colosseum.models import ProviderError
    from colosseum.models.configured import configured_provider
    from colosseum.loops.research.calls import CallBudget, MeteredProvider
    from colosseum.loops.research.pipeline import ResearchRun, run_research
    from colosseum.loops.research.review_adapter import ReviewLayer
    from colosseum.core.atomic_files import write_atomically
    from colosseum.loops.research.run_log import ResearchRecorder
    from colosseum.loops.research.selection import cross_model_select

    cache = None if args.no_cache else index.root_dir / ".colosseum" / "cache"
    try:
        inner_a, model_a = configured_provider(models, cache, args.model)
        inner_b, model_b = configured_provider(models, cache, args.select_with) if args.select_with else (None, None)
    except ProviderError as exc:
        print(f"colosseum: {exc.message}", file=sys.stderr)
        return 2
    budget = CallBudget(config.max_calls)
    top = run_directory(index.root_dir, f"research-{args.label}")
    catalog_dir = catalog_directory(index.root_dir)
    catalog = load_catalog(catalog_dir)
    line = _Line()

    def make_run(project_index, inner, model: str, folder: Path) -> ResearchRun:
        provider = MeteredProvider(inner, budget)
        recorder = ResearchRecorder(folder, args.label, model, config, models.get("prices"))

        def progress(event) -> None:
            event.model = model if args.select_with else ""
            line(event)

        return ResearchRun(project_index, args.label, provider, config, inner_config, ReviewLayer(provider,
                           index.config, model=None), catalog, catalog_dir, recorder, progress, None, model,
                           models.get("prices"))

    run_a = make_run(index, inner_a, model_a, top / "model-a" if args.select_with else top)
    run_b = make_run(_opened_with_formal(args.path), inner_b, model_b, top / "model-b") if args.select_with else None
    try:
        if run_b is None:
            result_a, result_b = await run_research(run_a), None
        else:
            async with asyncio.TaskGroup() as group:
                task_a = group.create_task(run_research(run_a))
                task_b = group.create_task(run_research(run_b))
            result_a, result_b = task_a.result(), task_b.result()
    except (KeyboardInterrupt, asyncio.CancelledError):
        print(f"\ncolosseum: cancelled; what was done is in {top}", file=sys.stderr)
        return 130
    print(file=sys.stderr)
    chosen, chosen_label = result_a, "A"
    if run_b is not None:
        problem = f"{args.label}: {draft.statement(args.label)}"
        try:
            picked = await cross_model_select(result_a, result_b, run_b.provider, problem, selection.judges,
                                              selection.threshold)
        except Exception as exc:  # noqa: BLE001 - a failed selection still leaves both runs on disk
            from colosseum.core.exception_groups import first_leaf
            from colosseum.models.errors import BudgetReached

            if first_leaf(exc, (BudgetReached, ProviderError)) is None:
                raise
            print(f"colosseum: the selection could not finish ({exc}); model A's run is kept", file=sys.stderr)
            picked = None
        if picked is not None:
            import json

            write_atomically(top / "selection.json", json.dumps({**picked.to_json(), "model_a": model_a,
                                                              "model_b": model_b}, indent=2, ensure_ascii=False))
            write_atomically(top / "selection.md", _selection_report(picked, model_a, model_b))
            chosen_label = picked.chosen if picked.chosen != "none" else "A"
            chosen = result_b if chosen_label == "B" else result_a
            print(f"cross-model selection: {picked.reason}; submitting model {chosen_label} "
                  f"({model_b if chosen_label == 'B' else model_a})")
    return _finish(args, index, draft, chosen, [r for r in (run_a, run_b) if r is not None], out, top)


def _selection_report(picked, model_a: str, model_b: str) -> str:
    lines = [f"# Cross-model selection: model {picked.chosen} submitted", "",
             f"Model A: {model_a}; model B: {model_b}. {picked.reason}.", "",
             "| judge | correct | first failing step | reasons |", "|---|---|---|---|"]
    lines += [f"| {v.judge} | {'yes' if v.correct else 'no'} | {v.fatal_flaw or '-'} | {v.reasons} |"
              for v in picked.verdicts]
    return "\n".join(lines)


def _curate(index, draft, result, out: Path) -> None:
    """Each lemma of the written draft that passed its local review becomes an observation with
    model-reviewed proof as its evidence (not a result: it is not in the paper until the author
    inputs the draft)."""
    from colosseum.catalog.curator import record_reviewed_proof
    from colosseum.cli.knowledge import catalog_directory

    if result.decomposition is None:
        return
    where = str(out.resolve().relative_to(index.root_dir)) if out.resolve().is_relative_to(index.root_dir) else str(out)
    run_id = Path(str(result.run_dir)).name if result.run_dir else "research"
    written = []
    try:
        for label in result.decomposition.obligations:
            outcome = result.sections.get(label)
            if outcome is None or outcome.status != "passed":
                continue
            described = (f"Proved in research run {run_id} for {result.label} and passed its local review "
                         f"after {outcome.attempts} attempt(s); the global review said {result.final_verdict}. "
                         f"The proof is in the draft {where}. Not yet read by a person.")
            written.append(record_reviewed_proof(catalog_directory(index.root_dir), label, draft.statement(label),
                                                 described, where, run_id, result.model))
    except (OSError, TimeoutError, ValueError, KeyError) as exc:
        print(f"colosseum: the catalog was not updated: {exc}", file=sys.stderr)
    if written:
        print(f"written to the catalog: {', '.join(written)}")


def _finish(args, index, draft, result, runs, out: Path, top: Path) -> int:
    from colosseum.models.pricing import cost_usd

    print(f"{args.label}: {result.status}" + (f" ({result.message})" if result.message else ""))
    if result.decomposition is not None:
        passed = sum(1 for o in result.decomposition.obligations if result.sections.get(o) is not None
                     and result.sections[o].status == "passed")
        print(f"{passed} of {len(result.decomposition.obligations)} obligations passed their local review")
    if result.draft.strip():
        try:
            with open(out, "x", encoding="utf-8") as handle:  # a new file, never an existing one
                handle.write(skeleton_file_text(result, args.label, out, index.roots[0],
                                                draft.replace_to != draft.offset))
            print(f"draft written to {out}; add {input_line(out, index.roots[0])} after {args.label}")
            _curate(index, draft, result, out)
        except FileExistsError:
            print(f"colosseum: {out} appeared meanwhile; the draft is only in the run directory", file=sys.stderr)
    calls = sum(r.provider.usage.calls for r in runs)
    hits = sum(r.provider.cached_answers for r in runs)
    costs = [cost_usd(r.provider.usage, r.model, r.prices) for r in runs]
    spent = f", about ${sum(costs):.2f}" if all(c is not None for c in costs) else ", cost unknown (no price known)"
    by_model = " (" + ", ".join(f"{r.model} {r.provider.usage.calls}" for r in runs) + ")" if len(runs) > 1 else ""
    print(f"{calls} model calls{by_model}{spent}, {hits} answers from the cache; run written to "
          f"{top.relative_to(index.root_dir)}")
    return 0 if result.status == "accepted" else 1


def _opened_with_formal(path):
    from colosseum.cli.main import formal_from_cache
    from colosseum.index import ProjectIndex

    index = ProjectIndex.open(path)
    formal_from_cache(index)
    return index
