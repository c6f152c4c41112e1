"""Files the engine keeps (review reports, model answers, Lean answers) are written whole or not
at all, and a failed write leaves no temporary file behind."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from colosseum.core.atomic_files import write_atomically
from colosseum.lean.cache import LeanCache
from colosseum.models import Message, ModelRequest
from colosseum.models.response_cache import CachedProvider
from colosseum.models.scripted_provider import ScriptedProvider


def test_a_file_is_written_whole_in_a_folder_made_for_it(tmp_path):
    path = tmp_path / "a" / "b" / "answer.json"
    write_atomically(path, "first")
    write_atomically(path, "second, ünïcode")
    assert path.read_text(encoding="utf-8") == "second, ünïcode"
    assert sorted(p.name for p in path.parent.iterdir()) == ["answer.json"]


def test_a_failed_write_keeps_the_old_text_and_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "answer.json"
    write_atomically(path, "old")

    def refuse(*_args):
        raise OSError("disk full")

    monkeypatch.setattr("colosseum.core.atomic_files.os.replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["answer.json"]


def test_the_lean_cache_leaves_no_temporary_file_when_a_write_fails(tmp_path):
    cache = LeanCache(tmp_path)
    cache.put("k1", "Unit", "leanprover/lean4:v4.9.0", [{"severity": "error", "message": "x"}])
    assert cache.get("k1") == [{"severity": "error", "message": "x"}]
    (cache.directory / "k2.json").mkdir()  # the rename over it fails
    cache.put("k2", "Unit", "leanprover/lean4:v4.9.0", [])  # a failed put is not an error
    assert sorted(p.name for p in cache.directory.iterdir()) == ["k1.json", "k2.json"]
    assert cache.get("k2") is None


def test_the_response_cache_serves_what_it_wrote(tmp_path):
    inner = ScriptedProvider(lambda _request: "hello")
    cached = CachedProvider(inner, tmp_path)
    request = ModelRequest("system", (Message("user", "question"),))
    first = asyncio.run(cached.complete(request))
    again = asyncio.run(cached.complete(request))
    assert (first.text, again.text, again.cached, cached.hits, len(inner.calls)) == ("hello", "hello", True, 1, 1)
    (written,) = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert json.loads(written.read_text())["text"] == "hello"


def _refuse_rename(monkeypatch):
    def refuse(*_args):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", refuse)


def test_a_research_run_record_is_flushed_to_disk_and_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    from colosseum.loops.research.records import ResearchConfig
    from colosseum.loops.research.run_log import ResearchRecorder

    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr("os.fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    recorder = ResearchRecorder(tmp_path / "run", "lem:a", "scripted", ResearchConfig())
    recorder.flush()
    assert len(synced) == 1  # on disk before the rename, so a crash cannot leave an empty run.json
    before = (tmp_path / "run" / "run.json").read_text()
    _refuse_rename(monkeypatch)
    recorder.status = "done"
    with pytest.raises(OSError, match="disk full"):
        recorder.flush()
    assert (tmp_path / "run" / "run.json").read_text() == before
    assert [p.name for p in (tmp_path / "run").iterdir()] == ["run.json"]


def test_an_inner_loop_run_record_that_fails_to_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    from colosseum.loops.inner.records import InnerLoopConfig
    from colosseum.loops.inner.run_record import RunRecorder
    from colosseum.models import Usage

    recorder = RunRecorder(tmp_path / "run", "lem:a", InnerLoopConfig(), "scripted")
    recorder.update(0, {}, [], Usage())
    before = (tmp_path / "run" / "run.json").read_text()
    _refuse_rename(monkeypatch)
    with pytest.raises(OSError, match="disk full"):
        recorder.update(1, {}, [], Usage())
    assert (tmp_path / "run" / "run.json").read_text() == before
    assert [p.name for p in (tmp_path / "run").iterdir()] == ["run.json"]
