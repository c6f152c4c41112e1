"""What every command writes to the terminal: its messages and progress bar on stderr, and the
project opened through the application layer."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from colosseum.core.schema_version import SCHEMA_VERSION


def print_json(data: dict) -> None:
    """One JSON object on stdout, ``schema_version`` first: every ``--format json`` output goes
    through here, so a reader can tell which shape it reads."""
    import json  # only for --format json: a text report starts without it

    print(json.dumps({"schema_version": SCHEMA_VERSION, **data}, indent=2, ensure_ascii=False))


def say(message: str) -> None:
    print(f"colosseum: {message}", file=sys.stderr)


def price_phrase(upper_cost_usd: float | None, model: str, scope: str = "", batch: bool = False) -> str:
    """What a dry run says of the money: the upper bound at the model's list price (``batch``: at
    the batch price, half of it), or that no price is known (``scope`` says what the bound covers,
    e.g. " for the typical run")."""
    if upper_cost_usd is None:
        return f"; no price known for {model} (set [models] prices)"
    price = f"the batch price (half of {model}'s list price)" if batch else f"{model}'s list price"
    return f"; at most about ${upper_cost_usd:.2f} at {price}{scope} (less with prompt caching)"


def print_cache_reuse(settings) -> None:
    """A dry run's line on the answer cache (how many answers are reused, how many a change of
    prompts made useless), printed only when there is a cache to speak of."""
    line = settings.cache_reuse()
    if line:
        print(line)


def say_stale_answers(root_dir, args) -> None:
    """Before a run's first call: how many cached answers a change of prompts made useless."""
    if getattr(args, "quiet", False) or getattr(args, "no_cache", False):
        return
    from colosseum.app.cache import stale_line

    line = stale_line(root_dir)
    if line:
        say(line)


def openable(path) -> str:
    """``path`` as the user can open it from where the command runs: relative to the working folder
    when it is inside it, else absolute (a path relative to the project is not, run from elsewhere)."""
    path = Path(path).resolve()
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or fake stream is no terminal
        return False


def _clock(seconds: float) -> str:
    """mm:ss, or h:mm:ss from an hour on."""
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


class Progress:
    """The progress line: on stderr, and only when stderr is a terminal (a log, a pipe or a CI job
    gets none of it); redrawn in place with the time spent and, once something is done, the time
    left at the pace so far; ``finish`` clears the line, so what follows starts on a clean one.

    Called as ``progress(stage, done, total)`` (the runs' ``StageProgress``); ``show(text)`` draws
    a line a run words itself (research, Lean)."""

    BAR_WIDTH = 24

    def __init__(self, stream=None, enabled: bool | None = None, clock=time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = is_terminal(self.stream) if enabled is None else enabled
        self.clock = clock
        self.started = self.stage_started = None
        self.stage: str | None = None
        self.last_done = 0
        self.drawn = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = self._now()
        if stage != self.stage or done < self.last_done:  # a new stage: its pace starts again
            self.stage, self.stage_started = stage, now
        self.last_done = done
        filled = self.BAR_WIDTH * min(done, total) // max(1, total)
        bar = "#" * filled + "." * (self.BAR_WIDTH - filled)
        self.show(f"{stage:24} ", eta=self._eta(now, done, total), tail=f"[{bar}] {done}/{total}", now=now)

    def _now(self) -> float:
        now = self.clock()
        if self.started is None:
            self.started = now
        return now

    def _eta(self, now: float, done: int, total: int) -> str:
        if done <= 0 or done >= total:
            return ""
        return _clock((now - self.stage_started) / done * (total - done))

    def show(self, text: str, eta: str = "", tail: str = "", now: float | None = None) -> None:
        """Draws ``text`` (cut to fit), then ``tail`` whole, then the times."""
        if not self.enabled:
            return
        now = self._now() if now is None else now
        times = f" {_clock(now - self.started)} elapsed" + (f", ETA {eta}" if eta else "")
        # one screen line at most: a line that wraps could not be cleared in place
        room = max(0, _columns(self.stream) - 1 - len(times) - len(tail))
        self.stream.write("\r\x1b[K" + text[:room] + tail + times)
        self.stream.flush()
        self.drawn = True

    def finish(self) -> None:
        """Clears the line (if one was drawn): the run's report starts at the line's beginning."""
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


def _columns(stream) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, OSError, ValueError):
        return 80


def add_quiet_argument(parser) -> None:
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress line and no messages on stderr beyond the reason for a failure")


def add_batch_argument(parser) -> None:
    parser.add_argument("--batch", action="store_true",
                        help="send each stage's calls as one batch through Anthropic's Message Batches API, at half "
                             "the price, and wait for it (probes are off; with --resume a submitted batch is fetched, "
                             "not sent again)")


def show_batch_progress(provider, progress: "Progress") -> None:
    """A batch run's polls drawn on the progress line (nothing for an interactive provider)."""
    from colosseum.models.batching import batching_of

    batching = batching_of(provider)
    if batching is not None:
        batching.progress = lambda status: progress(f"batch {status.batch_id[-12:]}", status.done, status.total)


def progress_for(args) -> Progress:
    """The progress line of a run: none under --quiet."""
    return Progress(enabled=False) if getattr(args, "quiet", False) else Progress()


def open_project(path: str, for_edits: bool = True):
    """The project's index for a command that asks a model, or None once it said why it cannot open.
    ``for_edits=False``: for a command that reports and exits (ProjectIndex.open)."""
    from colosseum.app.project import ProjectNotOpened, open_for_run

    try:
        return open_for_run(path, say, for_edits)
    except ProjectNotOpened as exc:
        say(str(exc))
        return None
