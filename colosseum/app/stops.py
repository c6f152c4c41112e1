"""Why a model-backed run stopped before its end, as one value. A run's task groups nest their
failures in exception groups; a terminal stops it with Ctrl-C and an editor by cancelling its
progress: each becomes one StopReason here, so both adapters explain a stop the same way."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Awaitable, Callable, Literal, TypeVar

from colosseum.app.refusals import RunRefused
from colosseum.core.exception_groups import first_leaf
from colosseum.loops.review.local_review import NothingToReview
from colosseum.models.errors import BudgetExceeded, BudgetReached, RunIncomplete, SolveCancelled
from colosseum.models.provider import ProviderError

StopKind = Literal["cancelled", "budget-exceeded", "budget-reached", "incomplete", "model-unreachable", "refused"]
Outcome = TypeVar("Outcome")


@dataclass(frozen=True)
class StopReason:
    """``kind`` says which stop; ``detail`` is the failure's own message."""

    kind: StopKind
    detail: str = ""

    @property
    def cancelled(self) -> bool:
        return self.kind == "cancelled"


# checked in this order: a cancellation explains the other failures of its group
_KINDS: tuple[tuple[StopKind, tuple[type[BaseException], ...]], ...] = (
    ("cancelled", (KeyboardInterrupt, SolveCancelled)),
    ("refused", (RunRefused, NothingToReview)),
    ("budget-exceeded", (BudgetExceeded,)),
    ("budget-reached", (BudgetReached,)),
    ("incomplete", (RunIncomplete,)),
    ("model-unreachable", (ProviderError,)),
)


def stop_reason(exc: BaseException) -> StopReason | None:
    """The stop ``exc`` (an exception group or not) stands for; None when it is a bug to raise."""
    for kind, types in _KINDS:
        leaf = first_leaf(exc, types)
        if leaf is not None:
            return StopReason(kind, str(leaf))
    return None


async def until_stopped(work: Awaitable[Outcome], stopped: Callable[[StopReason], Outcome]) -> Outcome:
    """``work``'s outcome, or ``stopped(reason)`` when it stops early; a task cancelled from
    outside (the editor cancelled the request) stays cancelled, and anything else is raised."""
    try:
        return await work
    except asyncio.CancelledError:
        raise
    except BaseException as exc:
        reason = stop_reason(exc)
        if reason is None:
            raise
        return stopped(reason)


def run_in_terminal(work: Callable[[], Awaitable[Outcome]], stopped: Callable[[StopReason], Outcome]) -> Outcome:
    """Run ``work`` to its outcome in a new event loop; Ctrl-C is a cancellation like any other."""
    try:
        return asyncio.run(until_stopped(work(), stopped))
    except KeyboardInterrupt as exc:
        return stopped(stop_reason(exc))
