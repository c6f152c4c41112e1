"""``colosseum cache stats [PATH] [--format text|json]`` and ``colosseum cache prune [PATH]
[--stale|--all]``: the project's answer cache (``.colosseum/cache/``): how many answers, their size,
by role and prompt version, how many the current prompts can never ask for again; and removing
those (``--stale``, the default) or every answer (``--all``).

Exit codes: 0 done; 2 bad input (no such folder)."""

from __future__ import annotations

from pathlib import Path

EXIT_USAGE = 2


def add_arguments(sub) -> None:
    cache = sub.add_parser("cache", help="the answer cache: stats, and pruning stale answers")
    actions = cache.add_subparsers(dest="cache_action", required=True)
    stats = actions.add_parser("stats", help="entries, size, by role and prompt version, how many are stale")
    stats.add_argument("path", nargs="?", default=".", help="project directory or its root .tex file (default: .)")
    stats.add_argument("--format", choices=("text", "json"), default="text")
    stats.set_defaults(run=run_stats)
    prune = actions.add_parser("prune", help="remove stale answers (--stale, the default) or all (--all)")
    prune.add_argument("path", nargs="?", default=".", help="project directory or its root .tex file (default: .)")
    which = prune.add_mutually_exclusive_group()
    which.add_argument("--stale", action="store_true", help="answers the current prompts can never ask for (default)")
    which.add_argument("--all", action="store_true", help="every cached answer")
    prune.set_defaults(run=run_prune)


def _project_dir(arg: str) -> Path | None:
    path = Path(arg)
    folder = path.parent if path.is_file() else path
    return folder.resolve() if folder.is_dir() else None


def run_stats(args) -> int:
    from colosseum.app.cache import cache_stats
    from colosseum.cli.terminal import print_json, say

    folder = _project_dir(args.path)
    if folder is None:
        say(f"no such folder: {args.path}")
        return EXIT_USAGE
    stats = cache_stats(folder)
    if args.format == "json":
        print_json(stats.to_json())
        return 0
    print(f"{stats.entries} cached answers, {stats.size_bytes:,} bytes in {stats.directory}")
    print(f"{stats.stale} stale (written for older prompts or formats), {stats.unversioned} unversioned")
    for role, versions in sorted(stats.by_role.items()):
        shown = ", ".join(f"{'v' + v if v.isdigit() else v}: {n}" for v, n in sorted(versions.items()))
        print(f"  {role}: {shown}")
    return 0


def run_prune(args) -> int:
    from colosseum.app.cache import prune_cache
    from colosseum.cli.terminal import say

    folder = _project_dir(args.path)
    if folder is None:
        say(f"no such folder: {args.path}")
        return EXIT_USAGE
    pruned = prune_cache(folder, everything=args.all)
    print(f"removed {pruned.removed} cached answer{'s' if pruned.removed != 1 else ''} "
          f"({pruned.freed_bytes:,} bytes); {pruned.kept} kept")
    return 0
