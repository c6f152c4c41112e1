"""One refuter's call, and its answer as critiques.

When the run offers probes (a trusted folder where the sandbox runs: ``colosseum.probe.tool``), the
refuter gets ``run_python`` in a tool-use loop of at most ``[probe] max_tool_calls`` requests, each
one call of the budget. A critique of kind ``counterexample`` that names a run which finished
(no limit stopped it) is a counterexample found by execution: it is fatal whatever severity the
model gave, its anchor is the claim's statement (a false claim has no proof to quote), and its
evidence is the run itself: code, output, the limits and which one hit. No aggregator can resolve it
away (``resolutions.py``), and it reaches the root whichever candidate it was found in (``solve.py``)."""

from __future__ import annotations

import re

from colosseum.loops.inner.records import Critique
from colosseum.models.tool_loop import answer_with_tools
from colosseum.probe.tool import RUN_PYTHON

NO_TOOL = "You have no tool to run code here: give `run` as 0 in every critique."
COUNTEREXAMPLE = "counterexample"


def tool_note(max_tool_calls: int) -> str:
    """What the refuter is told of ``run_python`` (the prompt's ``probe`` input)."""
    return (f"You have a tool `run_python` (at most {max(0, max_tool_calls - 1)} runs): it runs Python in a sandbox "
            "(no network, no files, limits on CPU time, memory and output) and returns its stdout, stderr tail, exit "
            "code and the limit that stopped it, if any. Use it to test the obligation on small cases and boundary "
            "cases. When a run shows that the obligation itself is false, report a critique of kind "
            "`counterexample`, quote the obligation's statement, and give `run` as that run's number (1 for your "
            "first call of the tool); give `run` as 0 in every other critique.")


async def ask_refuter(step, values: dict, probes) -> tuple[object, list[dict], int]:
    """(the call's outcome, the runs of run_python it made, the requests it took). ``probes`` is
    the run's ProbeTools, or None: then one plain call, with no tool offered."""
    if probes is None:
        return await step.call("refuter", {**values, "probe": NO_TOOL}), [], 1
    # the tool runs in a thread (Executions): the stage's other calls go on while it runs
    executions = probes.executions()
    request = step.request("refuter", {**values, "probe": tool_note(probes.max_tool_calls)}, tools=(RUN_PYTHON,))
    loop = await answer_with_tools(step, request, executions, probes.max_tool_calls)
    return loop.outcome, executions.runs, loop.requests


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def anchored(quote: str, text: str) -> bool:
    """A critique is anchored when its quoted span is in the candidate (modulo whitespace)."""
    return bool(quote.strip()) and _normalize(quote) in _normalize(text)


def shown_by(critique: dict, runs: list[dict]) -> dict | None:
    """The run a counterexample critique names, when that run exists and finished (no limit hit)."""
    number = critique.get("run")
    if critique.get("kind") != COUNTEREXAMPLE or not isinstance(number, int) or not 1 <= number <= len(runs):
        return None
    run = runs[number - 1]
    return run if run.get("limit") == "none" else None


def limits_of(probes) -> dict:
    """The limits the runs of ``probes`` ran under, for the record ({} with no probes)."""
    from dataclasses import asdict

    return asdict(probes.limits) if probes is not None else {}


def refuter_critiques(data: dict, proof: str, statement: str, prefix: str, origin: str, runs: list[dict],
                      limits: dict | None = None) -> list[Critique]:
    """A refuter's answer as critiques of ``proof``, with ids ``prefix.0``, ``prefix.1``, ...; a
    counterexample shown by one of ``runs`` is fatal, anchored on ``statement``, with the run as evidence."""
    critiques = []
    for j, item in enumerate((data or {}).get("critiques", []) or []):
        if not isinstance(item, dict):
            continue
        run = shown_by(item, runs)
        explanation, repair = str(item.get("explanation", "")), str(item.get("repair", ""))
        if run is not None:
            evidence = {**run, "run": item["run"], "limits": dict(limits or {})}
            critiques.append(Critique(f"{prefix}.{j}", "fatal", COUNTEREXAMPLE, statement, explanation, repair, True,
                                      origin, "statement", evidence))
            continue
        quote = str(item.get("quote", ""))
        critiques.append(Critique(f"{prefix}.{j}", str(item.get("severity", "major")), str(item.get("kind", "other")),
                                  quote, explanation, repair, anchored(quote, proof), origin))
    return critiques
