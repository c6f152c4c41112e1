"""The model layer's one call step and one budget: rendering, budget semantics, outcomes as
values, the transcript and tools of a request, and the cache keys that must not move."""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

import pytest

from colosseum.models import Message, ModelRequest, ModelResponse, ProviderError, Usage
from colosseum.models.budget import Budget
from colosseum.models.errors import BudgetExceeded, BudgetReached
from colosseum.models.executor import CallOutcome
from colosseum.models.prompts import PromptSpec
from colosseum.models.provider import Tool
from colosseum.models.response_cache import request_key
from colosseum.models.scripted_provider import ScriptedProvider
from colosseum.models.step import ModelStep

LOOPS = Path(__file__).resolve().parents[1] / "colosseum" / "loops"


def test_a_prompt_renders_in_one_pass():
    spec = PromptSpec("r", 1, ("statement", "proof"), {}, "S {statement}\n", "U {statement} / {proof}\n", Path("r.md"))
    system, user = spec.render({"statement": "see \\begin{proof} and {proof}", "proof": "P"})
    # a value that contains another input's placeholder is inserted as it is, never filled in
    assert system == "S see \\begin{proof} and {proof}\n"
    assert user == "U see \\begin{proof} and {proof} / P\n"


def test_cache_keys_of_requests_without_tools_are_what_they_were():
    request = ModelRequest("system", (Message("user", "question"),), schema={"type": "object"}, role="generator")
    # the key as every cache on disk computed it before requests had tools
    old = hashlib.sha256(json.dumps({
        "provider": "p", "model": "m", "system": "system", "messages": [["user", "question"]],
        "schema": {"type": "object"}, "max_tokens": 4096, "temperature": 1.0,
    }, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
    assert request_key("p", "m", request) == old
    with_tool = ModelRequest("system", request.messages, schema=request.schema, tools=(Tool("run", "runs", {}),))
    assert request_key("p", "m", with_tool) != old


def test_a_request_carries_its_transcript():
    first = ModelRequest("s", (Message("user", "q"),))
    later = first.continued(Message("assistant", "a"), Message("user", "tool result"))
    assert [m.content for m in later.messages] == ["q", "a", "tool result"] and len(first.messages) == 1


def _response(calls: int, cached: bool = False) -> ModelResponse:
    return ModelResponse("", {}, Usage(calls=calls), "m", cached=cached)


def test_a_budget_of_answered_calls_counts_what_was_billed():
    budget = Budget.of_answered_calls(3)
    budget.before_call()
    budget.before_call()  # calls in flight cost nothing until they answer
    budget.after_call(_response(2))  # a repair: two calls billed
    budget.after_call(_response(0, cached=True))
    budget.before_call()
    budget.after_call(_response(1))
    with pytest.raises(BudgetReached, match="budget of 3 model calls is used up"):
        budget.before_call()


def test_a_budget_of_started_calls_charges_at_the_start_and_refunds_the_cache():
    budget = Budget.of_started_calls(2)
    budget.before_call()
    budget.after_call(_response(0, cached=True))  # from disk: given back
    budget.before_call()
    budget.before_call()
    assert budget.remaining == 0
    with pytest.raises(BudgetReached):
        budget.before_call()
    with pytest.raises(BudgetExceeded, match="too many"):
        Budget.of_started_calls(2).refuse_plan(3, "too many")
    Budget.of_started_calls(None).refuse_plan(10**6, "unbounded never refuses")


async def test_the_step_returns_a_failure_as_a_value_and_records_usage():
    def answer(request):
        if request.role == "refuter":
            return ProviderError("scripted", "overloaded", status=529)
        return {"critiques": []}

    provider = ScriptedProvider(answer)
    base = {"obligation": "lem:x: the statement", "assumable": "(none)", "notation": "(none)"}
    step = ModelStep(provider, Budget.of_answered_calls(None), base=base)
    ok = await step.call("aggregator", {"bundles": "b", "slot": "s"})
    failed = await step.call("refuter", {"candidate": "c", "slot": "s", "probe": ""})
    assert ok.ok and ok.data == {"critiques": []} and step.usage.calls == 1
    assert not failed.ok and "overloaded" in failed.failure and failed.data == {}
    with pytest.raises(ProviderError):
        failed.answer()
    assert [r.role for r in provider.calls] == ["aggregator", "refuter"]
    assert "lem:x: the statement" in provider.calls[0].system + provider.calls[0].messages[0].content


async def test_a_request_with_tools_fails_without_a_call_on_a_provider_that_runs_none():
    provider = ScriptedProvider(lambda r: {})
    provider.supports_tools = False  # as the OpenAI-compatible provider (the double itself can call tools)
    step = ModelStep(provider, base={"obligation": "o", "assumable": "a", "notation": "n"})
    request = step.request("aggregator", {"bundles": "b", "slot": "s"}, tools=(Tool("run", "runs code", {}),))
    outcome = await step.send(request)
    assert isinstance(outcome, CallOutcome) and not outcome.ok and "tools" in outcome.failure
    assert provider.calls == []


def _inner_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("colosseum.loops.inner"):
            found.append(node.module)
    return found


def test_review_and_research_use_only_the_inner_loops_public_face():
    for package in ("review", "research"):
        for path in sorted((LOOPS / package).glob("*.py")):
            assert set(_inner_imports(path)) <= {"colosseum.loops.inner"}, path.name
