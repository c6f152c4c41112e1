"""A run killed with SIGKILL must not read ``running`` forever: run.json records ``pid``, ``host``
and ``heartbeat_at``, and reading the run (``app.runs.run_state``) says ``abandoned`` when the
process that wrote it is gone (same host) or its heartbeat is stale (another host)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from datetime import datetime, timedelta, timezone

from colosseum.loops.inner.records import InnerLoopConfig
from colosseum.loops.inner.run_record import RunRecorder
from colosseum.models import Usage


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped: nobody answers to it."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _running_record(tmp_path):
    recorder = RunRecorder(tmp_path / "run", "lem:a", InnerLoopConfig(), "scripted")
    recorder.update(0, {}, [], Usage())
    return tmp_path / "run"


def _rewrite(folder, **changes):
    record = json.loads((folder / "run.json").read_text())
    record.update(changes)
    (folder / "run.json").write_text(json.dumps(record))


def test_a_run_record_names_its_process_host_and_heartbeat(tmp_path):
    folder = _running_record(tmp_path)
    record = json.loads((folder / "run.json").read_text())
    assert record["pid"] == os.getpid()
    assert record["host"] == socket.gethostname()
    beat = datetime.fromisoformat(record["heartbeat_at"])
    assert abs(datetime.now(timezone.utc) - beat) < timedelta(minutes=1)


def test_a_live_run_reads_running(tmp_path):
    from colosseum.app.runs import run_state

    assert run_state(_running_record(tmp_path)) == "running"


def test_a_run_whose_process_died_reads_abandoned(tmp_path):
    from colosseum.app.runs import run_state

    folder = _running_record(tmp_path)
    _rewrite(folder, pid=_dead_pid())
    assert run_state(folder) == "abandoned"


def test_a_run_on_another_host_is_abandoned_only_when_its_heartbeat_is_stale(tmp_path):
    from colosseum.app.runs import run_state

    folder = _running_record(tmp_path)
    fresh = datetime.now(timezone.utc).isoformat(timespec="seconds")
    _rewrite(folder, host="elsewhere.invalid", pid=_dead_pid(), heartbeat_at=fresh)
    assert run_state(folder) == "running"  # its pid means nothing here; the heartbeat is recent
    stale = (datetime.now(timezone.utc) - timedelta(hours=1)).isoformat(timespec="seconds")
    _rewrite(folder, heartbeat_at=stale)
    assert run_state(folder) == "abandoned"


def test_a_record_from_before_the_heartbeat_reads_abandoned_when_running(tmp_path):
    from colosseum.app.runs import run_state

    folder = _running_record(tmp_path)
    record = json.loads((folder / "run.json").read_text())
    for key in ("pid", "host", "heartbeat_at"):
        record.pop(key)
    (folder / "run.json").write_text(json.dumps(record))
    assert run_state(folder) == "abandoned"  # nobody can be writing it: no process claims it


def test_a_finished_run_keeps_its_status(tmp_path):
    from colosseum.app.runs import run_state

    folder = _running_record(tmp_path)
    _rewrite(folder, status="done", pid=_dead_pid())
    assert run_state(folder) == "done"


def test_a_research_run_records_the_same_and_reads_abandoned_when_dead(tmp_path):
    from colosseum.app.runs import run_state
    from colosseum.loops.research.records import ResearchConfig
    from colosseum.loops.research.run_log import ResearchRecorder

    recorder = ResearchRecorder(tmp_path / "run", "lem:a", "scripted", ResearchConfig())
    recorder.flush()
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert (record["pid"], record["host"]) == (os.getpid(), socket.gethostname())
    assert run_state(tmp_path / "run") == "running"
    _rewrite(tmp_path / "run", pid=_dead_pid())
    assert run_state(tmp_path / "run") == "abandoned"


# ---- the heartbeat: refreshed while the run is alive, not once per stage --------------------------
def test_the_heartbeat_beats_at_the_start_and_every_interval_until_the_run_ends(tmp_path):
    import asyncio

    from colosseum.core.liveness import Heartbeat, read_heartbeat

    waits, beaten = [], []

    async def run():
        third = asyncio.Event()

        async def counted_sleep(seconds):  # stands in for the 30 s wait: the beats are counted, not timed
            waits.append(seconds)
            if len(waits) == 4:
                third.set()
                await asyncio.Event().wait()  # the run is still going when the test ends it
            await asyncio.sleep(0)

        async with Heartbeat(tmp_path / "run", interval_s=30, sleep=counted_sleep) as heart:
            await third.wait()
            beaten.append(heart.beats)
        beaten.append(heart.beats)

    asyncio.run(run())
    assert waits == [30, 30, 30, 30]
    assert beaten == [4, 4]  # one at the start and one after each of three waits; none after the end
    beat = read_heartbeat(tmp_path / "run")
    assert (beat["pid"], beat["host"]) == (os.getpid(), socket.gethostname())


def _beat(folder, at: datetime, **changes):
    beat = {"pid": os.getpid(), "host": socket.gethostname(), "heartbeat_at": at.isoformat(timespec="seconds")}
    (folder / "heartbeat.json").write_text(json.dumps({**beat, **changes}))


def test_a_run_whose_heartbeat_stopped_is_abandoned_even_if_its_pid_is_taken(tmp_path):
    from colosseum.app.runs import run_state

    folder = _running_record(tmp_path)  # names this process, which is alive: a pid reused after a SIGKILL
    an_hour_ago = datetime.now(timezone.utc) - timedelta(hours=1)
    _rewrite(folder, heartbeat_at=an_hour_ago.isoformat(timespec="seconds"))
    _beat(folder, an_hour_ago)
    assert run_state(folder) == "abandoned"
    _beat(folder, datetime.now(timezone.utc))
    assert run_state(folder) == "running"


def test_another_hosts_run_is_alive_while_its_heartbeat_file_is_fresh_though_its_record_is_old(tmp_path):
    from colosseum.app.runs import run_state

    folder = _running_record(tmp_path)
    old = (datetime.now(timezone.utc) - timedelta(hours=1)).isoformat(timespec="seconds")
    _rewrite(folder, host="elsewhere.invalid", heartbeat_at=old)  # a stage that has lasted an hour
    _beat(folder, datetime.now(timezone.utc), host="elsewhere.invalid")
    assert run_state(folder) == "running"
    _beat(folder, datetime.now(timezone.utc), host="elsewhere.invalid", pid=1)  # another process's beat
    assert run_state(folder) == "abandoned"


# ---- a solve killed with SIGKILL, then resumed ----------------------------------------------------
def _solve_process(project, url, *extra, **popen):
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url}
    command = [sys.executable, "-m", "colosseum", "solve", str(project), "--label", "lem:resampling", *extra]
    return subprocess.Popen(command, env=env, **popen)


def _held_once_every_slot_refutes(reached):
    """Every generation answered; refutations are never answered (the run is killed first). The
    loop refutes a candidate as soon as it is made, so ``reached`` is signalled only when the
    provider's every slot holds a refutation: the generations were queued for the slots first
    (the semaphore serves in order), so by then all 16 were answered and cached."""
    import inspect
    import threading

    from colosseum.models.anthropic_provider import AnthropicProvider
    from doubles.messages_api import tool_answer
    from test_solve_cli import answer_by_role

    slots = inspect.signature(AnthropicProvider).parameters["max_concurrency"].default
    held, lock = [0], threading.Lock()

    def answer(body):
        if "critiques" in body["tools"][0]["input_schema"]["required"]:
            with lock:
                held[0] += 1
                if held[0] == slots:
                    reached.set()
            return ("sleep", 60, tool_answer({"critiques": []}))  # the run is killed before this comes
        return answer_by_role(body)
    return answer


def _role(request: dict) -> str:
    required = request.get("tools", [{}])[0].get("input_schema", {}).get("required", [])
    return "generator" if "strategy" in required else "refuter" if "critiques" in required else "other"


def test_a_solve_killed_with_sigkill_reads_abandoned_and_resumes_without_asking_again(tmp_path):
    import shutil
    import signal
    import threading

    from colosseum.app.runs import run_state
    from doubles.messages_api import MessagesAPIDouble
    from test_solve_cli import EXAMPLE, answer_by_role

    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    reached = threading.Event()
    with MessagesAPIDouble([], responder=_held_once_every_slot_refutes(reached)) as server:
        server.server.daemon_threads, server.server.block_on_close = True, False  # held answers die with the test
        killed = _solve_process(project, server.url, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert reached.wait(120), "the solve never reached its refutations"
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        answered = sum(1 for r in server.requests if _role(r) == "generator")
    assert answered == 16
    (folder,) = (project / ".colosseum" / "runs").iterdir()
    assert json.loads((folder / "run.json").read_text())["status"] == "running"
    assert json.loads((folder / "heartbeat.json").read_text())["pid"] == killed.pid  # it beat while alive
    assert run_state(folder) == "abandoned"
    with MessagesAPIDouble([], responder=answer_by_role) as server:
        resumed = subprocess.run(_solve_process(project, server.url, "--resume", folder.name).args,
                                 capture_output=True, text=True, timeout=180,
                                 env={**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": server.url})
        asked = list(server.requests)
    assert resumed.returncode == 0, resumed.stderr
    # the angle plan and the 16 answered generations came from the answer cache; the 32 other calls were asked (a
    # transport retry of the same request under load is the SDK's, so distinct requests are counted)
    assert not any(_role(r) == "generator" for r in asked)
    assert len({json.dumps([r.get("system"), r["messages"]], sort_keys=True) for r in asked}) == 49 - 1 - 16
    assert [p.name for p in (project / ".colosseum" / "runs").iterdir()] == [folder.name]  # the same folder
    record = json.loads((folder / "run.json").read_text())
    assert record["status"] == "done" and record["pid"] != killed.pid
    assert run_state(folder) == "done"


def test_resume_refuses_a_run_that_is_alive_or_finished(tmp_path):
    import shutil

    from colosseum.core.paths import runs_dir
    from test_solve_cli import EXAMPLE

    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    alive = RunRecorder(runs_dir(project) / "alive", "lem:resampling", InnerLoopConfig(), "scripted")
    alive.update(0, {}, [], Usage())  # written by this (living) process
    finished = RunRecorder(runs_dir(project) / "finished", "lem:resampling", InnerLoopConfig(), "scripted")
    finished._write("done", Usage())
    for run, said in (("alive", "still running"), ("finished", "finished"), ("nowhere", "no run")):
        done = subprocess.run([sys.executable, "-m", "colosseum", "solve", str(project), "--label", "lem:resampling",
                               "--resume", run], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr


# ---- a research run killed with SIGKILL, then resumed ---------------------------------------------
def _research_process(project, url, *extra, **popen):
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url}
    command = [sys.executable, "-m", "colosseum", "research", str(project), "--label", "thm:goal", *extra]
    return subprocess.Popen(command, env=env, **popen)


def _research_role(request: dict) -> str:
    from doubles.research_script import role_of

    return role_of("".join(block["text"] for block in request["system"]))


def _held_at_the_decomposition(reached):
    """Exploration and the readiness gate answered; the first decomposer's call signals ``reached``
    and is never answered (the run is killed before)."""
    from doubles.messages_api import tool_answer
    from doubles.research_script import ResearchScript
    from test_research_cli import responder

    answer_by_script = responder(ResearchScript(generations=(2, 1)))

    def answer(body):
        if _research_role(body) == "decomposer":
            reached.set()
            return ("sleep", 60, tool_answer({}))
        return answer_by_script(body)
    return answer


def test_a_research_run_killed_with_sigkill_resumes_without_asking_again(make_project, tmp_path):
    import signal
    import threading

    from colosseum.app.runs import run_state
    from doubles.messages_api import MessagesAPIDouble
    from doubles.research_script import ResearchScript
    from test_research_cli import TOML, responder
    from test_research_pipeline import MAIN, RESULT

    project = make_project(tmp_path / "paper", {"main.tex": MAIN, "sections/result.tex": RESULT,
                                                "colosseum.toml": TOML})
    reached = threading.Event()
    with MessagesAPIDouble([], responder=_held_at_the_decomposition(reached)) as server:
        server.server.daemon_threads, server.server.block_on_close = True, False
        killed = _research_process(project, server.url, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert reached.wait(120), "the research run never reached its decomposition"
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        before = {json.dumps([r["system"], r["messages"]], sort_keys=True) for r in server.requests
                  if _research_role(r) != "decomposer"}
    (folder,) = (project / ".colosseum" / "runs").iterdir()
    assert json.loads((folder / "run.json").read_text())["status"] == "running"
    assert json.loads((folder / "heartbeat.json").read_text())["pid"] == killed.pid
    assert run_state(folder) == "abandoned" and before
    with MessagesAPIDouble([], responder=responder(ResearchScript(generations=(2, 1)))) as server:
        env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": server.url}
        resumed = subprocess.run(_research_process(project, server.url, "--resume", folder.name).args,
                                 capture_output=True, text=True, timeout=180, env=env)
        asked = list(server.requests)
    assert resumed.returncode == 0, resumed.stderr
    # nothing answered before was asked again: the exploration and the gate came from the cache
    assert not {json.dumps([r["system"], r["messages"]], sort_keys=True) for r in asked} & before
    assert {_research_role(r) for r in asked} >= {"decomposer", "generator", "global_reviewer"}
    assert not {_research_role(r) for r in asked} & {"explorer", "strategy_falsifier", "readiness_gate"}
    assert [p.name for p in (project / ".colosseum" / "runs").iterdir()] == [folder.name]  # the same folder
    record = json.loads((folder / "run.json").read_text())
    assert record["status"] == "accepted" and record["pid"] != killed.pid and run_state(folder) == "accepted"
    assert "thm:goal: accepted" in resumed.stdout


def test_research_resume_refuses_a_run_that_is_alive_finished_or_a_solve(make_project, tmp_path):
    from colosseum.core.paths import runs_dir
    from colosseum.loops.research.records import ResearchConfig
    from colosseum.loops.research.run_log import ResearchRecorder
    from test_research_cli import TOML
    from test_research_pipeline import MAIN, RESULT

    project = make_project(tmp_path / "paper", {"main.tex": MAIN, "sections/result.tex": RESULT,
                                                "colosseum.toml": TOML})
    ResearchRecorder(runs_dir(project) / "alive", "thm:goal", "scripted", ResearchConfig()).flush()
    finished = ResearchRecorder(runs_dir(project) / "finished", "thm:goal", "scripted", ResearchConfig())
    finished.status = "accepted"
    finished.flush()
    RunRecorder(runs_dir(project) / "a-solve", "thm:goal", InnerLoopConfig(), "scripted")._write("failed", Usage())
    for run, said in (("alive", "still running"), ("finished", "finished: accepted"), ("a-solve", "not a research run"),
                      ("nowhere", "no run")):
        done = subprocess.run([sys.executable, "-m", "colosseum", "research", str(project), "--label", "thm:goal",
                               "--resume", run], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_retry_run_from_the_editor_beats_while_it_runs(tmp_path, monkeypatch):
    import asyncio

    import colosseum.loops.review as review
    from colosseum.app.solve import RetryRun
    from colosseum.core.liveness import read_heartbeat

    seen = {}

    async def retry_claim(index, label, failed_review, provider, config, catalog, progress, recorder, probes=None):
        seen.update(read_heartbeat(recorder.directory))  # while the retry is going
        return None

    monkeypatch.setattr(review, "retry_claim", retry_claim)
    recorder = RunRecorder(tmp_path / "retry", "lem:a", InnerLoopConfig(), "scripted")
    run = RetryRun(None, "lem:a", object(), "scripted", InnerLoopConfig(), None, recorder)
    asyncio.run(run.run(None, lambda *args: None))
    assert seen["pid"] == os.getpid() and seen["host"] == socket.gethostname()
