"""One strategy falsifier's attack on a card, with the card's falsifiable tests handed to it.

When the run offers probes (a trusted folder where the sandbox runs: ``colosseum.probe.tool``), the
falsifier gets ``run_python`` in a tool-use loop of at most ``[probe] max_tool_calls`` requests,
each one call of the run's budget, and is asked to run the card's own tests. A critique of kind
``counterexample`` that names a run which finished (no limit stopped it) is a refutation by
execution: fatal, with the run as its evidence; no strategy aggregator resolves it and no rebuttal
at the readiness gate answers it (``exploration.py``, ``readiness.py``)."""

from __future__ import annotations

from dataclasses import asdict

from colosseum.loops.research.records import CardCritique, StrategyCard
from colosseum.models.tool_loop import answer_with_tools
from colosseum.probe.tool import RUN_PYTHON

COUNTEREXAMPLE = "counterexample"


def probe_note(card: StrategyCard, max_tool_calls: int | None) -> str:
    """What the falsifier is told of the card's tests and of the tool (the prompt's ``probe`` input)."""
    tests = "; ".join(f"({i}) {t}" for i, t in enumerate(card.falsifiable_tests, 1)) or "(the card names none)"
    if max_tool_calls is None:
        return (f"The card's falsifiable tests: {tests}. You have no tool to run code here: check them by hand, and "
                "give `run` as 0 in every critique.")
    return (f"The card's falsifiable tests: {tests}. Run them with the tool `run_python` (at most "
            f"{max(0, max_tool_calls - 1)} runs; Python in a sandbox with no network and no files, limits on CPU time, "
            "memory and output; it returns stdout, stderr tail, exit code and the limit that stopped it, if any). "
            "When a run shows that a test fails, report a critique of kind `counterexample` naming the test, and give "
            "`run` as that run's number (1 for your first call); give `run` as 0 in every other critique.")


async def falsify(step, card: StrategyCard, slot: str, probes) -> tuple[dict, list[dict]]:
    """(the falsifier's answer, the runs it made); a failed call raises its ProviderError (the
    exploration cannot go on without it, as before probes)."""
    values = {"card": card.render(), "slot": slot}
    if probes is None:
        return await step.ask("strategy_falsifier", {**values, "probe": probe_note(card, None)}), []
    executions = probes.executions()  # each run in a thread: the other cards' calls go on meanwhile
    request = step.request("strategy_falsifier", {**values, "probe": probe_note(card, probes.max_tool_calls)},
                           tools=(RUN_PYTHON,))
    loop = await answer_with_tools(step, request, executions, probes.max_tool_calls)
    return loop.outcome.answer(), executions.runs


def card_critiques(found: dict, card: StrategyCard, r: int, runs: list[dict], probes) -> list[CardCritique]:
    """The falsifier's answer as critiques of ``card``, ids ``<card>.f<r>.<j>``; a counterexample shown
    by one of ``runs`` is fatal with the run as its evidence."""
    critiques = []
    for j, item in enumerate(found.get("critiques") or []):
        if not isinstance(item, dict):
            continue
        run = _shown_by(item, runs)
        severity = "fatal" if run is not None else str(item.get("severity", "major"))
        evidence = None if run is None else {**run, "run": item["run"],
                                             "limits": asdict(probes.limits) if probes is not None else {}}
        critiques.append(CardCritique(f"{card.id}.f{r}.{j}", severity, str(item.get("kind", "other")),
                                      str(item.get("target", "")), str(item.get("explanation", "")), card.id,
                                      evidence))
    return critiques


def _shown_by(item: dict, runs: list[dict]) -> dict | None:
    number = item.get("run")
    if item.get("kind") != COUNTEREXAMPLE or not isinstance(number, int) or not 1 <= number <= len(runs):
        return None
    run = runs[number - 1]
    return run if run.get("limit") == "none" else None
