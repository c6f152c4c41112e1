"""The language server finds the label or reference under the cursor from per-chunk tables whose
positions are relative to each chunk: after edits that move chunks, every hit must still be the
item at that place in the current text, exactly as a table built from scratch says."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

from colosseum.index import ProjectIndex
from colosseum.core.structure import Position

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))
sys.path.insert(0, str(REPO / "bench"))

from colosseum_lsp.context import Project, ServerContext  # noqa: E402


class _Server:  # the part of a pygls server the lookups touch
    class workspace:
        text_documents: dict = {}


def _truth(index: ProjectIndex, path: Path) -> dict[tuple[int, int], object]:
    """Every position covered by a label or reference of the file, from their locations."""
    out = {}
    items = [lab for labels in index.labels.values() for lab in labels] + list(index.references)
    for item in items:
        if item.file != path:
            continue
        rng = item.location.range
        if rng.start.line != rng.end.line:
            continue
        for ch in range(rng.start.character, rng.end.character + 1):
            out[(rng.start.line, ch)] = item
    return out


def test_hits_follow_edits_that_move_chunks(tmp_path):
    import synthetic

    project = synthetic.write_project(tmp_path / "p", seed=4, n_lines=3_000, n_files=4, n_labels=300,
                                      n_undefined=2, big_file_lines=1_500)
    index = ProjectIndex.open(tmp_path / "p")
    ctx = ServerContext(_Server())
    ctx.projects[index.root_dir] = Project(index.root_dir, index=index)
    path = (tmp_path / "p" / project.big_file).resolve()
    sequence = synthetic.EditSequence(project, project.big_file, seed=9)
    rng = random.Random(2)
    for n, edit in enumerate(sequence.edits(12)):
        text = edit.text
        if n % 3 == 0:  # lines added at the top (taken away by the next edit): every chunk moves
            text = "% a comment\n" * rng.randint(1, 3) + text
        index.update_document(path, text)
        truth = _truth(index, path)
        lines = text.split("\n")
        probes = rng.sample(sorted(truth), 40) + [(i, m.start()) for i in rng.sample(range(len(lines)), 40)
                                                   for m in re.finditer(r"[a-z]", lines[i][:1])]
        for line, ch in probes:
            hit = ctx.item_at(path, Position(line, ch))
            want = truth.get((line, ch))
            if want is None:
                assert hit is None, f"edit {n}: at {line}:{ch} {hit} where there is nothing"
            else:
                assert hit is not None and hit[2] is want, f"edit {n}: at {line}:{ch} {hit} instead of {want}"
