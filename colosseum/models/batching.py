"""One batch per stage, for loops written for an interactive provider (``--batch``).

- ``run_batched(executor, requests, progress)``: submits the requests as one batch (or, resuming,
  finds a batch stored in the run folder with exactly these custom ids and submits nothing), polls
  it with progress until it ends, and gives every request's outcome by its id. Bench calls it
  directly with its stage's requests.
- ``BatchingProvider`` is a ``ModelProvider`` over a batch executor: ``complete()`` parks the
  request; once the event loop has nothing left to run (every task of the stage is waiting on a
  model answer) the parked requests go out as one batch and each waiter gets its outcome. The
  loops are unchanged: a stage whose calls start together is one batch, and a stage that depends
  on earlier answers starts only once they are in, so it is the next batch. The response cache
  wraps this provider, so a cached answer never reaches a batch.
- A request's custom id is its answer-cache key (``response_cache.request_key``), so a rerun of the
  same stage asks under the same ids; identical requests parked together are sent once.
- ``batch_stages(executor, model)``: the same as a stage runner over the caller's own ids.
- ``BatchStore``: the batches of a run (``batches.json`` in the run folder), written atomically
  before the first poll, so an interrupted run resumes by fetching instead of asking again;
  ``SharedBatchStore`` writes each batch into every folder of runs that share one provider.

Polling is bounded (``max_polls``); a batch that has not ended by then fails its requests (the
batch stays stored and ``--resume`` picks it up). Cancelling the task that polls leaves the batch
running at the provider (to be resumed); ``cancel_batches`` cancels it there.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from colosseum.models.executor import BatchStatus, CallOutcome
from colosseum.models.provider import ModelRequest, ModelResponse, ProviderError

BatchProgress = Callable[[BatchStatus], None]
POLL_INTERVAL_S = 30.0  # the API's own advice is to poll sparingly: a batch takes minutes to hours
BATCH_LIFETIME_S = 24 * 3600  # a batch not ended by then has expired
MAX_POLLS = BATCH_LIFETIME_S // int(POLL_INTERVAL_S)
POLL_FAILURES = 5  # failed polls in a row that end the wait
SETTLE_ROUNDS = 3  # loop iterations with nothing runnable and nothing newly parked before a batch goes out
BATCHES_FILE = "batches.json"


class BatchStore:
    """``batches.json`` in a run folder: every batch the run submitted, with its custom ids."""

    def __init__(self, folder: Path | None):
        self.path = Path(folder) / BATCHES_FILE if folder is not None else None

    def entries(self) -> list[dict]:
        if self.path is None:
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        batches = data.get("batches") if isinstance(data, dict) else None
        return [b for b in batches or [] if isinstance(b, dict) and isinstance(b.get("batch_id"), str)]

    def find(self, custom_ids) -> str | None:
        """The newest stored batch whose custom ids are exactly ``custom_ids``, whose results were
        never read (once read, its answers are in the answer cache, and its failures are to be
        asked again, not read again) and that was not cancelled (``batches cancel``: its requests
        are asked anew, rather than read back as cancelled)."""
        wanted = sorted(custom_ids)
        for entry in reversed(self.entries()):
            if sorted(entry.get("custom_ids") or []) == wanted and not _done_with(entry):
                return entry["batch_id"]
        return None

    def record(self, batch_id: str, custom_ids, executor: str) -> None:
        self._write(self.entries() + [{"batch_id": batch_id, "executor": executor, "custom_ids": sorted(custom_ids),
                                       "submitted_at": _now()}])

    def mark_fetched(self, batch_id: str) -> None:
        self._write([{**e, "fetched_at": _now()} if e["batch_id"] == batch_id else e for e in self.entries()])

    def mark_cancelled(self, batch_id: str) -> None:
        self._write([{**e, "cancelled_at": _now()} if e["batch_id"] == batch_id else e for e in self.entries()])

    def _write(self, entries: list[dict]) -> None:
        if self.path is None:
            return
        from colosseum.core.atomic_files import write_atomically

        write_atomically(self.path, json.dumps({"batches": entries}, indent=2))


class SharedBatchStore:
    """The batches of several runs that share one ``BatchingProvider`` (``solve --labels --batch``):
    every batch is written into each run's ``batches.json`` with all its custom ids, and is found in
    any of them, so resuming those runs together fetches a batch submitted before the stop."""

    def __init__(self, folders):
        self.stores = [BatchStore(folder) for folder in folders]

    def entries(self) -> list[dict]:
        seen: dict[str, dict] = {}
        for store in self.stores:
            for entry in store.entries():
                known = seen.get(entry["batch_id"])
                if known is None or (_done_with(entry) and not _done_with(known)):
                    seen[entry["batch_id"]] = entry
        return list(seen.values())

    def find(self, custom_ids) -> str | None:
        fetched = {e["batch_id"] for store in self.stores for e in store.entries() if _done_with(e)}
        for store in self.stores:
            found = store.find(custom_ids)
            if found is not None and found not in fetched:
                return found
        return None

    def record(self, batch_id: str, custom_ids, executor: str) -> None:
        for store in self.stores:
            store.record(batch_id, custom_ids, executor)

    def mark_fetched(self, batch_id: str) -> None:
        for store in self.stores:
            store.mark_fetched(batch_id)

    def mark_cancelled(self, batch_id: str) -> None:
        for store in self.stores:
            store.mark_cancelled(batch_id)


def _done_with(entry: dict) -> bool:
    """A stored batch not to be fetched again: its results were read, or it was cancelled."""
    return bool(entry.get("fetched_at") or entry.get("cancelled_at"))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Polling:
    interval_s: float = POLL_INTERVAL_S
    max_polls: int = MAX_POLLS
    sleep: Callable = asyncio.sleep


def polling_every(interval_s: float) -> Polling:
    """Polls ``interval_s`` apart for a batch's lifetime (``MAX_POLLS`` of them when 0: a test's double)."""
    return Polling(interval_s, int(BATCH_LIFETIME_S // interval_s) + 1 if interval_s > 0 else MAX_POLLS)


async def run_batched(executor, requests: Mapping[str, ModelRequest], progress: BatchProgress | None = None, *,
                      store: BatchStore | None = None, polling: Polling | None = None) -> dict[str, CallOutcome]:
    """Every request's outcome by its custom id, through one batch (resumed from ``store`` when it
    holds a batch of exactly these ids). A failure of the batches API itself fails every request."""
    polling = polling or Polling()
    store = store or BatchStore(None)
    requests = dict(requests)
    if not requests:
        return {}
    try:
        batch_id, status = await _stored_batch(executor, requests, store)
        if batch_id is None:
            batch_id = await executor.submit(requests)
            store.record(batch_id, requests, executor.name)  # before polling: a stop now can resume
        status = await _poll(executor, batch_id, progress, polling, status)
        if status.state != "ended":
            late = f"batch {batch_id} did not end after {polling.max_polls} polls; resume the run later"
            return _all_failed(requests, ProviderError(executor.name, late))
        outcomes = await executor.results(batch_id)
        store.mark_fetched(batch_id)
    except ProviderError as error:
        return _all_failed(requests, error)
    return {key: outcomes.get(key) or CallOutcome.failed(request.role, ProviderError(
        executor.name, f"batch {batch_id} gave no outcome for {key}")) for key, request in requests.items()}


async def _stored_batch(executor, requests: dict, store: BatchStore) -> tuple[str | None, BatchStatus | None]:
    """The stored batch of exactly these requests and its status; (None, None) when there is none,
    or the API no longer knows it (it is then marked read, and the requests are submitted anew)."""
    batch_id = store.find(requests)
    if batch_id is None:
        return None, None
    if hasattr(executor, "adopt"):
        executor.adopt(batch_id, requests)
    try:
        return batch_id, await executor.status(batch_id)
    except ProviderError as error:
        if error.status != 404:
            raise
        store.mark_fetched(batch_id)
        return None, None


async def _poll(executor, batch_id: str, progress: BatchProgress | None, polling: Polling,
                status: BatchStatus | None = None) -> BatchStatus:
    """Polls until the batch ends or ``max_polls`` are spent; up to ``POLL_FAILURES`` polls in a
    row may fail (a dropped connection, an overloaded API) before the failure is the batch's."""
    failures = 0
    for _ in range(polling.max_polls):
        if status is None:
            try:
                status = await executor.status(batch_id)
                failures = 0
            except ProviderError:
                failures += 1
                if failures >= POLL_FAILURES:
                    raise
                await polling.sleep(polling.interval_s)
                continue
        if progress is not None:
            progress(status)
        if status.state == "ended":
            return status
        await polling.sleep(polling.interval_s)
        status = None
    return status or BatchStatus(batch_id, "in_progress", 0, 0)


