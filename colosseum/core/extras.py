"""The optional parts of an install. A base install (`pip install colosseum-latex`) checks a paper,
prints its DAG and serves an editor; the model providers, the Lean check, probes and the benchmark
plots each need an extra (pyproject.toml's `[project.optional-dependencies]`). Their clients are
imported when first used, so that a base install runs without them, and one that is missing says
which extra brings it instead of ending in a bare ModuleNotFoundError."""

from __future__ import annotations

import importlib
from types import ModuleType

DISTRIBUTION = "colosseum-latex"
# extra -> what needs it, as the subject of the message's sentence
NEEDED_BY = {
    "models": "the model providers need",
    "lean": "the Lean check needs",
    "probe": "probes need",
    "bench": "the benchmark's plots need",
}


class MissingExtra(ImportError):
    """A module of an optional extra is not installed; the message names the extra."""

    def __init__(self, message: str, *, extra: str, module: str):
        super().__init__(message, name=module)
        self.message = message
        self.extra = extra


def missing_extra_message(extra: str) -> str:
    """'the model providers need the extra: pip install 'colosseum-latex[models]''."""
    return f"{NEEDED_BY[extra]} the extra: pip install '{DISTRIBUTION}[{extra}]'"


def import_extra(module: str, extra: str) -> ModuleType:
    """``module``, imported; when it cannot be, a MissingExtra that says which extra to install
    (the original ImportError is its cause)."""
    if extra not in NEEDED_BY:
        raise ValueError(f"unknown extra {extra!r}: one of {', '.join(NEEDED_BY)}")
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(missing_extra_message(extra), extra=extra, module=module) from exc
