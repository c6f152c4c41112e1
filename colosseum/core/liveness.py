"""Who is writing a run's record and when it last made progress: a later command reads these to
tell a run still going from one whose process died (SIGKILL leaves ``status: "running"`` behind).
Every recorder of a run (the inner loop's, research's) stamps its record the same way.

A stage can take many minutes (one model call alone may take ``request_timeout_s``), so the
record's own stamp says little about whether its process is still alive. ``Heartbeat`` is a task
that, while a run is alive, rewrites ``heartbeat.json`` in the run folder every ``interval_s``
seconds (30). It writes a file of its own rather than run.json: the recorder rewrites run.json
whole, and two writers of one file would undo each other's updates."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from datetime import datetime, timezone
from pathlib import Path

from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.core.atomic_files import write_atomically

HEARTBEAT_FILE = "heartbeat.json"
HEARTBEAT_INTERVAL_S = 30.0


def process_stamp() -> dict:
    return {"pid": os.getpid(), "host": socket.gethostname(),
            "heartbeat_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def read_heartbeat(folder: Path) -> dict:
    """The last heartbeat written in ``folder`` (empty when none or unreadable)."""
    try:
        beat = json.loads((Path(folder) / HEARTBEAT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return beat if isinstance(beat, dict) else {}


class Heartbeat:
    """``async with Heartbeat(folder):`` around a run: a beat when it starts, then one every
    ``interval_s`` seconds until the block ends. ``sleep`` is replaceable so that a test can count
    beats without waiting for them."""

    def __init__(self, folder: Path, interval_s: float = HEARTBEAT_INTERVAL_S, sleep=asyncio.sleep):
        self.folder, self.interval_s, self._sleep = Path(folder), interval_s, sleep
        self.beats = 0
        self._task: asyncio.Task | None = None

    def beat(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomically(self.folder / HEARTBEAT_FILE, json.dumps({"schema_version": SCHEMA_VERSION, **process_stamp()}))
        self.beats += 1

    async def _beating(self) -> None:
        while True:
            await self._sleep(self.interval_s)
            try:
                self.beat()
            except OSError:
                pass  # a full disk costs the heartbeat, never the run: the record's own stamp remains

    async def __aenter__(self) -> "Heartbeat":
        try:
            self.beat()
        except OSError:
            pass
        self._task = asyncio.get_running_loop().create_task(self._beating())
        return self

    async def __aexit__(self, *exc) -> None:
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass
