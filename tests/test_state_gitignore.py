"""The first write into a project's .colosseum/ also writes .colosseum/.gitignore: runs and caches
stay local, what is shared (the catalog, colosseum.toml, the .tex files with accepted drafts) lies
outside it and is committed as usual."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from colosseum.core import paths
from colosseum.core.atomic_files import write_atomically
from colosseum.core.liveness import Heartbeat


def test_the_first_write_into_the_state_folder_writes_its_gitignore(tmp_path):
    assert not paths.state_dir(tmp_path).exists()
    # a run's heartbeat: its folder is made before the first file is written
    Heartbeat(paths.runs_dir(tmp_path) / "20260101-000000-lem_a").beat()
    ignore = paths.state_dir(tmp_path) / ".gitignore"
    text = ignore.read_text(encoding="utf-8")
    assert text == paths.STATE_GITIGNORE
    assert text.rstrip().splitlines()[-1] == "*"
    assert "knowledge/" in text and "accepted drafts" in text and "% colosseum: draft" in text


def test_an_edited_gitignore_is_kept_and_writes_outside_leave_no_state_folder(tmp_path):
    write_atomically(tmp_path / "knowledge" / "entry.md", "x")
    assert not paths.state_dir(tmp_path).exists()
    write_atomically(paths.answer_cache_dir(tmp_path) / "ab" / "key.json", "{}")
    ignore = paths.state_dir(tmp_path) / ".gitignore"
    ignore.write_text("cache/\n", encoding="utf-8")
    write_atomically(paths.lean_cache_dir(tmp_path) / "k.json", "{}")
    assert ignore.read_text(encoding="utf-8") == "cache/\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_sees_the_catalog_and_not_the_runs(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "main.tex").write_text("\\documentclass{article}\n")
    write_atomically(tmp_path / "knowledge" / "entry.md", "---\nid: e\n---\n")
    write_atomically(paths.runs_dir(tmp_path) / "r" / "run.json", json.dumps({"status": "done"}))
    write_atomically(paths.answer_cache_dir(tmp_path) / "ab" / "abc.json", "{}")
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tmp_path,
                            capture_output=True, text=True, check=True).stdout
    listed = sorted(line[3:] for line in status.splitlines())
    assert listed == ["knowledge/entry.md", "main.tex"]
