"""`colosseum solve PATH --labels a,b` (and `--all-obligations`): several obligations in one process,
each in a run of its own. Through the real CLI and the real `anthropic` SDK against the Messages
API double: with `--batch` each stage of both obligations is one batch (as many batches as one
solve, not twice as many), each label reaches the verdict of its own single-label run, the
interactive form reaches the same verdicts, a bad label refuses before any call, and the JSON is
one object with a list of runs."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doubles.messages_api import MessagesAPIDouble, tool_answer
from test_solve_cli import answer_by_role

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
RESAMPLING, NUMERIC = "lem:resampling", "lem:regular-numeric"  # the example's two obligations
STAGES = 7  # one solve of the example: seven stages, each waiting on the one before (tests/test_batch.py)
ONE_SOLVE = [1, 16, 16, 8, 5, 1, 2]  # the calls of each stage of one solve


def refuting_the_numeric_lemma(body: dict):
    """The example's answers, except that the referees of lem:regular-numeric find a major flaw:
    that obligation ends refuted, the other unrefuted."""
    required = set(body["tools"][0]["input_schema"]["required"])
    if "critiques" in required and "k^2 - k + 1" in body["messages"][-1]["content"]:
        return tool_answer({"critiques": [{"severity": "major", "kind": "gap", "quote": "the bound holds",
                                           "explanation": "the numeric inequality is not checked for k = 9",
                                           "repair": "check k = 9 by hand"}]})
    return answer_by_role(body)


def copy_example(tmp_path: Path, name: str) -> Path:
    project = tmp_path / name
    shutil.copytree(EXAMPLE, project)
    config = project / "colosseum.toml"
    config.write_text(config.read_text() + "\n[models]\nbatch_poll_s = 0\n")  # the double ends a batch by polls
    return project


def solve(project: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url}
    return subprocess.run([sys.executable, "-m", "colosseum", "solve", str(project), *extra],
                          capture_output=True, text=True, timeout=300, env=env)


def runs_of(project: Path) -> list[Path]:
    folder = project / ".colosseum" / "runs"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_two_obligations_with_batch_send_one_batch_per_stage_for_both(tmp_path):
    singles = {label: copy_example(tmp_path, label.replace(":", "-")) for label in (RESAMPLING, NUMERIC)}
    together = copy_example(tmp_path, "together")
    with MessagesAPIDouble([], responder=refuting_the_numeric_lemma) as server:
        alone = {}
        for label, project in singles.items():
            done = solve(project, server.url, "--label", label, "--batch", "--format", "json")
            assert done.returncode in (0, 3), done.stderr
            alone[label] = json.loads(done.stdout)
        assert len(server.batch_creates) == 2 * STAGES  # one solve each
        before = len(server.batch_creates)
        sent = solve(together, server.url, "--labels", f"{RESAMPLING},{NUMERIC}", "--batch", "--format", "json")
        creates = server.batch_creates[before:]
        assert server.requests == []  # not one interactive call
    assert sent.returncode == 3, sent.stderr  # one refuted, none incomplete
    assert len(creates) == STAGES  # not 2 * STAGES: each stage of both obligations is one batch
    assert [len(c["requests"]) for c in creates] == [2 * n for n in ONE_SOLVE]
    summary = json.loads(sent.stdout)
    runs = {run["label"]: run for run in summary["runs"]}
    assert list(runs) == [RESAMPLING, NUMERIC]  # reading order of the labels given
    assert runs[RESAMPLING]["verdict"] == alone[RESAMPLING]["verdict"] == "unrefuted"
    assert runs[NUMERIC]["verdict"] == alone[NUMERIC]["verdict"] == "refuted"
    for label in runs:
        assert runs[label]["critiques"] == alone[label]["critiques"]
        assert runs[label]["proof"].splitlines()[1:] == alone[label]["proof"].splitlines()[1:]  # line 1 names the run
        assert runs[label]["usage"]["calls"] == alone[label]["usage"]["calls"] == sum(ONE_SOLVE)
    totals = summary["totals"]
    assert (totals["obligations"], totals["unrefuted"], totals["refuted"], totals["incomplete"]) == (2, 1, 1, 0)
    assert totals["calls"] == 2 * sum(ONE_SOLVE) and totals["batches"] == STAGES and totals["exit_code"] == 3
    assert totals["cost_usd"] == pytest.approx(sum(r["usage"]["cost_usd"] for r in runs.values()), abs=1e-6)
    # a folder per obligation, each holding every batch with all its custom ids (a resume of both finds them)
    folders = runs_of(together)
    assert len(folders) == 2
    stored = [json.loads((f / "batches.json").read_text())["batches"] for f in folders]
    assert stored[0] == stored[1] and len(stored[0]) == STAGES
    assert [b["custom_ids"] for b in stored[0]] == [sorted(r["custom_id"] for r in c["requests"]) for c in creates]
    assert {json.loads((f / "run.json").read_text())["label"] for f in folders} == {RESAMPLING, NUMERIC}


def test_interactive_labels_reach_the_same_verdicts_and_a_text_summary(tmp_path):
    project = copy_example(tmp_path, "paper")
    with MessagesAPIDouble([], responder=refuting_the_numeric_lemma) as server:
        done = solve(project, server.url, "--all-obligations")
        assert len(server.requests) == 2 * sum(ONE_SOLVE) and server.batch_creates == []
        again = solve(project, server.url, "--all-obligations", "--format", "json")
        assert len(server.requests) == 2 * sum(ONE_SOLVE)  # every answer from the cache
    assert done.returncode == 3, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == [RESAMPLING, "unrefuted", str(sum(ONE_SOLVE))]
    assert lines[1].split()[:3] == [NUMERIC, "refuted", str(sum(ONE_SOLVE))]
    assert "total: 2 obligations: 1 unrefuted, 1 refuted, 0 incomplete; 98 model calls" in done.stdout
    summary = json.loads(again.stdout)
    assert again.returncode == 3 and summary["totals"]["batches"] is None
    assert [(r["label"], r["verdict"]) for r in summary["runs"]] == [(RESAMPLING, "unrefuted"), (NUMERIC, "refuted")]
    assert summary["totals"]["response_cache_hits"] == 2 * sum(ONE_SOLVE) and summary["totals"]["calls"] == 0
    assert len(runs_of(project)) == 4


@pytest.mark.parametrize("labels", [f"{RESAMPLING},thm:main", f"{RESAMPLING},lem:nowhere"])
def test_a_bad_label_refuses_before_any_call(tmp_path, labels):
    project = copy_example(tmp_path, "paper")
    with MessagesAPIDouble([], responder=answer_by_role) as server:
        for extra in ((), ("--batch",), ("--dry-run",)):
            refused = solve(project, server.url, "--labels", labels, *extra)
            assert refused.returncode == 2, refused.stderr
            assert "nothing was sent" in refused.stderr and refused.stdout == ""
        assert server.requests == [] and server.batch_creates == []
    assert runs_of(project) == []


def test_the_dry_run_sums_the_obligations_estimates(tmp_path):
    project = copy_example(tmp_path, "paper")
    with MessagesAPIDouble([], responder=answer_by_role) as server:
        one = solve(project, server.url, "--label", RESAMPLING, "--dry-run", "--batch")
        both = solve(project, server.url, "--labels", f"{RESAMPLING},{NUMERIC}", "--dry-run", "--batch")
        assert server.requests == [] and server.batch_creates == []
    assert one.returncode == both.returncode == 0, both.stderr
    planned = int(one.stdout.split(" model calls planned")[0].split()[-1])
    total = both.stdout.split("total for 2 obligations: ")[1]
    assert total.startswith(f"{2 * planned} model calls planned") and "Nothing was sent" in total
    assert "batch price" in total and "one batch per stage for all" in both.stdout
    assert both.stdout.startswith(f"{RESAMPLING}: {planned} model calls planned")


def test_resuming_both_runs_fetches_the_batch_that_was_out(tmp_path, monkeypatch):
    """Stopped while the third stage's batch (both obligations' referees) was out, the two runs
    resumed together find that batch in their folders and fetch it: it is not submitted again."""
    from colosseum.app.project import open_for_run
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.solve_many import plan_many
    from colosseum.models.batching import Polling, batching_of

    project = copy_example(tmp_path, "paper")
    overrides, now = RunOverrides(batch=True), Polling(interval_s=0, max_polls=50)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    with MessagesAPIDouble([], responder=refuting_the_numeric_lemma) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        server.batch_polls = 1

        async def interrupted():
            many = plan_many(open_for_run(project, print), [RESAMPLING, NUMERIC], overrides).start()
            batching = batching_of(many.provider)
            batching.polling = now
            task = asyncio.create_task(many.run(lambda stage, done, total: None))

            def stop_at_the_referees(status):
                if len(batching.batches) == 3 and status.state == "in_progress":
                    task.cancel()  # as Ctrl-C would, once the third stage's batch is out
            batching.progress = stop_at_the_referees
            with pytest.raises(asyncio.CancelledError):
                await task
            return [run.recorder.directory.name for run in many.runs]

        folders = asyncio.run(interrupted())
        assert len(server.batch_creates) == 3
        out = sorted(r["custom_id"] for r in server.batch_creates[2]["requests"])

        async def resumed():
            many = plan_many(open_for_run(project, print), [RESAMPLING, NUMERIC], overrides, folders).start()
            batching_of(many.provider).polling = now
            return await many.run(lambda stage, done, total: None)

        outcomes = asyncio.run(resumed())
    assert [o.verdict for o in outcomes] == ["unrefuted", "refuted"]
    assert [o.directory.name for o in outcomes] == folders  # each run went on in its own folder
    creates = [sorted(r["custom_id"] for r in c["requests"]) for c in server.batch_creates]
    assert len(creates) == STAGES and creates.count(out) == 1  # fetched, not asked again
    assert server.requests == []


def test_the_exit_code_is_the_worst_runs():
    from colosseum.app.solve_many import label_list, worst_exit

    assert worst_exit([0, 0]) == 0 and worst_exit([0, 3]) == 3 and worst_exit([3, 1, 0]) == 1
    assert worst_exit([1, 2, 3]) == 2 and worst_exit([0, 130, 2]) == 130
    assert label_list(" a, b,,a ,c") == ["a", "b", "c"]


def test_local_reviews_of_several_labels_go_out_as_one_batch_with_the_interactive_verdicts(tmp_path):
    from test_review_cli import responder

    failing = {"verdict": "failed", "reasons": ["double count"], "critiques": [
        {"severity": "major", "kind": "gap", "quote": "Summing over the $k$ vertices of $e$", "message": "twice",
         "repair": ""}]}
    local = responder([], failing)

    def fails_the_edge_degree_lemma(body: dict):
        if "Summing over the $k$ vertices of $e$" in body["messages"][-1]["content"]:
            return local(body)
        return responder([])(body)

    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test"}
    labels = "lem:edge-degree,lem:degree-arith"

    def review(project: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "colosseum", "review", str(project), *extra],
                              capture_output=True, text=True, timeout=120, env={**env, "ANTHROPIC_BASE_URL": url})

    interactive, batched = copy_example(tmp_path, "interactive"), copy_example(tmp_path, "batched")
    with MessagesAPIDouble([], responder=fails_the_edge_degree_lemma) as server:
        asked = review(interactive, server.url, "--labels", labels, "--format", "json")
        assert len(server.requests) == 2 and server.batch_creates == []
        dry = review(batched, server.url, "--labels", labels, "--dry-run", "--batch")
        sent = review(batched, server.url, "--labels", labels, "--format", "json", "--batch")
        assert len(server.requests) == 2 and [len(c["requests"]) for c in server.batch_creates] == [2]
        text = review(batched, server.url, "--labels", labels)  # unchanged: the local review cache, no call
        refused = review(batched, server.url, "--labels", "lem:edge-degree,lem:resampling", "--batch")
        empty = review(batched, server.url, "--labels", " , ")
        assert len(server.requests) == 2 and len(server.batch_creates) == 1
    assert asked.returncode == sent.returncode == text.returncode == 3, sent.stderr
    one, other = json.loads(asked.stdout), json.loads(sent.stdout)
    assert [(r["label"], r["verdict"]) for r in one["reviews"]] == [("lem:edge-degree", "failed"),
                                                                    ("lem:degree-arith", "passed")]
    assert other["reviews"] == one["reviews"]
    assert other["totals"] == {**one["totals"]} and one["totals"]["failed"] == 1 and one["totals"]["calls"] == 2
    assert dry.returncode == 0 and "2 local reviews: 2 model call(s)" in dry.stdout and "half the list price" in dry.stdout
    assert "total: 2 reviews: 1 passed, 1 failed" in text.stdout and "no call" in text.stdout
    assert refused.returncode == 2 and "`lem:resampling` has no proof" in refused.stderr
    assert empty.returncode == 2 and "names no claim" in empty.stderr


def test_interactive_runs_share_one_provider_so_max_concurrency_bounds_them_all(tmp_path, monkeypatch):
    """Each run has its own answer cache (its own hit count), over one provider whose semaphore is
    `[models] max_concurrency`: two obligations never have twice that many calls in flight."""
    from colosseum.app.project import open_for_run
    from colosseum.app.run_settings import RunOverrides
    from colosseum.app.solve_many import plan_many
    from colosseum.models.anthropic_provider import AnthropicProvider

    project = copy_example(tmp_path, "paper")
    config = project / "colosseum.toml"
    config.write_text(config.read_text() + "max_concurrency = 3\n")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    many = plan_many(open_for_run(project, print), [RESAMPLING, NUMERIC], RunOverrides()).start()
    first, second = (run.provider for run in many.runs)
    assert first is not second and first.inner is second.inner is many.provider
    assert isinstance(many.provider, AnthropicProvider) and many.provider.max_concurrency == 3
    folders = [run.recorder.directory.name for run in many.runs]
    assert folders[0].endswith("lem_resampling") and folders[1].endswith("lem_regular-numeric")


async def test_two_batching_providers_in_one_event_loop_each_send_their_stages():
    """Two providers that batch, in one event loop (research --select-with --batch has one per
    model): each collector's own wake-up once kept the other from ever seeing the loop quiet, and
    neither sent a batch. Now both solves end, each with one batch per stage."""
    from colosseum.loops.inner.records import InnerLoopConfig
    from colosseum.loops.inner.solve import solve as inner_solve
    from colosseum.models.batching import BatchingProvider, Polling
    from colosseum.models.scripted_provider import ScriptedBatchExecutor, ScriptedProvider
    from test_inner_loop import CONTEXT, script

    executors = [ScriptedBatchExecutor(ScriptedProvider(script()), polls=1) for _ in range(2)]
    providers = [BatchingProvider(e, "scripted", polling=Polling(interval_s=0, max_polls=50)) for e in executors]
    results = await asyncio.gather(*(inner_solve(CONTEXT, p, InnerLoopConfig(seed=7)) for p in providers))
    assert [[len(ids) for ids in e.submitted] for e in executors] == [ONE_SOLVE, ONE_SOLVE]
    assert results[0].root.candidate.proof == results[1].root.candidate.proof
