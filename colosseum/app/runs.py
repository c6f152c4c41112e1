"""Reading a run folder back: its status as the record says it, except that a run whose record
still says ``running`` but whose process is gone reads ``abandoned``. A run killed with SIGKILL
cannot write its own end, so the reader decides from the ``pid``, ``host`` and ``heartbeat_at``
the recorder writes with every update."""

from __future__ import annotations

import json
import os
import socket
from datetime import datetime, timedelta, timezone
from pathlib import Path

from colosseum.core.paths import runs_dir

# Another host's pid cannot be asked; its run is taken for dead when it has not written for this long.
STALE_HEARTBEAT = timedelta(minutes=10)


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
    if status == "running" and not _alive(record, now or datetime.now(timezone.utc)):
        return "abandoned"
    return status


def _alive(record: dict, now: datetime) -> bool:
    pid, host = record.get("pid"), record.get("host")
    if not isinstance(pid, int) or not isinstance(host, str):
        return False  # written before runs named their process: nobody can still be writing it
    if host == socket.gethostname():
        return _process_exists(pid)
    beat = _parse_time(record.get("heartbeat_at"))
    return beat is not None and now - beat < STALE_HEARTBEAT


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


def find_run(root_dir: Path, run: str) -> Path | None:
    """The run folder named ``run``: a folder under ``.colosseum/runs/`` or a path to one."""
    for folder in (runs_dir(root_dir) / run, Path(run)):
        if (folder / "run.json").is_file():
            return folder.resolve()
    return None
