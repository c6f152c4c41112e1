"""Label completion on a paper with 3,000 labels (issue 17, latency): a bounded list marked
incomplete, ranked (the exact name, names that start with what was typed, then the cursor's
section, its file, the labels referenced last), and work that does not grow with the labels: only
the items shown are built, and an edit that leaves the labels alone rebuilds nothing. Counted, never
timed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from colosseum.index import ProjectIndex
from colosseum_lsp.context import FeatureContext, Project
from colosseum_lsp.convert import CompletionClient
from colosseum_lsp.features import completion
from colosseum_lsp.features.completion import MAX_ITEMS, CompletionRequest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import synthetic  # noqa: E402

CHAPTER = "chapters/ch008.tex"


@pytest.fixture(scope="module")
def paper(tmp_path_factory):
    root = tmp_path_factory.mktemp("labels3000")
    written = synthetic.write_project(root, seed=1, n_lines=15_000, n_files=16, n_labels=3_000, n_undefined=2)
    assert len(written.labels) == 3_000
    index = ProjectIndex.open(root)
    return root, index


def _context(root: Path, index: ProjectIndex, project: Project | None = None) -> FeatureContext:
    project = project or Project(root_dir=root, index=index)
    return FeatureContext(path=(root / CHAPTER).resolve(), project=project, snapshot=index.snapshot, options=None,
                          spawn=None, progress=None, publish=lambda: None, state=project.state,
                          document_version=lambda uri: None)


def _ask(fc: FeatureContext, typed: str, at_line: int, before: str = "") -> dict:
    """Completion in \\cref{ at the start of line ``at_line`` of the chapter (0-based)."""
    lines = (fc.path).read_text().splitlines(keepends=True)
    text_before = before + "See \\cref{" + typed
    offset = sum(map(len, lines[:at_line]))
    request = CompletionRequest(text_before, "}", (at_line, len(text_before)), offset,
                                CompletionClient(insert_replace=True, default_edit_range=True))
    return completion.completions(fc, request)


def _labels(answer: dict) -> list[str]:
    return [item["label"] for item in answer["items"]]


def _sections_of(fc: FeatureContext) -> list[tuple[int, str]]:
    snap = fc.snapshot
    return sorted((s.anchor.offset + s.rel_span[0], s.id) for s in snap.sections.values() if s.file == fc.path)


def test_an_empty_argument_lists_a_bounded_page_of_the_cursors_section_first(paper):
    root, index = paper
    fc = _context(root, index)
    sections = _sections_of(fc)
    start, end = sections[2][0], sections[3][0]  # the cursor in the third section of the chapter
    text = fc.path.read_text()
    line = text.count("\n", 0, start) + 3
    answer = _ask(fc, "", line)
    assert answer["isIncomplete"] is True and len(answer["items"]) == MAX_ITEMS
    assert [item["sortText"] for item in answer["items"]] == sorted(item["sortText"] for item in answer["items"])
    in_section = [name for name, labels in fc.snapshot.labels.items()
                  if labels[0].file == fc.path and start <= labels[0].offset < end]
    assert in_section and _labels(answer)[:len(in_section)] == sorted(
        in_section, key=lambda n: (fc.snapshot.labels[n][0].owner not in fc.snapshot.claims, n))
    # then the rest of the file, before any other file
    shown_files = [fc.snapshot.labels[name][0].file for name in _labels(answer)]
    first_elsewhere = next((i for i, f in enumerate(shown_files) if f != fc.path), len(shown_files))
    assert all(f != fc.path for f in shown_files[first_elsewhere:])
    # each item is light: no edit of its own (the list gives the range once)
    assert "editRange" in answer["itemDefaults"] and not any("textEdit" in item for item in answer["items"])


def test_the_exact_name_then_prefix_matches_then_names_that_only_contain_it(paper):
    root, index = paper
    fc = _context(root, index)
    answer = _ask(fc, "eq:0001", 5)
    names = _labels(answer)
    assert names[0] == "eq:00010" or names[0].startswith("eq:0001")
    assert all(name.startswith("eq:0001") for name in names)
    far = next(name for name, labels in fc.snapshot.labels.items() if labels[0].file.name == "ch015.tex")
    assert _labels(_ask(fc, far, 5))[0] == far  # typed in full: first, though in another file
    contained = _ask(fc, "00123", 5)  # no name starts with it: every one that contains it
    assert _labels(contained) and all("00123" in name for name in _labels(contained))
    assert contained["isIncomplete"] is False
    mixed = _ask(fc, "eq", 5)  # prefix matches first, then names that only contain "eq"
    starts = [name.startswith("eq") for name in _labels(mixed)]
    assert starts == sorted(starts, reverse=True)


def test_the_labels_the_author_referenced_last_come_before_the_rest_of_the_paper(paper):
    root, index = paper
    fc = _context(root, index)
    far = next(name for name, labels in fc.snapshot.labels.items()
               if labels[0].file.name == "ch015.tex" and name.startswith("thm:"))
    before = _labels(_ask(fc, "thm:", 5))
    assert far not in before[:5]
    _ask(fc, "", 5, before=f"Recall \\cref{{{far}}}.\n")  # the author just referenced it
    after = _labels(_ask(fc, "thm:", 5))
    here = [n for n in after if fc.snapshot.labels[n][0].file == fc.path]
    assert after[len(here)] == far  # right after the labels of the cursor's own file


def test_only_the_items_shown_are_built_and_an_edit_keeping_the_labels_rebuilds_nothing(paper, monkeypatch):
    root, index = paper
    project = Project(root_dir=root, index=index)
    fc = _context(root, index, project)
    built = []
    real = completion._item
    monkeypatch.setattr(completion, "_item", lambda fc, name: built.append(name) or real(fc, name))
    _ask(fc, "", 5)
    assert len(built) == MAX_ITEMS  # of 3,000 labels
    ordered = completion._candidates(fc).ordered
    path = fc.path
    index.update_document(path, path.read_text().replace("Sequence", "Sequences", 1))
    fc = _context(root, index, project)
    assert fc.snapshot is not None and completion._candidates(fc).ordered is ordered
    index.update_document(path, path.read_text() + "\\begin{equation}\\label{eq:new}x\\end{equation}\n")
    fc = _context(root, index, project)
    assert completion._candidates(fc).ordered is not ordered  # a label came: read again
    assert "eq:new" in _labels(_ask(fc, "eq:new", 5))[:1]
