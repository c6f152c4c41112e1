"""Prover angles from the problem: one ``angle_planner`` call reads the claim (its statement, the
assumable results, the notation, the catalog) and gives distinct angles of attack, so the leaves
differ in ways that matter for this claim rather than by a fixed list. When the call fails or gives
fewer than two distinct angles, the fixed list is used and the run record says why."""

from __future__ import annotations

import re

from colosseum.loops.inner.records import AnglePlan, InnerLoopConfig

MAX_PLANNED_ANGLES = 16  # more leaves than this reuse the planned angles in turn
MIN_PLANNED_ANGLES = 2  # fewer distinct angles than this is no plan: the fixed list is used


def _key(angle: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", angle.lower()).strip()


def distinct_angles(data: dict) -> tuple[str, ...]:
    """The planner's angles, each once (compared without case and punctuation), empty ones left out."""
    seen: dict[str, str] = {}
    for item in (data or {}).get("angles", []) or []:
        text = str(item.get("angle", "") if isinstance(item, dict) else item).strip()
        if text and _key(text) not in seen:
            seen[_key(text)] = text
    return tuple(seen.values())[:MAX_PLANNED_ANGLES]


async def plan_angles(step, config: InnerLoopConfig) -> AnglePlan:
    """The angles this run's provers take (see the module's docstring); no call when
    ``config.plan_angles`` is off."""
    if not config.plan_angles:
        return AnglePlan(tuple(config.angles), False, "angle planning is off ([solve] plan_angles = false)")
    count = min(config.leaves, MAX_PLANNED_ANGLES)
    outcome = await step.call("angle_planner", {"count": str(count)})
    if not outcome.ok:
        return AnglePlan(tuple(config.angles), False, f"the angle planner failed ({outcome.failure}): the fixed list")
    angles = distinct_angles(outcome.data)
    if len(angles) < MIN_PLANNED_ANGLES:
        return AnglePlan(tuple(config.angles), False,
                         f"the angle planner gave {len(angles)} distinct angle(s): the fixed list")
    return AnglePlan(angles, True, f"{len(angles)} angles planned for this claim")
