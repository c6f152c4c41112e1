"""Two co-authors add to the catalog on their own machines and merge with git: no conflict, nothing
lost; every entry names its format (`schema_version`), and a field a merge kept twice is reported."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from catalog_files import written_entry
from colosseum.catalog.curator import add_failed_route, record_reviewed_proof
from colosseum.catalog.store import CATALOG_FORMAT_VERSION, load_catalog, read_entry

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

STATEMENT = "Every finite graph has an even number of odd-degree vertices."


def git(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.org",
           "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.org", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=60)


def author_adds(catalog: Path, who: str) -> None:
    """What a day of work by one co-author leaves in the catalog: one more model-reviewed proof of
    the shared claim (evidence added to the same observation) and a failed route of their own."""
    record_reviewed_proof(catalog, "lem:handshake", STATEMENT, f"reviewed in {who}'s run",
                          f"drafts/{who}.tex", f"run-{who}", "claude-test")
    add_failed_route(catalog, "lem:handshake", "induction on edges", "the base case", "the base case is wrong", who)


def test_two_authors_adding_entries_merge_without_a_conflict_and_lose_nothing(tmp_path):
    repo = tmp_path / "paper"
    catalog = repo / "knowledge"
    catalog.mkdir(parents=True)
    assert git(repo, "init", "-q", "-b", "main").returncode == 0
    record_reviewed_proof(catalog, "lem:handshake", STATEMENT, "first review", "drafts/first.tex", "run-0", "m")
    assert (catalog / ".gitattributes").read_text().count("merge=union") == 1
    git(repo, "add", "-A"), git(repo, "commit", "-q", "-m", "catalog")
    git(repo, "checkout", "-q", "-b", "ada")
    author_adds(catalog, "ada")
    git(repo, "add", "-A"), git(repo, "commit", "-q", "-m", "ada")
    git(repo, "checkout", "-q", "main")
    author_adds(catalog, "bob")
    git(repo, "add", "-A"), git(repo, "commit", "-q", "-m", "bob")

    merged = git(repo, "merge", "--no-edit", "ada")
    assert merged.returncode == 0, merged.stdout + merged.stderr  # no conflict to resolve by hand
    loaded = load_catalog(catalog, with_starter=False)
    assert loaded.problems == []
    (observation,) = [e for e in loaded.entries.values() if e.kind == "observation"]
    assert [item["artifact"] for item in observation.data["evidence"]] == \
        ["drafts/first.tex", "drafts/bob.tex", "drafts/ada.tex"]
    routes = [e for e in loaded.entries.values() if e.kind == "failed-route"]
    assert sorted(e.data["provenance"]["author"] for e in routes) == ["ada", "bob"]


def test_every_entry_the_engine_writes_names_its_format(tmp_path):
    add_failed_route(tmp_path, "lem:x", "a route", "here", "why", "Ada")
    path = written_entry(tmp_path, "failed-lem-x-a-route")
    entry, problems = read_entry(path)
    assert problems == [] and entry.data["schema_version"] == CATALOG_FORMAT_VERSION
    assert path.read_text().split("\n")[2] == f"schema_version: {CATALOG_FORMAT_VERSION}"  # right after the id


def test_an_entry_from_a_newer_format_is_read_with_a_warning(tmp_path):
    add_failed_route(tmp_path, "lem:x", "a route", "here", "why", "Ada")
    path = written_entry(tmp_path, "failed-lem-x-a-route")
    path.write_text(path.read_text().replace("schema_version: 1", "schema_version: 99"))
    entry, problems = read_entry(path)
    assert entry is not None and [(p.field, p.severity) for p in problems] == [("schema_version", "warning")]
    assert "upgrade colosseum" in problems[0].message


def test_a_field_a_merge_kept_twice_is_reported_with_its_line(tmp_path):
    add_failed_route(tmp_path, "lem:x", "a route", "here", "why", "Ada")
    path = written_entry(tmp_path, "failed-lem-x-a-route")
    lines = path.read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("status:"))
    lines.insert(at + 1, "status: retracted")  # what a union merge of two status edits leaves
    path.write_text("\n".join(lines))
    _entry, problems = read_entry(path)
    twice = [p for p in problems if p.field == "status" and p.severity == "warning"]
    assert len(twice) == 1 and "written 2 times" in twice[0].message and twice[0].line == at + 1


def test_an_appended_item_stays_on_one_line_whatever_its_text(tmp_path):
    """Line breaks, LaTeX, quotes and nested ranges inside an evidence item: one line, read back
    unchanged (an item over several lines could be folded into another author's by a merge)."""
    text = 'first line\nsecond: $\\frac{a}{b}$ "quoted" # not a comment\n\n  indented'
    record_reviewed_proof(tmp_path, "lem:x", STATEMENT, text, "drafts/x.tex", "run-1", "m")
    path = written_entry(tmp_path, "proof-of-lem-x")
    item_lines = [line for line in path.read_text().split("\n") if line.startswith("- {")]
    assert len(item_lines) == 1 and "drafts/x.tex" in item_lines[0]
    entry, problems = read_entry(path)
    assert problems == [] and entry.data["evidence"][0]["description"] == text


def test_check_names_the_file_field_and_line_a_merge_kept_twice(tmp_path):
    import sys

    project = tmp_path / "paper"
    shutil.copytree(Path(__file__).resolve().parents[1] / "example-project", project)
    path = project / "knowledge" / "lll-symmetric-erdos-lovasz.md"
    lines = path.read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("status:"))
    lines.insert(at + 1, "status: active")
    path.write_text("\n".join(lines))
    run = subprocess.run([sys.executable, "-m", "colosseum", "check", str(project)], capture_output=True, text=True,
                         timeout=120)
    assert (f"knowledge/lll-symmetric-erdos-lovasz.md:{at + 2}:1: warning colosseum/catalog-entry: status: "
            "`status` is written 2 times") in run.stdout
