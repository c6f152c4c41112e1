"""The reference-assisted grader: several grader calls per answer, each comparing it with the
paper's own proof (or judging it alone when the claim has none), by the rubric correct /
minor_gaps / wrong with a reason. The graders never learn which method wrote the answer.

An answer's grade is the one more than half of the graders gave ("split" when none has such a
majority); an empty answer is wrong without a call. Every grader call goes through the run's
provider, so grades are cached like every answer."""

from __future__ import annotations

import time
from collections import Counter

from colosseum.bench.problems import Problem
from colosseum.bench.records import GRADES, SPLIT, Attempt, Grade
from colosseum.bench.requests import RunStage, Spend
from colosseum.models.step import ModelStep

NO_REFERENCE = "(the paper has no proof of this claim: judge the answer on its own)"
NO_ANSWER = "no answer"


def grader_request(step: ModelStep, problem: Problem, answer: str, grader: int, graders: int):
    c = problem.context
    return step.request("bench_grader", {
        "obligation": f"{c.label}: {c.statement}", "assumable": c.assumable or "(none)",
        "reference": problem.reference if problem.has_reference else NO_REFERENCE,
        "answer": answer, "slot": f"grader {grader + 1} of {graders}"})


async def grade(attempts: list[Attempt], problems: dict[str, Problem], graders: int, step: ModelStep,
                run_stage: RunStage, spend: Spend) -> None:
    """Every attempt's grades, in one stage; ``spend`` takes what the grading cost."""
    asks = {}
    for attempt in attempts:
        if not attempt.answer.strip():
            continue
        for g in range(graders):
            asks[f"{attempt.key}#{g}"] = grader_request(step, problems[attempt.label], attempt.answer, g, graders)
    started = time.monotonic()
    outcomes = await run_stage("grading", asks) if asks else {}
    spend.seconds += time.monotonic() - started
    for attempt in attempts:
        attempt.grades, attempt.grader_failures = [], 0
        for g in range(graders):
            outcome = outcomes.get(f"{attempt.key}#{g}")
            if outcome is None:
                continue
            spend.add(outcome)
            verdict = outcome.data.get("grade")
            if outcome.ok and verdict in GRADES:
                attempt.grades.append(Grade(g, verdict, str(outcome.data.get("reason", ""))))
            else:
                attempt.grader_failures += 1


def consensus(attempt: Attempt, graders: int) -> str:
    """The grade more than half of the ``graders`` gave; "wrong" for an empty answer; else "split"."""
    if not attempt.answer.strip():
        return "wrong"
    counts = Counter(g.grade for g in attempt.grades)
    for verdict in GRADES:
        if counts[verdict] * 2 > graders:
            return verdict
    return SPLIT


def disagreements(attempts: list[Attempt]) -> list[Attempt]:
    """The answers whose graders did not all give the same grade: for a person to read."""
    return [a for a in attempts if len({g.grade for g in a.grades}) > 1]
