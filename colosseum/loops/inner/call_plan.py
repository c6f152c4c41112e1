"""What a run of the inner loop will ask, in calls, for the dry runs and the budget: the planned
calls (no aggregator claims a resolution) and the most it can make (one resolution check per
aggregator)."""

from __future__ import annotations

from colosseum.loops.inner.records import InnerLoopConfig


def describe_calls(config: InnerLoopConfig) -> str:
    """"N model calls planned, at most M (1 angle plan, 16 candidates, ...)": the dry run's sentence head."""
    aggregators = sum(config.widths[1:])
    parts = ([f"{int(config.plan_angles)} angle plan"] if config.plan_angles else []) + [
        f"{config.leaves} candidates", f"{config.leaves * config.refuters_per_candidate} refutations",
        f"{aggregators} aggregations", f"up to {aggregators} resolution checks",
        f"{config.final_refuters} final refutations of the root"]
    return (f"{config.planned_calls()} model calls planned, at most {config.maximum_calls()} ({', '.join(parts)}; "
            f"widths {config.widths}, k = {config.k})")
