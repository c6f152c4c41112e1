"""The final round: the root proof is refuted afresh before it is offered. ``final_refuters``
new refuter calls read the root proof alone; their fatal and major critiques join the survivors
(a merged proof is a new text that no refuter has read). A failed call is recorded, and makes the
verdict "incomplete": unread is not unrefuted. With probes the final refuters run code too (the
run's ``refuter``), and a counterexample one of them finds by execution joins the survivors."""

from __future__ import annotations

import asyncio

from colosseum.loops.inner.records import BLOCKING_SEVERITIES, Bundle, Critique, FinalRefutation
from colosseum.loops.inner.refutation import NO_TOOL, refuter_critiques


def critiques_from(data: dict, proof: str, prefix: str, origin: str) -> list[Critique]:
    """A refuter's answer as critiques of ``proof``, with ids ``prefix.0``, ``prefix.1``, ..."""
    return refuter_critiques(data, proof, "", prefix, origin, [])


async def refute_root(step, root: Bundle, refuters: int, report=lambda stage, done, total: None,
                      refuter=None) -> FinalRefutation:
    """Ask ``refuters`` fresh refuters about the root proof; adds their blocking critiques to
    ``root.critiques`` and returns the record of the round. ``refuter(values, proof, prefix,
    origin)`` makes one call -> (outcome, critiques or None); by default a plain call, no tool."""
    final = FinalRefutation(calls=refuters)
    done = 0

    async def plain(values: dict, proof: str, prefix: str, origin: str):
        outcome = await step.call("refuter", {**values, "probe": NO_TOOL})
        return outcome, critiques_from(outcome.data, proof, prefix, origin) if outcome.ok else None

    async def one(r: int):
        nonlocal done
        answered = await (refuter or plain)({"candidate": root.candidate.proof,
                                             "slot": f"final referee {r + 1} of {refuters}, of the root proof"},
                                            root.candidate.proof, f"F.r{r}", root.id)
        done += 1
        report("final refutation", done, refuters)
        return answered

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(one(r)) for r in range(refuters)]
    for task in tasks:
        outcome, critiques = task.result()
        if critiques is None:
            final.failed.append(outcome.failure)
            continue
        final.critiques += critiques
    root.critiques += [c for c in final.critiques if c.severity in BLOCKING_SEVERITIES]
    return final