def batch_stages(executor, model: str, *, store: BatchStore | None = None, progress: BatchProgress | None = None,
                 polling: Polling | None = None):
    """A stage runner, ``(stage, {id: request}) -> {id: outcome}``, that sends each stage as one
    batch: the caller's ids may be anything (``direct/lem:x``); each request goes under its
    answer-cache key as custom id (identical requests are sent once) and comes back under the
    caller's id. It does not consult the answer cache: put the cached provider in front of a
    ``BatchingProvider`` for that (what ``--batch`` does)."""
    from colosseum.models.response_cache import request_key

    async def run_stage(stage: str, requests: Mapping[str, ModelRequest]) -> dict[str, CallOutcome]:
        keys = {caller_id: request_key(executor.name, model, request) for caller_id, request in requests.items()}
        unique = {keys[caller_id]: request for caller_id, request in requests.items()}
        outcomes = await run_batched(executor, unique, progress, store=store, polling=polling)
        return {caller_id: outcomes[key] for caller_id, key in keys.items()}

    return run_stage


def _all_failed(requests: Mapping[str, ModelRequest], error: ProviderError) -> dict[str, CallOutcome]:
    return {key: CallOutcome.failed(request.role, error) for key, request in requests.items()}


async def cancel_batches(executor, store: BatchStore) -> list[str]:
    """Cancels every batch the run folder names at the provider (an ended one is left as it is), and
    marks it so in the folder: a resumed run asks its requests anew instead of reading them back
    as cancelled."""
    cancelled = []
    for entry in store.entries():
        if (await executor.status(entry["batch_id"])).state != "ended":
            await executor.cancel(entry["batch_id"])
            store.mark_cancelled(entry["batch_id"])
            cancelled.append(entry["batch_id"])
    return cancelled


