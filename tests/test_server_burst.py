"""Keystroke bursts and long editing sessions (issue 17, latency), counted, never timed.

- A burst of 40 edits that arrive while an update runs costs two updates of the index, and only
  the findings of the last text are sent: the stale ones in between are dropped, not published.
- An author who types without pause still sees findings: at most MAX_SUPERSEDED updates in a row
  go unsent.
- Over 1,000 edits (200 outside the soak run, COLOSSEUM_SOAK=1) the server's state does not grow: what it keeps per document stays bounded
  (the edits add and remove labels and undefined references as an author would)."""

from __future__ import annotations

import asyncio
import sys
import os
import threading
from pathlib import Path

import pytest

from colosseum.index import ProjectIndex
from colosseum_lsp.context import MAX_SUPERSEDED, Project, ServerContext
from colosseum_lsp.features.completion import LabelCandidates
from colosseum_lsp.features.diagnostics import Publications

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import synthetic  # noqa: E402

UNDEFINED = "colosseum/undefined-reference"
EDITS = 1_000 if os.environ.get("COLOSSEUM_SOAK") == "1" else 200  # contracts: large counts in the soak run


class _Protocol:
    def __init__(self):
        self.sent: list[dict] = []

    def _send_data(self, message: dict) -> None:
        self.sent.append(message)

    def notify(self, method, params) -> None:
        pass


class _Server:
    def __init__(self):
        self.protocol = _Protocol()
        self.workspace = type("Workspace", (), {"text_documents": {}})()


def _served(root: Path) -> tuple[ServerContext, Project, _Server]:
    index = ProjectIndex.open(root)
    server = _Server()
    ctx = ServerContext(server)
    ctx.workspace_roots = [index.root_dir]
    project = Project(index.root_dir, index=index)
    ctx.projects[index.root_dir] = project
    return ctx, project, server


def _publications(server: _Server, uri: str) -> list[dict]:
    return [m["params"] for m in server.protocol.sent if m.get("params", {}).get("uri") == uri]


@pytest.fixture
def small(tmp_path):
    project = synthetic.write_project(tmp_path / "p", seed=5, n_lines=3_000, n_files=6, n_labels=300,
                                      n_undefined=2, big_file_lines=1_000)
    return project


def _gated(index: ProjectIndex) -> tuple[threading.Event, threading.Event, list]:
    """Make the index's updates wait for ``release`` once ``started`` is set; counts them."""
    started, release, calls = threading.Event(), threading.Event(), []
    real = index.update_documents

    def update(changes):
        calls.append(dict(changes))
        started.set()
        release.wait()
        return real(changes)
    index.update_documents = update
    return started, release, calls


def test_a_burst_of_edits_costs_two_updates_and_only_the_last_text_is_published(small):
    ctx, project, server = _served(small.root)
    path = (small.root / small.big_file).resolve()
    uri = path.as_uri()
    lines = small.texts[small.big_file].split("\n")
    typed = "See \\cref{missing:typed}."
    texts = []
    for k in range(1, 41):  # the line grows one keystroke at a time
        texts.append("\n".join(lines[:5] + [typed[:k]] + lines[5:]))
    server.workspace.text_documents[uri] = "open"  # the editor holds it: findings carry its version
    started, release, calls = _gated(project.index)
    warmed = []
    ctx._warm = lambda project, paths: warmed.append(paths)

    async def burst():
        ctx.schedule_update(path, texts[0], 1)
        await asyncio.to_thread(started.wait)  # the first keystroke's update is running
        for version, text in enumerate(texts[1:], start=2):
            ctx.schedule_update(path, text, version)
            await asyncio.sleep(0)
        release.set()
        await project.pending

    asyncio.run(burst())
    assert len(calls) == 2 and project.reindexes == 2
    assert calls[1] == {path: texts[-1]}  # the 39 later keystrokes, gathered: only the last text
    published = _publications(server, uri)
    assert [p["version"] for p in published] == [40]  # nothing stale was sent
    found = [d for d in published[-1]["diagnostics"] if d["code"] == UNDEFINED]
    assert any(d["range"]["start"]["line"] == 5 and "missing:typed" in d["message"] for d in found)
    assert len(warmed) == 1  # lookups warmed for the final text only


def test_findings_still_arrive_while_the_author_types_without_pause(small):
    ctx, project, server = _served(small.root)
    path = (small.root / small.big_file).resolve()
    text = small.texts[small.big_file]
    real = project.index.update_documents
    typed = iter(range(2, 1000))
    updates = 3 * (MAX_SUPERSEDED + 1)

    async def typing():
        loop, enough = asyncio.get_running_loop(), asyncio.Event()

        def update(changes):  # every update finds a newer keystroke waiting, up to `updates`
            n = next(typed)
            if n <= updates:
                loop.call_soon_threadsafe(ctx.schedule_update, path, text + f"% typed {n}\n", None)
            else:
                loop.call_soon_threadsafe(enough.set)
            return real(changes)
        project.index.update_documents = update
        ctx.schedule_update(path, text + "% typed 1\n", 1)
        await enough.wait()
        await project.pending

    ctx._warm = lambda project, paths: None
    asyncio.run(typing())
    published = [m for m in server.protocol.sent if "params" in m]
    assert published, "no findings while the author typed"
    assert project.reindexes / len(published) <= MAX_SUPERSEDED + 1


def _state_size(ctx: ServerContext, project: Project) -> int:
    """What the server keeps about documents and their findings, counted in entries."""
    publications = ctx.feature_state(Publications)
    candidates = ctx.feature_state(LabelCandidates)
    return (sum(len(v) for v in publications.converted.values()) + len(publications.published)
            + len(project.indexed_versions) + len(project.pending_texts) + len(ctx.tasks)
            + len(candidates.first_lines) + len(candidates.recent) + len(ctx.extra_diagnostics))


def test_a_thousand_edits_leave_the_servers_state_bounded(small):
    ctx, project, server = _served(small.root)
    ctx._warm = lambda project, paths: None
    path = (small.root / small.big_file).resolve()
    sequence = synthetic.EditSequence(small, small.big_file, seed=7)
    sizes = []

    async def edit_all():
        for n, edit in enumerate(sequence.edits(EDITS), start=1):
            ctx.schedule_update(path, edit.text, n)
            await project.pending
            if n % (EDITS // 4) == 0:
                # the findings grow with the undefined references the edits add: not counted
                sizes.append(_state_size(ctx, project) - sequence.expected_undefined_references())
                server.protocol.sent.clear()

    asyncio.run(edit_all())
    assert project.reindexes == EDITS
    assert max(sizes) - min(sizes) <= 20, sizes  # everything else stays put
