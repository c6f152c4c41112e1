"""The inner loop of the method: diverse candidates, adversarial refutation attached to each,
aggregation by an overlapping random-sampling tree (``../shared/method.md``, "Inner loop").

Its public face, for the loops that run it (research, the retry of a failed local review) and
the adapters: everything else in this package is internal."""

from colosseum.loops.inner.call_plan import describe_calls
from colosseum.loops.inner.context import obligation_context
from colosseum.loops.inner.records import InnerLoopConfig, SolveResult
from colosseum.loops.inner.run_record import RunRecorder, run_directory
from colosseum.loops.inner.solve import ObligationContext, solve

__all__ = ["InnerLoopConfig", "ObligationContext", "RunRecorder", "SolveResult", "describe_calls",
           "obligation_context", "run_directory", "solve"]
