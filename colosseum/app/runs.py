"""Reading a run folder back: its status as the record says it, except that a run whose record
still says ``running`` but whose process is gone reads ``abandoned``. A run killed with SIGKILL
cannot write its own end, so the reader decides from the ``pid`` and ``host`` the recorder writes
with every update and the latest ``heartbeat_at``: the record's, or the newer one that
``core.liveness.Heartbeat`` writes every 30 s while the run is alive (``heartbeat.json``)."""

from __future__ import annotations

import json
import os
import socket
from datetime import datetime, timedelta, timezone
from pathlib import Path

from colosseum.core.liveness import HEARTBEAT_INTERVAL_S, read_heartbeat
from colosseum.core.paths import runs_dir

# A run is taken for dead when its heartbeat has missed this many beats: for another host's run (its
# pid cannot be asked), and on this host when the pid it names now belongs to some other process.
STALE_HEARTBEAT = timedelta(seconds=10 * HEARTBEAT_INTERVAL_S)


def read_run(folder: Path) -> dict:
    """The run.json of ``folder`` (empty when missing or unreadable)."""
    try:
        record = json.loads((Path(folder) / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def run_state(folder: Path, now: datetime | None = None) -> str:
    """The status of the run in ``folder``: as recorded, or ``abandoned`` for a ``running`` run that
    nobody is running any more (``missing`` when there is no readable record)."""
    record = read_run(folder)
    status = record.get("status")
    if not isinstance(status, str):
        return "missing"
    if status == "running" and not _alive(record, read_heartbeat(folder), now or datetime.now(timezone.utc)):
        return "abandoned"
    return status


def _alive(record: dict, heartbeat: dict, now: datetime) -> bool:
    pid, host = record.get("pid"), record.get("host")
    if not isinstance(pid, int) or not isinstance(host, str):
        return False  # written before runs named their process: nobody can still be writing it
    if heartbeat.get("pid") != pid or heartbeat.get("host") != host:
        heartbeat = {}  # another process's beat (an earlier life of a resumed run): not this one's
    beats = [t for t in (_parse_time(record.get("heartbeat_at")), _parse_time(heartbeat.get("heartbeat_at"))) if t]
    fresh = bool(beats) and now - max(beats) < STALE_HEARTBEAT
    if host == socket.gethostname():
        # the pid answers; a run that kept a heartbeat and let it go stale is dead even so (its
        # pid reused by another process); one without a heartbeat file is judged by its pid alone
        return _process_exists(pid) and (fresh or not heartbeat)
    return fresh


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process holds that pid: it exists
    except OSError:
        return False
    return True


def _parse_time(text) -> datetime | None:
    try:
        beat = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return beat if beat.tzinfo else beat.replace(tzinfo=timezone.utc)


def runs_by_label(root_dir: Path, labels: list[str], runs, verb: str) -> dict[str, tuple[str, Path]]:
    """The runs to resume, by the label each one recorded: at most one per label, each of ``labels``.
    Maps a label to the run as it was given and its folder; ``verb`` says what the runs did ("solved")."""
    from colosseum.app.refusals import RunRefused

    by_label: dict[str, tuple[str, Path]] = {}
    for run in runs:
        folder = find_run(root_dir, run)
        if folder is None:
            raise RunRefused(f"no run {run!r} to resume")
        label = read_run(folder).get("label")
        if label not in labels:
            raise RunRefused(f"run {folder.name} {verb} {label!r}, which is not among the labels")
        if label in by_label:
            raise RunRefused(f"two runs to resume for {label!r}: {by_label[label][1].name} and {folder.name}")
        by_label[label] = (run, folder)
    return by_label


def find_run(root_dir: Path, run: str) -> Path | None:
    """The run folder named ``run``: a folder under ``.colosseum/runs/`` or a path to one."""
    for folder in (runs_dir(root_dir) / run, Path(run)):
        if (folder / "run.json").is_file():
            return folder.resolve()
    return None
