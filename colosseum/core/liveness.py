"""Who is writing a run's record and when it last made progress: a later command reads these to
tell a run still going from one whose process died (SIGKILL leaves ``status: "running"`` behind).
Every recorder of a run (the inner loop's, research's) stamps its record the same way."""

from __future__ import annotations

import os
import socket
from datetime import datetime, timezone


def process_stamp() -> dict:
    return {"pid": os.getpid(), "host": socket.gethostname(),
            "heartbeat_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
