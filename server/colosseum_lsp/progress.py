"""Work-done progress that always ends (``end`` in ``finally``) and can be cancelled."""

from __future__ import annotations

import contextlib
import logging
import uuid

from lsprotocol import types

from colosseum.models.errors import SolveCancelled

log = logging.getLogger(__name__)


class ProgressCancelled(SolveCancelled):
    """The author cancelled the work from the editor."""


def _supported(server) -> bool:
    caps = server.client_capabilities
    return bool(caps and caps.window and caps.window.work_done_progress)


@contextlib.asynccontextmanager
async def work_done(server, title: str, cancellable: bool, cancelled: set[str]):
    """Progress ``title`` around the block, which gets ``report(message, percentage)``; a report
    after the client cancelled (its token in ``cancelled``, the server's set) raises
    ProgressCancelled."""
    token = f"colosseum-{uuid.uuid4().hex[:12]}"
    enabled = _supported(server)
    if enabled:
        try:
            await server.work_done_progress.create_async(token)
            server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=cancellable))
        except Exception as exc:  # a client that refuses progress still gets the work done
            log.info("no progress for %s: %s", title, exc)
            enabled = False

    def report(message: str, percentage: int | None = None) -> None:
        if token in cancelled:
            raise ProgressCancelled(title)
        if enabled:
            server.work_done_progress.report(token, types.WorkDoneProgressReport(message=message, percentage=percentage))

    try:
        yield report
    finally:
        cancelled.discard(token)
        if enabled:
            server.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