def batching_of(provider) -> "BatchingProvider | None":
    """The BatchingProvider under ``provider``'s wrappers (the answer cache, the meter), or None."""
    for _ in range(8):  # wrappers nest a few deep at most
        if isinstance(provider, BatchingProvider):
            return provider
        provider = provider.__dict__.get("inner") if hasattr(provider, "__dict__") else None
        if provider is None:
            return None
    return None


@dataclass
class _Parked:
    request: ModelRequest
    waiters: list[asyncio.Future] = field(default_factory=list)


class BatchingProvider:
    """A ``ModelProvider`` whose calls wait for the stage's batch (see the module docstring).
    ``name`` and ``model`` are the interactive provider's, so the answer cache is shared with
    interactive runs. ``batches`` counts the batches it sent; ``progress`` (settable) hears every
    poll. Tools (probes) are not offered: a batch has no tool-use loop."""

    exact_token_counts = True
    supports_tools = False

    def __init__(self, executor, model: str, *, store: BatchStore | None = None, polling: Polling | None = None,
                 counter=None):
        self.executor = executor
        self.name = executor.name
        self.model = model
        self.store = store or BatchStore(None)
        self.polling = polling or Polling()
        self.progress: BatchProgress | None = None
        self.batches: list[list[str]] = []  # per batch sent (or resumed): its custom ids
        self._counter = counter  # the interactive provider's token counter (a count is no call)
        self._parked: dict[str, _Parked] = {}
        self._collector: asyncio.Task | None = None
        self._in_flight: dict[str, _Parked] = {}

    async def count_tokens(self, request: ModelRequest) -> int:
        if self._counter is None:
            from colosseum.models.provider import estimate_tokens

            return estimate_tokens(request)
        return await self._counter(request)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        from colosseum.models.response_cache import request_key

        key = request_key(self.name, self.model, request)
        waiter = asyncio.get_running_loop().create_future()
        self._parked.setdefault(key, _Parked(request)).waiters.append(waiter)
        if self._collector is None or self._collector.done():
            self._collector = asyncio.get_running_loop().create_task(self._collect())
        try:
            outcome: CallOutcome = await waiter
        except asyncio.CancelledError:
            self._stop_when_nobody_waits()
            raise
        if outcome.error is not None:
            raise outcome.error
        return outcome.response

    def _stop_when_nobody_waits(self) -> None:
        """A stage whose every waiter was cancelled (the run was stopped) stops polling; its batch
        stays stored in the run folder for ``--resume``."""
        pending = [w for p in (*self._parked.values(), *self._in_flight.values()) for w in p.waiters]
        if self._collector is not None and all(w.done() for w in pending):
            self._collector.cancel()

    async def _collect(self) -> None:
        """Waits for the stage to settle, then sends everything parked as one batch; again while
        requests parked meanwhile (a branch of the run that did not wait on this batch)."""
        while self._parked:
            await _settled(lambda: len(self._parked))
            parked, self._parked = self._parked, {}
            waiting = {key: p for key, p in parked.items() if any(not w.done() for w in p.waiters)}
            if waiting:
                await self._send(waiting)

    async def _send(self, waiting: dict[str, _Parked]) -> None:
        self.batches.append(sorted(waiting))
        self._in_flight = waiting
        try:
            outcomes = await run_batched(self.executor, {k: p.request for k, p in waiting.items()}, self.progress,
                                         store=self.store, polling=self.polling)
        except BaseException as exc:  # cancelled: the waiters end with it (the batch stays stored)
            for p in waiting.values():
                for w in p.waiters:
                    if not w.done():
                        w.cancel() if isinstance(exc, asyncio.CancelledError) else w.set_exception(exc)
            raise
        finally:
            self._in_flight = {}
        for key, p in waiting.items():
            for w in p.waiters:
                if not w.done():
                    w.set_result(outcomes[key])


