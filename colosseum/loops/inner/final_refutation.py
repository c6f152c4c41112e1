"""The final round: the root proof is refuted afresh before it is offered. ``final_refuters``
new refuter calls read the root proof alone; their fatal and major critiques join the survivors
(a merged proof is a new text that no refuter has read). A failed call is recorded, and makes the
verdict "incomplete": unread is not unrefuted."""

from __future__ import annotations

import asyncio

from colosseum.loops.inner.records import BLOCKING_SEVERITIES, Bundle, Critique, FinalRefutation


def critiques_from(data: dict, proof: str, prefix: str, origin: str) -> list[Critique]:
    """A refuter's answer as critiques of ``proof``, with ids ``prefix.0``, ``prefix.1``, ..."""
    from colosseum.loops.inner.solve import anchored  # here, not at the top: solve.py imports this module

    return [Critique(f"{prefix}.{j}", c.get("severity", "major"), c.get("kind", "other"), c.get("quote", ""),
                     c.get("explanation", ""), c.get("repair", ""), anchored(c.get("quote", ""), proof), origin)
            for j, c in enumerate((data or {}).get("critiques", []) or [])]


async def refute_root(step, root: Bundle, refuters: int, report=lambda stage, done, total: None) -> FinalRefutation:
    """Ask ``refuters`` fresh refuters about the root proof; adds their blocking critiques to
    ``root.critiques`` and returns the record of the round."""
    final = FinalRefutation(calls=refuters)
    done = 0

    async def one(r: int):
        nonlocal done
        outcome = await step.call("refuter", {"candidate": root.candidate.proof,
                                              "slot": f"final referee {r + 1} of {refuters}, of the root proof"})
        done += 1
        report("final refutation", done, refuters)
        return outcome

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(one(r)) for r in range(refuters)]
    for r, task in enumerate(tasks):
        outcome = task.result()
        if not outcome.ok:
            final.failed.append(outcome.failure)
            continue
        final.critiques += critiques_from(outcome.data, root.candidate.proof, f"F.r{r}", root.id)
    root.critiques += [c for c in final.critiques if c.severity in BLOCKING_SEVERITIES]
    return final
