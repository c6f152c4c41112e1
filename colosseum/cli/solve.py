"""``colosseum solve PATH --label LABEL [--dry-run]``: one obligation through the inner loop."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from colosseum.loops.inner.records import InnerLoopConfig


def add_arguments(sub) -> None:
    solve = sub.add_parser("solve", help="run the inner loop on one obligation")
    solve.add_argument("path", help="project directory or its root .tex file")
    solve.add_argument("--label", required=True, help="the claim to prove")
    solve.add_argument("--dry-run", action="store_true", help="say what it would cost, spend nothing")
    solve.add_argument("--model", help="model name (default: [models] model in colosseum.toml)")
    solve.add_argument("--max-calls", type=int, help="budget: refuse to start a run that needs more calls")
    solve.add_argument("--no-cache", action="store_true", help="ask the model even for answers already on disk")
    solve.set_defaults(run=run_solve)


def inner_loop_config(project_config, max_calls: int | None = None) -> tuple[InnerLoopConfig, dict]:
    """The inner loop's settings from ``[solve]`` and ``[budget]`` (``max_calls`` overrides the
    budget), and the ``[models]`` table: shared by every command that runs the inner loop."""
    from colosseum.settings.project import valid_table
    from colosseum.loops.inner.records import InnerLoopConfig

    solve, models, budget = (valid_table(project_config, t) for t in ("solve", "models", "budget"))
    leaves = int(solve.get("leaves", 16))
    widths = tuple(int(w) for w in solve.get("widths", (leaves, 8, 5, 1)))
    if widths[0] != leaves:
        widths = (leaves, 8, 5, 1)
    config = InnerLoopConfig(leaves=leaves, refuters_per_candidate=int(solve.get("refuters", 1)), widths=widths,
                             k=int(solve.get("k", 5)), cover_strategies=bool(solve.get("cover_strategies", False)),
                             max_calls=max_calls if max_calls is not None else budget.get("max_calls"))
    return config, models


def open_for_run(path: str):
    """The project's index for a command that asks a model, with the claims Lean checked before
    trusted as formal (from the cache; Lean is not run); None once it said why it cannot open."""
    from colosseum.cli.main import formal_from_cache
    from colosseum.index import ProjectError, ProjectIndex
    from colosseum.project.files import named_root

    part, seen = Path(path), set()
    while part.is_file() and part.resolve() not in seen:  # a part naming its root: that root's project
        seen.add(part.resolve())
        part = named_root(part) or part
    if part.resolve() != Path(path).resolve():
        print(f"colosseum: {path} is part of {os.path.relpath(part)}: reading that project", file=sys.stderr)
        path = part
    try:
        index = ProjectIndex.open(path)
    except ProjectError as exc:
        print(f"colosseum: {exc}", file=sys.stderr)
        return None
    formal_from_cache(index)
    return index


def run_solve(args) -> int:
    import asyncio

    from colosseum.catalog.store import load_catalog
    from colosseum.core.exception_groups import first_leaf
    from colosseum.loops.inner.context import obligation_context
    from colosseum.loops.inner.run_record import RunRecorder, run_directory
    from colosseum.models.errors import BudgetExceeded, BudgetReached
    from colosseum.loops.inner.solve import solve
    from colosseum.cli.knowledge import catalog_directory
    from colosseum.lean.evidence import cached_evidence_section
    from colosseum.models import ProviderError
    from colosseum.models.prompts import load_prompt

    index = open_for_run(args.path)
    if index is None:
        return 2
    config, models = inner_loop_config(index.config, args.max_calls)
    for problem in index.config.problems:
        print(f"colosseum: colosseum.toml: {problem.message} (the default is used)", file=sys.stderr)
    catalog = load_catalog(catalog_directory(Path(args.path).resolve()))
    try:
        context = obligation_context(index, args.label, catalog)
    except KeyError as exc:
        print(f"colosseum: {exc.args[0]}", file=sys.stderr)
        return 2
    planned = config.planned_calls()
    if args.dry_run:
        prefix = sum(len(x) for x in (context.statement, context.assumable, context.notation, context.catalog))
        template = sum(len(load_prompt(r).system_template) for r in ("generator", "refuter", "aggregator")) // 3
        tokens = planned * (prefix + template) // 4
        from colosseum.models.anthropic_provider import DEFAULT_MODEL
        from colosseum.models.pricing import cost_usd
        from colosseum.models.provider import Usage

        model = args.model or models.get("model") or DEFAULT_MODEL
        upper = cost_usd(Usage(input_tokens=tokens, output_tokens=planned * 2000), model, models.get("prices"))
        money = (f"; at most about ${upper:.2f} at {model}'s list price (less with prompt caching)"
                 if upper is not None else f"; no price known for {model} (set [models] prices)")
        print(f"{args.label}: {planned} model calls ({config.leaves} candidates, "
              f"{config.leaves * config.refuters_per_candidate} refutations, {sum(config.widths[1:])} aggregations; "
              f"widths {config.widths}, k = {config.k}); about {tokens:,} input tokens before prompt caching "
              f"and up to ~{planned * 2000:,} output tokens{money}. Nothing was sent.")
        return 0
    from colosseum.models.configured import configured_provider

    try:
        provider, model = configured_provider(models, None if args.no_cache else index.root_dir / ".colosseum" / "cache",
                                              args.model)
    except ProviderError as exc:
        print(f"colosseum: {exc.message}", file=sys.stderr)
        return 2

    def progress(stage: str, done: int, total: int) -> None:
        width = 24
        filled = width * done // max(1, total)
        print(f"\r{stage:28} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end="", file=sys.stderr,
              flush=True)

    recorder = RunRecorder(run_directory(index.root_dir, args.label), args.label, config, model,
                           models.get("prices"), lambda: getattr(provider, "hits", 0), context,
                           cached_evidence_section(index, args.label))
    try:
        result = asyncio.run(solve(context, provider, config, progress, recorder))
    except BudgetExceeded as exc:
        print(f"colosseum: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\ncolosseum: cancelled; what was done is in {recorder.directory}", file=sys.stderr)
        return 130
    except ProviderError as exc:
        print(f"\ncolosseum: the model could not be reached: {exc}", file=sys.stderr)
        return 1
    except ExceptionGroup as group:  # from the task groups: report the first provider failure
        if group.subgroup(lambda e: isinstance(e, BudgetReached)) is not None:
            print(f"\ncolosseum: stopped at the budget ({config.max_calls} calls); what was done is in "
                  f"{recorder.directory}", file=sys.stderr)
            return 1
        first = first_leaf(group, ProviderError)
        if first is None:
            raise
        print(f"\ncolosseum: the model could not be reached: {first}", file=sys.stderr)
        return 1
    print(file=sys.stderr)
    hits = getattr(provider, "hits", 0)
    directory = recorder.directory
    from colosseum.catalog.curator import record_run_outcome

    curated = record_run_outcome(catalog_directory(Path(args.path).resolve()), args.label, context.statement,
                                 result, directory.name, model,
                                 str((directory / "report.md").relative_to(index.root_dir)))
    print(result.root.candidate.proof)
    if curated:
        print(f"\nwritten to the catalog: {', '.join(curated)}")
    print(f"\n{len(result.surviving_critiques)} critique(s) survived:")
    for c in result.surviving_critiques:
        print(f"  {c.severity} {c.kind}: {c.explanation}")
    from colosseum.models.pricing import cost_usd

    cost = cost_usd(result.usage, model, models.get("prices"))
    spent = f", about ${cost:.2f}" if cost is not None else ""
    print(f"\n{result.usage.calls} model calls{spent}, {hits} answers from the cache; run written to "
          f"{directory.relative_to(index.root_dir)}")
    return 0
