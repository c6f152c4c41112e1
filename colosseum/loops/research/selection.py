"""Cross-model selection (the paper's 71.0 % figure): the whole pipeline runs separately with
model A and model B; model B then judges A's final proof ``count`` times independently (8 by
default); if at least ``threshold`` (5) of them judge it correct, A's proof is submitted, else
B's. Every verdict is recorded. This run-level selection is a threshold; the global review
inside each run stays a veto."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from colosseum.models.metered import stage
from colosseum.models.step import ask


@dataclass
class JudgeVerdict:
    judge: int
    correct: bool
    fatal_flaw: str
    reasons: str


@dataclass
class Selection:
    chosen: str  # "A" | "B" | "none"
    correct: int
    count: int
    threshold: int
    verdicts: list[JudgeVerdict] = field(default_factory=list)
    reason: str = ""

    def to_json(self) -> dict:
        return {"chosen": self.chosen, "correct": self.correct, "count": self.count, "threshold": self.threshold,
                "reason": self.reason, "verdicts": [vars(v) for v in self.verdicts]}


def has_final_proof(result) -> bool:
    """A run has a final proof to judge when every obligation of its skeleton passed."""
    return result is not None and bool(result.draft.strip()) and result.complete


def decide(correct: int, threshold: int, b_has_proof: bool = True) -> str:
    """At least ``threshold`` judges saying correct submits A; otherwise B (when B has a proof)."""
    if correct >= threshold:
        return "A"
    return "B" if b_has_proof else "A"


async def cross_model_select(result_a, result_b, judge_provider, problem: str, count: int = 8,
                             threshold: int = 5) -> Selection:
    if not 1 <= threshold <= count:
        raise ValueError(f"the threshold must be between 1 and the number of judges ({count}), got {threshold}")
    a_ok, b_ok = has_final_proof(result_a), has_final_proof(result_b)
    if not a_ok:
        return Selection("B" if b_ok else "none", 0, count, threshold, [],
                         "model A's run ended without a complete proof: nothing to judge"
                         + ("" if b_ok else ", and neither did model B's"))

    async def judge(i: int) -> JudgeVerdict:
        data = await ask(judge_provider, "selection_judge", {"slot": f"judge {i + 1} of {count}", "problem": problem,
                                                              "proof": result_a.draft})
        return JudgeVerdict(i + 1, data.get("correct") is True, str(data.get("fatal_flaw", "")),
                            str(data.get("reasons", "")))

    with stage("selection"):
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(judge(i)) for i in range(count)]
    verdicts = [t.result() for t in tasks]
    correct = sum(v.correct for v in verdicts)
    chosen = decide(correct, threshold, b_ok)
    if chosen == "A":
        reason = (f"{correct} of {count} judges (model B) found model A's proof correct (threshold {threshold})"
                  if correct >= threshold else
                  f"only {correct} of {count} judges found model A's proof correct, but model B has no complete proof")
    else:
        reason = f"only {correct} of {count} judges (model B) found model A's proof correct (threshold {threshold})"
    return Selection(chosen, correct, count, threshold, verdicts, reason)
