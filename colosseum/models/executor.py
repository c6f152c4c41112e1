"""Who runs model requests, and what a request comes back as.

- An *interactive* executor answers one request now: every provider (``ModelProvider`` in
  ``provider.py``: Anthropic, OpenAI-compatible, the scripted double, and the wrappers around
  them: the response cache, the meter).
- A *batch* executor takes many requests at once and answers them later (a provider's batch API,
  at a discount): submit, poll, collect. ``anthropic_batch.AnthropicBatchExecutor`` is one;
  ``batching.run_batched`` runs one batch to its outcomes, and ``batching.BatchingProvider`` makes
  the interactive loops send one batch per stage (``--batch``).
- Either way a request comes back as a ``CallOutcome``: an answer, or a failure with its reason.
  A failure is a value: the caller decides whether it ends the run (today's loops raise it) or
  only drops that call (a refutation whose call failed, a batch item that expired).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from colosseum.models.provider import ModelProvider, ModelRequest, ModelResponse, ProviderError, Usage

InteractiveExecutor = ModelProvider


@dataclass(frozen=True)
class CallOutcome:
    """One request's result: ``response`` when it was answered, else ``failure`` (why not) and
    the ``error`` that said so."""

    role: str
    response: ModelResponse | None = None
    failure: str = ""
    error: ProviderError | None = None

    @classmethod
    def answered(cls, role: str, response: ModelResponse) -> "CallOutcome":
        return cls(role, response)

    @classmethod
    def failed(cls, role: str, error: ProviderError) -> "CallOutcome":
        return cls(role, None, str(error), error)

    @property
    def ok(self) -> bool:
        return self.response is not None

    @property
    def data(self) -> dict:
        """The structured answer ({} when the answer had none, or there was no answer)."""
        return (self.response.data or {}) if self.response is not None else {}

    @property
    def usage(self) -> Usage:
        return self.response.usage if self.response is not None else Usage()

    def answer(self) -> dict:
        """The structured answer, or the failure raised: for callers whose run cannot go on
        without this call."""
        if self.error is not None:
            raise self.error
        return self.data


@dataclass(frozen=True)
class BatchStatus:
    batch_id: str
    state: str  # "in_progress" | "ended" | "cancelled" | "expired"
    done: int
    total: int


class BatchExecutor(Protocol):
    """Requests answered later, each under the caller's own id (a bench stage, a run's leaves).
    A run can stop after ``submit`` and continue from the batch id (``--resume``)."""

    name: str

    async def submit(self, requests: Mapping[str, ModelRequest]) -> str:
        """Sends every request; returns the batch id."""
        ...

    async def status(self, batch_id: str) -> BatchStatus: ...

    async def results(self, batch_id: str) -> dict[str, CallOutcome]:
        """Every request's outcome by its id, once the batch has ended (an expired or errored
        request is a failed outcome, never a missing key)."""
        ...

    async def cancel(self, batch_id: str) -> None: ...
