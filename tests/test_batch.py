"""Batch runs (``--batch``): each stage's calls go out as one Message Batch through the real
``anthropic`` SDK, against the batch endpoints of the Messages API double. The same scripted
answers reach the same verdict as an interactive run, at half the price; failed items are failed
outcomes (a failed refutation drops its candidate); an interrupted run resumes by fetching its
stored batch instead of submitting it again; a batch can be cancelled."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from colosseum.models.anthropic_batch import AnthropicBatchExecutor
from colosseum.models.batching import BatchStore, Polling, batching_of, cancel_batches, run_batched
from colosseum.models.provider import Message, ModelRequest
from doubles.messages_api import MessagesAPIDouble, tool_answer
from test_solve_cli import answer_by_role

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
LABEL = "lem:resampling"
# the example's solve: the angle planner, 16 provers, 16 referees, aggregators of levels 1, 2 and 3,
# the final referees: seven stages, each waiting on the one before, so seven batches of 49 calls
STAGES = 7
CALLS = 49
SCHEMA = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
NOW = Polling(interval_s=0, max_polls=50)  # polls without waiting: the double ends a batch by polls, not time


def copy_example(tmp_path: Path, name: str = "paper") -> Path:
    """The example, polling its batches without a pause (the double ends a batch by polls, not time)."""
    project = tmp_path / name
    shutil.copytree(EXAMPLE, project)
    config = project / "colosseum.toml"
    config.write_text(config.read_text() + "\n[models]\nbatch_poll_s = 0\n")
    return project


def solve(project: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url}
    return subprocess.run([sys.executable, "-m", "colosseum", "solve", str(project), "--label", LABEL, *extra],
                          capture_output=True, text=True, timeout=120, env=env)


def only_run(project: Path) -> Path:
    (run,) = (project / ".colosseum" / "runs").iterdir()
    return run


def prompt_of(params: dict) -> str:
    return params["messages"][-1]["content"]


def test_a_batch_solve_reaches_the_interactive_verdict_with_one_batch_per_stage_at_half_the_price(tmp_path):
    interactive, batched = copy_example(tmp_path, "interactive"), copy_example(tmp_path, "batched")
    with MessagesAPIDouble([], responder=answer_by_role) as server:
        asked = solve(interactive, server.url, "--format", "json")
        assert asked.returncode == 0, asked.stderr
        assert len(server.requests) == CALLS and server.batch_creates == []
        server.batch_polls = 1  # every batch reads in_progress once before it ends
        sent = solve(batched, server.url, "--format", "json", "--batch")
        assert sent.returncode == 0, sent.stderr
        assert len(server.requests) == CALLS  # not one interactive call more
        creates = list(server.batch_creates)
        again = solve(batched, server.url, "--batch")  # every answer is in the cache: no batch at all
        assert again.returncode == 0, again.stderr
        plain = solve(batched, server.url)  # the batch's answers serve an interactive run too: one cache
        assert plain.returncode == 0, plain.stderr
        assert server.batch_creates == creates and len(server.requests) == CALLS
    one, other = json.loads(asked.stdout), json.loads(sent.stdout)
    assert other["verdict"] == one["verdict"] == "unrefuted"
    assert other["proof"].splitlines()[1:] == one["proof"].splitlines()[1:]  # the first names the run
    assert other["critiques"] == one["critiques"]
    assert len(creates) == STAGES and sum(len(c["requests"]) for c in creates) == CALLS
    assert [len(c["requests"]) for c in creates] == [1, 16, 16, 8, 5, 1, 2]
    assert other["usage"]["calls"] == one["usage"]["calls"] == CALLS
    assert other["usage"]["cost_usd"] == pytest.approx(one["usage"]["cost_usd"] / 2)
    # the batch ids are in the run folder, each with the custom ids it was asked under
    (run,) = [r for r in (batched / ".colosseum" / "runs").iterdir() if (r / "batches.json").exists()]
    stored = json.loads((run / "batches.json").read_text())["batches"]
    assert [sorted(r["custom_id"] for r in c["requests"]) for c in creates] == [b["custom_ids"] for b in stored]
    assert json.loads((run / "run.json").read_text())["usage"]["batch_priced"] is True
    assert json.loads((only_run(interactive) / "run.json").read_text())["usage"]["batch_priced"] is False


def test_failed_items_are_failed_outcomes_never_missing_keys(tmp_path):
    fates = {"ok": "succeeded", "broken": "errored", "late": "expired", "dropped": "canceled"}
    requests = {key: ModelRequest("system", (Message("user", key),), schema=SCHEMA, role="refuter") for key in fates}
    with MessagesAPIDouble([], responder=lambda body: tool_answer({"x": 7})) as server:
        server.item_fate = lambda custom_id, params: fates[custom_id]
        executor = AnthropicBatchExecutor("claude-sonnet-4-5", api_key="sk-test", base_url=server.url)
        outcomes = asyncio.run(run_batched(executor, requests, polling=NOW))
    assert set(outcomes) == set(fates)
    assert outcomes["ok"].ok and outcomes["ok"].data == {"x": 7} and outcomes["ok"].usage.calls == 1
    assert not any(outcomes[key].ok for key in ("broken", "late", "dropped"))
    assert "errored" in outcomes["broken"].failure and "scripted item error" in outcomes["broken"].failure
    assert "expired" in outcomes["late"].failure and "canceled" in outcomes["dropped"].failure


def test_a_failed_refutation_item_drops_its_candidate_and_a_failed_final_one_makes_it_incomplete(tmp_path):
    dropping, final = copy_example(tmp_path, "dropping"), copy_example(tmp_path, "final")
    with MessagesAPIDouble([], responder=answer_by_role) as server:
        server.item_fate = lambda custom_id, params: ("errored" if "referee 1 of candidate L3" in prompt_of(params)
                                                      else "expired" if "prover 5 of 16" in prompt_of(params)
                                                      else "succeeded")
        dropped = solve(dropping, server.url, "--format", "json", "--batch")
        server.item_fate = lambda custom_id, params: ("expired" if "final referee 2" in prompt_of(params)
                                                      else "succeeded")
        unread = solve(final, server.url, "--format", "json", "--batch")
    assert dropped.returncode == 0, dropped.stderr
    assert json.loads(dropped.stdout)["verdict"] == "unrefuted"
    record = json.loads((only_run(dropping) / "run.json").read_text())
    assert {(d["candidate"], d["stage"]) for d in record["dropped"]} == {("L3", "refutation"), ("L4", "generation")}
    assert "L3" not in record["bundles"] and "L4" not in record["bundles"]
    assert unread.returncode == 1 and json.loads(unread.stdout)["verdict"] == "incomplete"


def test_an_interrupted_batch_run_resumes_by_fetching_its_batch(tmp_path, monkeypatch):
    from colosseum.app.project import open_for_run
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.solve import plan_resume, plan_solve

    project = copy_example(tmp_path)
    overrides = RunOverrides(batch=True)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    with MessagesAPIDouble([], responder=answer_by_role) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        server.batch_polls = 1

        async def interrupted():
            run = plan_solve(open_for_run(project, print), LABEL, overrides).start("")
            batching = batching_of(run.provider)
            batching.polling = NOW
            task = asyncio.create_task(run.run(lambda stage, done, total: None))

            def stop_at_the_refuters(status):
                if len(batching.batches) == 3 and status.state == "in_progress":
                    task.cancel()  # as Ctrl-C would, once the third stage's batch is submitted
            batching.progress = stop_at_the_refuters
            with pytest.raises(asyncio.CancelledError):
                await task
            return run.recorder.directory

        folder = asyncio.run(interrupted())
        assert len(server.batch_creates) == 3
        stored = json.loads((folder / "batches.json").read_text())["batches"]
        assert len(stored) == 3 and json.loads((folder / "run.json").read_text())["status"] == "cancelled"

        async def resumed():
            run = plan_resume(open_for_run(project, print), LABEL, folder.name, overrides).start("")
            batching_of(run.provider).polling = NOW
            return await run.run(lambda stage, done, total: None)

        outcome = asyncio.run(resumed())
    assert outcome.verdict == "unrefuted" and outcome.directory == folder
    creates = [sorted(r["custom_id"] for r in c["requests"]) for c in server.batch_creates]
    assert len(creates) == STAGES and creates.count(stored[2]["custom_ids"]) == 1  # fetched, not asked again
    assert server.requests == []


def test_a_cancelled_batch_ends_its_items_as_failed_outcomes(tmp_path):
    requests = {key: ModelRequest("system", (Message("user", key),), schema=SCHEMA, role="generator")
                for key in ("a", "b")}
    store = BatchStore(tmp_path)
    with MessagesAPIDouble([], responder=lambda body: tool_answer({"x": 1})) as server:
        server.batch_polls = 10**6  # never ends by itself
        executor = AnthropicBatchExecutor("claude-sonnet-4-5", api_key="sk-test", base_url=server.url)

        async def cancelled():
            seen = asyncio.Event()
            task = asyncio.create_task(run_batched(executor, requests, lambda status: seen.set(), store=store,
                                                   polling=Polling(0, 10**6)))
            await seen.wait()
            assert await cancel_batches(executor, store) == [store.entries()[0]["batch_id"]]
            return await task

        outcomes = asyncio.run(cancelled())
    assert set(outcomes) == {"a", "b"} and not any(o.ok for o in outcomes.values())
    assert all("canceled" in o.failure for o in outcomes.values())
    assert len(server.batch_creates) == 1


def test_polling_is_bounded_and_the_batch_stays_stored_for_a_resume(tmp_path):
    requests = {"a": ModelRequest("system", (Message("user", "a"),), schema=SCHEMA, role="generator")}
    with MessagesAPIDouble([], responder=lambda body: tool_answer({"x": 1})) as server:
        server.batch_polls = 5
        executor = AnthropicBatchExecutor("claude-sonnet-4-5", api_key="sk-test", base_url=server.url)
        first = asyncio.run(run_batched(executor, requests, store=BatchStore(tmp_path), polling=Polling(0, 2)))
        later = asyncio.run(run_batched(executor, requests, store=BatchStore(tmp_path), polling=Polling(0, 10)))
        assert not first["a"].ok and "did not end after 2 polls" in first["a"].failure
        assert later["a"].ok and len(server.batch_creates) == 1
        # a batch whose results were read is not read again: its failures are asked anew
        server.batch_polls = 0
        asyncio.run(run_batched(executor, requests, store=BatchStore(tmp_path), polling=Polling(0, 10)))
    assert len(server.batch_creates) == 2


def test_dry_run_with_batch_says_probes_are_off_and_the_batch_price(tmp_path):
    project = copy_example(tmp_path)
    with MessagesAPIDouble([], responder=answer_by_role) as server:
        listed = solve(project, server.url, "--dry-run")
        batched = solve(project, server.url, "--dry-run", "--batch")
        assert server.requests == [] and server.batch_creates == []
    assert batched.returncode == 0, batched.stderr
    assert "probes are off" in batched.stdout and "batch price" in batched.stdout

    def dollars(text: str) -> float:
        return float(text.split("at most about $")[1].split(" ")[0])

    assert dollars(batched.stdout) == pytest.approx(dollars(listed.stdout) / 2, abs=0.01)


def test_the_openai_compatible_provider_refuses_batch(tmp_path):
    project = copy_example(tmp_path)
    (project / "colosseum.toml").write_text('root = "main.tex"\n[models]\nbatch_poll_s = 0\n'
                                            'provider = "openai-compatible"\n'
                                            'model = "local-7b"\nbase_url = "http://127.0.0.1:9"\n')
    for extra in ((), ("--dry-run",)):
        refused = solve(project, "http://127.0.0.1:9", "--batch", *extra)
        assert refused.returncode == 2 and "no batch interface" in refused.stderr, refused.stderr


def test_the_batch_price_is_half_the_list_price():
    from colosseum.models.pricing import batch_prices, cost_usd
    from colosseum.models.provider import Usage

    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000, cache_read_tokens=1_000_000, calls=1)
    assert cost_usd(usage, "claude-sonnet-4-5") == pytest.approx(18.3)
    assert cost_usd(usage, "claude-sonnet-4-5", batch_prices(None)) == pytest.approx(9.15)
    assert cost_usd(usage, "any", batch_prices({"input": 2, "output": 4})) == pytest.approx(4.0)


def test_a_batch_review_gives_the_interactive_verdict_and_keeps_its_batches_beside_the_reviews(tmp_path):
    from test_review_cli import GAP, responder

    interactive, batched = copy_example(tmp_path, "interactive"), copy_example(tmp_path, "batched")
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test"}

    def review(project: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "colosseum", "review", str(project), "--format", "json", *extra],
                              capture_output=True, text=True, timeout=120, env={**env, "ANTHROPIC_BASE_URL": url})

    with MessagesAPIDouble([], responder=responder([GAP])) as server:
        asked = review(interactive, server.url)
        dry = review(batched, server.url, "--batch", "--dry-run")
        sent = review(batched, server.url, "--batch")
        assert asked.returncode == sent.returncode == dry.returncode == 0, sent.stderr + dry.stderr
        assert "probes are off" in dry.stdout and "the batch price" in dry.stdout
        assert len(server.requests) == 3 and [len(c["requests"]) for c in server.batch_creates] == [3]
    one, other = json.loads(asked.stdout), json.loads(sent.stdout)
    assert other["verdict"] == one["verdict"] == "revise" and other["critiques"] == one["critiques"]
    assert other["usage"]["cost_usd"] == pytest.approx(one["usage"]["cost_usd"] / 2)
    stored = json.loads((batched / ".colosseum" / "reviews" / "batches.json").read_text())["batches"]
    assert [b["batch_id"] for b in stored] == ["msgbatch_double0001"] and stored[0]["fetched_at"]


def test_a_batch_research_run_reaches_the_interactive_result(make_project, tmp_path):
    from doubles.research_script import ResearchScript
    from test_research_cli import TOML, responder
    from test_research_pipeline import MAIN, RESULT

    files = {"main.tex": MAIN, "sections/result.tex": RESULT, "colosseum.toml": TOML + "[models]\nbatch_poll_s = 0\n"}
    interactive, batched = make_project(tmp_path / "interactive", files), make_project(tmp_path / "batched", files)
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test"}

    def research(project: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "colosseum", "research", str(project), "--label", "thm:goal",
                               *extra], capture_output=True, text=True, timeout=120,
                              env={**env, "ANTHROPIC_BASE_URL": url})

    with MessagesAPIDouble([], responder=responder(ResearchScript(generations=(2, 1)))) as server:
        asked = research(interactive, server.url)
        made = len(server.requests)
        dry = research(batched, server.url, "--dry-run", "--batch")
        assert server.batch_creates == []
    with MessagesAPIDouble([], responder=responder(ResearchScript(generations=(2, 1)))) as server:
        sent = research(batched, server.url, "--batch")
        assert server.requests == [] and len(server.batch_creates) > 1
        items = sum(len(c["requests"]) for c in server.batch_creates)
    assert asked.returncode == sent.returncode == 0, sent.stderr
    assert "thm:goal: accepted" in asked.stdout and "thm:goal: accepted" in sent.stdout
    assert items == made and f"{made} model calls" in asked.stdout and f"{made} model calls" in sent.stdout
    skeleton = "sections/result-thm-goal-skeleton.tex"
    def without_run_ids(text: str) -> str:
        return re.sub(r"\d{8}-\d{6}", "RUN", text)

    assert without_run_ids((batched / skeleton).read_text()) == without_run_ids((interactive / skeleton).read_text())
    (run,) = (batched / ".colosseum" / "runs").iterdir()
    assert len(json.loads((run / "batches.json").read_text())["batches"]) == len(server.batch_creates)
    assert dry.returncode == 0, dry.stderr
    assert "probes are off" in dry.stdout and "batch price" in dry.stdout and "Nothing was sent" in dry.stdout


async def test_one_batch_per_stage_with_the_scripted_batch_double():
    """No HTTP: the scripted provider behind a scripted batch executor. Every batch holds one stage's
    calls (a single role per batch), the run's result is the interactive one's, and a failed
    referee item drops its candidate."""
    from colosseum.loops.inner.records import InnerLoopConfig
    from colosseum.loops.inner.solve import solve
    from colosseum.models.batching import BatchingProvider
    from colosseum.models.scripted_provider import ScriptedBatchExecutor, ScriptedProvider
    from test_inner_loop import CONTEXT, script

    config = InnerLoopConfig(seed=7)
    interactive = await solve(CONTEXT, ScriptedProvider(script()), config)
    executor = ScriptedBatchExecutor(ScriptedProvider(script()), polls=2)
    provider = BatchingProvider(executor, "scripted", polling=NOW)
    batched = await solve(CONTEXT, provider, config)
    roles = [{r.role for r in executor.provider.calls if request_key_of(provider, r) in ids}
             for ids in executor.submitted]
    assert all(len(stage) == 1 for stage in roles)
    assert [len(ids) for ids in executor.submitted] == [1, 16, 16, 8, 5, 1, 2]
    assert provider.batches == executor.submitted
    assert batched.root.candidate.proof == interactive.root.candidate.proof
    assert [c.explanation for c in batched.surviving_critiques] == \
        [c.explanation for c in interactive.surviving_critiques]

    failing = ScriptedBatchExecutor(ScriptedProvider(script()), fate=lambda custom_id, request: (
        "expired" if request.role == "refuter" and "referee 1 of candidate L2" in request.messages[0].content
        else "succeeded"))
    dropped = await solve(CONTEXT, BatchingProvider(failing, "scripted", polling=NOW), config)
    assert [(d.candidate, d.stage) for d in dropped.dropped] == [("L2", "refutation")]
    assert "batch item expired" in dropped.dropped[0].reason


def request_key_of(provider, request) -> str:
    from colosseum.models.response_cache import request_key

    return request_key(provider.name, provider.model, request)


def test_the_configured_batch_executor_for_callers_that_send_their_own_batches(tmp_path, monkeypatch):
    from colosseum.models.configured import configured_batch_executor
    from colosseum.models.provider import ProviderError

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    with MessagesAPIDouble([], responder=lambda body: tool_answer({"x": 3})) as server:
        executor, model = configured_batch_executor({"base_url": server.url, "model": "claude-haiku-4-5"})
        request = ModelRequest("system", (Message("user", "q"),), schema=SCHEMA, role="grader")
        outcomes = asyncio.run(run_batched(executor, {"q1": request}, polling=NOW))
    assert model == "claude-haiku-4-5" and outcomes["q1"].data == {"x": 3}
    assert server.batch_creates[0]["requests"][0]["params"]["model"] == "claude-haiku-4-5"
    with pytest.raises(ProviderError, match="no batch interface"):
        configured_batch_executor({"provider": "openai-compatible"})


def test_a_few_failed_polls_are_waited_out_and_a_stored_batch_the_api_forgot_is_sent_again(tmp_path):
    import anthropic

    requests = {"a": ModelRequest("system", (Message("user", "a"),), schema=SCHEMA, role="generator")}
    store = BatchStore(tmp_path)
    store.record("msgbatch_gone", ["a"], "anthropic")  # an old run's batch, unknown to this API
    with MessagesAPIDouble([], responder=lambda body: tool_answer({"x": 1})) as server:
        client = anthropic.AsyncAnthropic(api_key="sk-test", base_url=server.url, max_retries=0)
        executor = AnthropicBatchExecutor("claude-sonnet-4-5", client=client)
        server.batch_poll_failures = 4  # one fewer than ends the wait
        waited = asyncio.run(run_batched(executor, requests, store=store, polling=NOW))
        assert waited["a"].ok and len(server.batch_creates) == 1
        server.batch_poll_failures = 5
        given_up = asyncio.run(run_batched(executor, requests, store=BatchStore(None), polling=NOW))
    assert not given_up["a"].ok and "Overloaded" in given_up["a"].failure
    assert [bool(e.get("fetched_at")) for e in store.entries()] == [True, True]


def test_a_stage_runner_takes_any_ids_and_sends_identical_requests_once():
    from colosseum.models.batching import batch_stages
    from colosseum.models.scripted_provider import ScriptedBatchExecutor, ScriptedProvider

    executor = ScriptedBatchExecutor(ScriptedProvider(lambda request: {"x": len(request.messages[0].content)}))
    run_stage = batch_stages(executor, "scripted", polling=NOW)
    same = ModelRequest("system", (Message("user", "abc"),), schema=SCHEMA, role="grader")
    requests = {"direct/lem:x": same, "best-of-n/lem:x#2": same,
                "self-refine/lem:y": ModelRequest("system", (Message("user", "abcdef"),), schema=SCHEMA, role="grader")}
    outcomes = asyncio.run(run_stage("grading", requests))
    assert {k: o.data for k, o in outcomes.items()} == {"direct/lem:x": {"x": 3}, "best-of-n/lem:x#2": {"x": 3},
                                                        "self-refine/lem:y": {"x": 6}}
    (sent,) = executor.submitted
    assert len(sent) == 2 and all(len(custom_id) == 64 for custom_id in sent)


def test_the_batches_a_run_left_running_are_cancelled_from_the_command_line(tmp_path):
    """`colosseum batches cancel PATH RUN`: every batch in the run's batches.json that has not
    ended is cancelled at the API (the double sees the cancel), an ended one is left alone."""
    project = copy_example(tmp_path)
    folder = project / ".colosseum" / "runs" / "20261204-120000-lem_resampling"
    folder.mkdir(parents=True)
    requests = {key: {key: ModelRequest("system", (Message("user", key),), schema=SCHEMA, role="generator")}
                for key in ("a", "b")}
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test"}

    def batches(*args: str, key: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "colosseum", "batches", "cancel", str(project), *args],
                              capture_output=True, text=True, timeout=120,
                              env={k: v for k, v in env.items() if key or k != "ANTHROPIC_API_KEY"})

    with MessagesAPIDouble([], responder=lambda body: tool_answer({"x": 1})) as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        executor = AnthropicBatchExecutor("claude-sonnet-4-5", api_key="sk-test", base_url=server.url)
        store = BatchStore(folder)
        server.batch_polls = 10**6  # the first batch runs until it is cancelled
        running = asyncio.run(executor.submit(requests["a"]))
        server.batch_polls = 0  # the second ends at its first retrieval
        ended = asyncio.run(executor.submit(requests["b"]))
        assert asyncio.run(executor.status(ended)).state == "ended"
        for batch_id, key in ((running, "a"), (ended, "b")):
            store.record(batch_id, [key], executor.name)
        unkeyed = batches(folder.name, key=False)
        assert unkeyed.returncode == 2 and "no API key" in unkeyed.stderr
        assert server.batches[running]["status"] == "in_progress"  # nothing was cancelled without a key
        done = batches(folder.name)
        assert done.returncode == 0, done.stderr
        assert server.batches[running]["status"] == "canceling" and server.batches[ended]["status"] == "ended"
        assert f"cancelled 1 batch(es) of {folder.name}: {running}; 1 had ended already" in done.stdout
        again = batches(str(folder))  # by its path; the cancelled batch has ended meanwhile
        assert again.returncode == 0 and "nothing to cancel" in again.stdout
        unknown = batches("no-such-run")
        assert unknown.returncode == 2 and "no run 'no-such-run'" in unknown.stderr
        (project / ".colosseum" / "runs" / "interactive").mkdir()
        plain = batches("interactive")
        assert plain.returncode == 2 and "batches.json" in plain.stderr
        assert len(server.batch_creates) == 2  # nothing was sent again
        # the folder says it was cancelled: a resumed run asks its requests anew, not read back as cancelled
        assert [bool(e.get("cancelled_at")) for e in BatchStore(folder).entries()] == [True, False]
        resumed = asyncio.run(run_batched(executor, requests["a"], store=BatchStore(folder), polling=NOW))
        assert resumed["a"].ok and len(server.batch_creates) == 3
