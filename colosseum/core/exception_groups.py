"""The failures inside an exception group: a run's task groups nest them, and a command reports
the first of the kind it explains (the budget, a cancellation, the model unreachable)."""

from __future__ import annotations

from typing import Iterator


def leaves(exc: BaseException) -> Iterator[BaseException]:
    """Every exception in ``exc`` that is not itself a group, depth first; ``exc`` alone when it is
    not a group."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from leaves(inner)
    else:
        yield exc


def first_leaf(exc: BaseException, kinds) -> BaseException | None:
    """The first exception in ``exc`` (a group or not) that is an instance of ``kinds``."""
    return next((e for e in leaves(exc) if isinstance(e, kinds)), None)
