"""How a model-backed run stops early. Every loop (inner loop, review, research) and both adapters
(the CLI and the server) share these, so none of them imports another loop for its errors."""


class BudgetExceeded(RuntimeError):
    """The planned run would exceed the budget: it does not start."""


class SolveCancelled(Exception):
    """Raised (from a progress callback) to stop a run at the author's request."""


class BudgetReached(RuntimeError):
    """The budget ran out during the run: it stopped starting new calls (the record keeps what it did)."""


class RunIncomplete(RuntimeError):
    """Too few candidates survived their failed calls to go on: the run is ``incomplete`` (its
    record keeps what it did and what was dropped)."""
