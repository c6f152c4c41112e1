"""The tool-use loop of one role: the model may call the request's tools (the probes' ``run_python``)
before it answers; each call runs and its result goes back as a ``tool_result`` block, and the loop
goes on until the model gives its structured answer.

Each API request of the loop is one call of the budget (``ModelStep.send`` charges it), and at most
``max_calls`` requests are made: the last one must give the answer (``must_answer``), so the loop
always ends with one, or with the provider's failure.

A turn served by the response cache carries the results its tools gave when it first ran: they are
replayed (``run_tool.replayed(call, text)`` is told, for the record) and nothing runs; the results
of a turn that did run are handed to the cache (``remember_tool_results``) for the next rerun."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace

from colosseum.models.executor import CallOutcome
from colosseum.models.provider import Message, ModelRequest, ToolCall


@dataclass
class ToolLoopOutcome:
    """The loop's last outcome (the answer, or the failure), and how many requests it made."""

    outcome: CallOutcome
    requests: int
    tool_calls: list[ToolCall] = field(default_factory=list)


# a tool's runner: the call in, the text of its tool_result out (sync or async)
ToolRunner = Callable[[ToolCall], "str | Awaitable[str]"]


async def answer_with_tools(step, request: ModelRequest, run_tool: ToolRunner, max_calls: int) -> ToolLoopOutcome:
    """Ask ``request`` through ``step`` (a ModelStep), running the tools the model calls with
    ``run_tool``, in at most ``max_calls`` requests (at least one)."""
    max_calls = max(1, max_calls)
    made: list[ToolCall] = []
    for number in range(1, max_calls + 1):
        if number == max_calls:
            request = _must_answer(request)
        outcome = await step.send(request)
        response = outcome.response if outcome.ok else None
        if response is None or not response.tool_calls:
            return ToolLoopOutcome(outcome, number, made)
        results = await _run_or_replay(step, request, response, run_tool)
        made.extend(response.tool_calls)
        request = request.continued(Message("assistant", response.blocks),
                                    Message("user", _results(response.blocks, response.tool_calls, results)))
    raise AssertionError("unreachable: the last request must answer")


async def _run_or_replay(step, request: ModelRequest, response, run_tool: ToolRunner) -> list[str]:
    """The text of each tool call of ``response``: replayed from the cache when it holds them all,
    else run (in order) and handed to the cache."""
    recorded = response.tool_results if response.cached else {}
    if recorded and all(call.id in recorded for call in response.tool_calls):
        replayed = getattr(run_tool, "replayed", None)
        for call in response.tool_calls:
            if replayed is not None:
                replayed(call, recorded[call.id])
        return [recorded[call.id] for call in response.tool_calls]
    results = []
    for call in response.tool_calls:
        text = run_tool(call)
        results.append(await text if inspect.isawaitable(text) else text)
    remember = getattr(step.provider, "remember_tool_results", None)
    if remember is not None:
        remember(request, {call.id: text for call, text in zip(response.tool_calls, results)})
    return results


def _must_answer(request: ModelRequest) -> ModelRequest:
    return replace(request, must_answer=True) if request.tools else request


def _results(blocks: tuple[dict, ...], calls: tuple[ToolCall, ...], texts: list[str]) -> tuple[dict, ...]:
    """A ``tool_result`` for every ``tool_use`` of the turn, as the API requires: the runs' outputs,
    and for an answer given in the same turn as a tool call, that it was set aside."""
    by_id = {call.id: text for call, text in zip(calls, texts)}
    return tuple({"type": "tool_result", "tool_use_id": block["id"],
                  "content": by_id.get(block["id"], "Not taken: answer once the tool results are in.")}
                 for block in blocks if block.get("type") == "tool_use")
