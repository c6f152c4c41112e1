"""``colosseum batches cancel PATH RUN``: cancels at the provider every batch a ``--batch`` run left
running (``batches.json`` in its folder, colosseum.models.batching). A run stopped with Ctrl-C leaves
its batch running so that ``--resume`` can fetch it; this is for when it is not wanted any more (the
batch is billed for what it processed before the cancel). RUN is the folder's name under
``.colosseum/runs/`` (solve, research) or ``.colosseum/bench/`` (bench), or its path (e.g.
``.colosseum/reviews`` for the reviews' batches). A run resumed afterwards asks the cancelled
requests anew.

Exit codes: 0 done (also when every batch had ended already); 1 the batches API could not be
reached; 2 bad input (no such project or run, a run with no batches, no API key)."""

from __future__ import annotations

from pathlib import Path

EXIT_DONE, EXIT_UNREACHABLE, EXIT_USAGE = 0, 1, 2


def add_arguments(sub) -> None:
    batches = sub.add_parser("batches", help="the batches a --batch run left at the provider: cancel them")
    actions = batches.add_subparsers(dest="batches_action", required=True)
    cancel = actions.add_parser("cancel", help="cancel every batch of RUN that has not ended")
    cancel.add_argument("path", help="project directory or its root .tex file")
    cancel.add_argument("run_name", metavar="RUN",
                        help="the run's folder name under .colosseum/runs/ or .colosseum/bench/, or its path")
    cancel.set_defaults(run=run_cancel)


def batches_folder(root_dir: Path, run: str) -> Path | None:
    """The folder of ``run`` that keeps its batches: a run's, a bench's, or a path (None: no such folder)."""
    from colosseum.core.paths import bench_dir, runs_dir

    if run in ("", ".", "..") or "\x00" in run:
        return None
    for folder in (runs_dir(root_dir) / run, bench_dir(root_dir) / run, Path(run)):
        if folder.is_dir():
            return folder.resolve()
    return None


def run_cancel(args) -> int:
    import asyncio

    from colosseum.app.project import ProjectNotOpened, open_plain
    from colosseum.app.run_settings import RunOverrides, RunSettings
    from colosseum.cli.terminal import say
    from colosseum.models import ProviderError
    from colosseum.models.batching import BATCHES_FILE, BatchStore, cancel_batches

    try:
        index = open_plain(args.path)
    except ProjectNotOpened as exc:
        say(str(exc))
        return EXIT_USAGE
    folder = batches_folder(index.root_dir, args.run_name)
    if folder is None:
        say(f"no run {args.run_name!r} in .colosseum/runs/ or .colosseum/bench/ (nothing was cancelled)")
        return EXIT_USAGE
    store = BatchStore(folder)
    stored = store.entries()
    if not stored:
        say(f"{folder} has no {BATCHES_FILE}: it sent no batch (only a --batch run does)")
        return EXIT_USAGE
    try:  # no key, or a provider with no batches: said before any request
        executor, _ = RunSettings.of(index, RunOverrides(batch=True)).batch_executor()
    except ProviderError as exc:
        say(exc.message)
        return EXIT_USAGE
    try:
        cancelled = asyncio.run(cancel_batches(executor, store))
    except ProviderError as exc:
        say(f"the batches could not be cancelled: {exc.message}")
        return EXIT_UNREACHABLE
    ended = len(stored) - len(cancelled)
    if cancelled:
        print(f"cancelled {len(cancelled)} batch(es) of {folder.name}: {', '.join(cancelled)}"
              + (f"; {ended} had ended already" if ended else ""))
    else:
        print(f"nothing to cancel: the {ended} batch(es) of {folder.name} had ended already")
    return EXIT_DONE