# per event loop: how many collectors are waiting for it to settle right now. Each one's own
# ``sleep(0)`` wake-up sits in the ready queue while another looks, so a loop holding nothing but
# those is quiet; without counting them two BatchingProviders in one loop (research --select-with
# --batch) would keep each other busy forever
_SETTLING: dict[int, int] = {}


async def _settled(parked_count: Callable[[], int]) -> None:
    """Returns once the event loop has had nothing to run but the other collectors' wake-ups, and
    nothing new was parked, for ``SETTLE_ROUNDS`` iterations in a row: every task of the stage is
    then waiting on an answer. The default loop's ready queue says what is runnable; a loop that
    hides it is given more rounds."""
    loop = asyncio.get_running_loop()
    ready = getattr(loop, "_ready", None)
    rounds = SETTLE_ROUNDS if ready is not None else SETTLE_ROUNDS * 20
    key = id(loop)
    _SETTLING[key] = _SETTLING.get(key, 0) + 1
    try:
        quiet = 0
        while quiet < rounds:
            before = parked_count()
            await asyncio.sleep(0)
            idle = ready is None or len(ready) <= _SETTLING[key] - 1
            quiet = quiet + 1 if parked_count() == before and idle else 0
    finally:
        _SETTLING[key] -= 1
        if not _SETTLING[key]:
            del _SETTLING[key]
