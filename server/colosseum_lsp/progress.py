"""Work-done progress that always ends (``end`` in ``finally``) and can be cancelled."""

from __future__ import annotations

import asyncio
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


class CancelledTokens:
    """The work-done tokens the client asked to cancel, with a wake-up for a run that waits on one."""

    def __init__(self) -> None:
        self._tokens: set[str] = set()
        self._waiting: dict[str, asyncio.Event] = {}

    def add(self, token: str) -> None:
        self._tokens.add(token)
        if token in self._waiting:
            self._waiting[token].set()

    def discard(self, token: str) -> None:
        self._tokens.discard(token)
        self._waiting.pop(token, None)

    def __contains__(self, token: str) -> bool:
        return token in self._tokens

    def event(self, token: str) -> asyncio.Event:
        event = self._waiting.setdefault(token, asyncio.Event())
        if token in self._tokens:
            event.set()
        return event


class ProgressReport:
    """``report(message, percentage)`` inside a progress; raises ProgressCancelled once the client
    cancelled."""

    def __init__(self, server, token: str, title: str, enabled: bool, cancelled: CancelledTokens) -> None:
        self.server, self.token, self.title, self.enabled, self.cancelled = server, token, title, enabled, cancelled

    def __call__(self, message: str, percentage: int | None = None) -> None:
        if self.token in self.cancelled:
            raise ProgressCancelled(self.title)
        if self.enabled:
            self.server.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message, percentage=percentage))

    async def start_after(self, seconds: float) -> bool:
        """Before a run's first model call: the title (with its estimate) stays up for ``seconds``,
        and a cancel meanwhile sends nothing. False when the author cancelled."""
        if self.token in self.cancelled:
            return False
        if seconds <= 0 or not self.enabled:
            return True
        self(f"starting in {seconds:g} s (cancel now and nothing is sent)")
        try:
            await asyncio.wait_for(self.cancelled.event(self.token).wait(), seconds)
        except asyncio.TimeoutError:
            return True
        return False


@contextlib.asynccontextmanager
async def work_done(server, title: str, cancellable: bool, cancelled: CancelledTokens):
    """Progress ``title`` around the block, which gets a ProgressReport; a report after the client
    cancelled (its token in ``cancelled``, the server's) raises ProgressCancelled."""
    token = f"colosseum-{uuid.uuid4().hex[:12]}"
    enabled = _supported(server)
    if enabled:
        try:
            await server.work_done_progress.create_async(token)
            server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=cancellable))
        except Exception as exc:  # a client that refuses progress still gets the work done
            log.info("no progress for %s: %s", title, exc)
            enabled = False
    try:
        yield ProgressReport(server, token, title, enabled, cancelled)
    finally:
        cancelled.discard(token)
        if enabled:
            server.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
