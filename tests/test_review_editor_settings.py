"""The review feature's editor settings, against its handlers directly (no model call is made):
review on save is off unless the author sets it to true, and a budget changed in the editor's
settings applies to the next local review while the incremental cache lives on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from colosseum.index import ProjectIndex
from colosseum_lsp.context import Project
from colosseum_lsp.features import registry
from colosseum_lsp.features import review as feature

ROOT = Path(__file__).resolve().parents[1]


class Context:
    """The parts of the server context the hooks use; spawned work is recorded, not run."""

    def __init__(self, project, options: dict):
        self.project, self.options, self.spawned = project, options, []

    def project_for(self, path: Path):
        return self.project

    def spawn(self, coroutine):
        self.spawned.append(coroutine.__qualname__)
        coroutine.close()
        return None


@pytest.fixture
def project(tmp_path):
    shutil.copytree(ROOT / "example-project", tmp_path / "paper")
    index = ProjectIndex.open(tmp_path / "paper")
    return Project(index.root_dir, index=index)  # the review feature keeps its state with the project


def test_review_on_save_is_off_by_default_and_only_true_turns_it_on(project):
    assert feature.review_on_save in registry.SAVE_HOOKS
    saved = project.root_dir / "sections" / "local-structure.tex"
    for options in ({}, {"reviewOnSave": False}, {"reviewOnSave": "false"}, {"reviewOnSave": None}):
        ctx = Context(project, options)
        feature.review_on_save(ctx, saved, saved.as_uri())
        assert ctx.spawned == [], options
    ctx = Context(project, {"reviewOnSave": True})
    feature.review_on_save(ctx, saved, saved.as_uri())
    assert ctx.spawned == ["_review_saved"]
    # the editors' own default is off too
    package = json.loads((ROOT / "editor-clients" / "vscode" / "package.json").read_text())
    assert package["contributes"]["configuration"]["properties"]["colosseum.reviewOnSave"]["default"] is False


def test_a_budget_changed_in_the_editor_applies_to_the_next_local_review(project, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")  # the provider is built, never called
    ctx = Context(project, {"budget": {"max_calls": 1}})
    first = feature._local_reviewer(ctx, project)
    assert first.config.max_calls == 1
    ctx.options["budget"] = {"max_calls": 7}
    second = feature._local_reviewer(ctx, project)
    assert second is first and second.config.max_calls == 7  # the same reviewer: its cache lives on
    ctx.options["budget"] = "seven"  # not a table: no budget from the editor
    assert feature._local_reviewer(ctx, project).config.max_calls is None
