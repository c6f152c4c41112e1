"""Claude through Anthropic's Message Batches API (``client.messages.batches``): a ``BatchExecutor``.

- ``submit`` sends every request as ``{"custom_id", "params"}`` with the same parameters an
  interactive call would send (the answer tool, the cached system prefix), returns the batch id.
- ``status`` reads ``processing_status`` and ``request_counts``: ``ended`` once every request has
  succeeded, errored, been canceled or expired.
- ``results`` reads the results file (JSONL, one line per request, in no set order) and gives an
  outcome for every id it was asked: an errored, canceled or expired item, an item the file does
  not name, or a structured answer that does not fit its schema is a failed outcome (a batch has no
  second turn to repair one in).
- ``cancel`` asks the API to cancel; requests not yet processed end as ``canceled``.

The executor remembers the requests it submitted (their schemas read the answers); a resumed run
hands them back with ``adopt`` before it reads an older batch's results.
"""

from __future__ import annotations

from collections.abc import Mapping

from colosseum.models.executor import BatchStatus, CallOutcome
from colosseum.models.provider import ModelRequest, ModelResponse, ProviderError

NAME = "anthropic"
ENDED_STATES = frozenset(("ended",))


class AnthropicBatchExecutor:
    name = NAME

    def __init__(self, model: str, *, api_key: str | None = None, base_url: str | None = None, client=None):
        from colosseum.models.anthropic_provider import anthropic_client

        self.model = model
        if client is None:
            client = anthropic_client(self.name, api_key, base_url, max_retries=2)
        self._client = client
        # the arguments of a request are the interactive provider's: one place decides them
        from colosseum.models.anthropic_provider import AnthropicProvider

        self._shape = AnthropicProvider(model, client=client)
        self._requests: dict[str, dict[str, ModelRequest]] = {}

    def adopt(self, batch_id: str, requests: Mapping[str, ModelRequest]) -> None:
        """The requests of a batch submitted by an earlier process (a resumed run)."""
        self._requests[batch_id] = dict(requests)

    async def submit(self, requests: Mapping[str, ModelRequest]) -> str:
        from colosseum.models.anthropic_provider import _messages

        items = [{"custom_id": custom_id, "params": self._shape._arguments(request, _messages(request))}
                 for custom_id, request in requests.items()]
        batch = await self._api(lambda: self._client.messages.batches.create(requests=items))
        self._requests[batch.id] = dict(requests)
        return batch.id

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._api(lambda: self._client.messages.batches.retrieve(batch_id))
        counts = batch.request_counts
        total = counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired
        state = "ended" if batch.processing_status in ENDED_STATES else batch.processing_status
        return BatchStatus(batch.id, state, total - counts.processing, total)

    async def results(self, batch_id: str) -> dict[str, CallOutcome]:
        requests = self._requests.get(batch_id, {})
        outcomes: dict[str, CallOutcome] = {}
        for line in await self._api(lambda: self._lines(batch_id)):
            request = requests.get(line.custom_id)
            if request is not None:
                outcomes[line.custom_id] = self._outcome(request, line.result, batch_id)
        for custom_id, request in requests.items():  # never a missing key
            outcomes.setdefault(custom_id, CallOutcome.failed(request.role, ProviderError(
                self.name, f"batch {batch_id} has no result for {custom_id}")))
        return outcomes

    async def _lines(self, batch_id: str) -> list:
        """The results file read to its end (a transport failure midway is the API's failure too)."""
        return [line async for line in await self._client.messages.batches.results(batch_id)]

    async def cancel(self, batch_id: str) -> None:
        await self._api(lambda: self._client.messages.batches.cancel(batch_id))

    def _outcome(self, request: ModelRequest, result, batch_id: str) -> CallOutcome:
        from colosseum.models.anthropic_provider import _structured, _text_of, _usage

        kind = getattr(result, "type", "")
        if kind != "succeeded":
            return CallOutcome.failed(request.role, ProviderError(self.name, _why_not(result, batch_id),
                                                                  details={"batch": batch_id, "result": kind}))
        message = result.message
        usage = _usage(message)
        text = _text_of(message)
        if request.schema is None:
            return CallOutcome.answered(request.role, ModelResponse(text, None, usage, message.model,
                                                                    message.stop_reason))
        data, problem = _structured(message, request.schema)
        if problem is not None:
            return CallOutcome.failed(request.role, ProviderError(
                self.name, f"malformed structured answer in batch {batch_id} (no repair in a batch): {problem}",
                details={"answer": text[:2000]}))
        return CallOutcome.answered(request.role, ModelResponse(text, data, usage, message.model, message.stop_reason))

    async def _api(self, call):
        """One call of the batches API; its failure as a ProviderError (the run decides what it ends)."""
        import anthropic

        from colosseum.models.anthropic_provider import _transport_errors

        silences, broken = _transport_errors()
        try:
            return await call()
        except anthropic.APIStatusError as exc:
            from colosseum.models.anthropic_provider import _error_message

            raise ProviderError(self.name, f"batches API: {_error_message(exc)}", status=exc.status_code,
                                request_id=getattr(exc, "request_id", None)) from exc
        except (anthropic.AnthropicError, *silences, *broken) as exc:
            raise ProviderError(self.name, f"batches API: {exc}", retryable=True) from exc


def _why_not(result, batch_id: str) -> str:
    kind = getattr(result, "type", "unknown")
    if kind == "errored":
        error = getattr(getattr(result, "error", None), "error", None)
        detail = f"{getattr(error, 'type', 'error')}: {getattr(error, 'message', '')}" if error else "errored"
        return f"batch item errored ({detail})"
    if kind == "expired":
        return f"batch item expired before it was processed (batch {batch_id})"
    if kind == "canceled":
        return f"batch item canceled (batch {batch_id})"
    return f"batch item ended as {kind!r} (batch {batch_id})"
