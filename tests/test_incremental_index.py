"""An index kept up to date edit by edit says exactly what a cold index of the same texts says.

Random edits (hypothesis on the example project, seeded sequences on a synthetic project) are
applied through ``update_document``; after every edit the whole index (claims, sections, labels,
references, edges, statuses, cycles, diagnostics) is compared with a cold ``ProjectIndex.open`` of
a copy of the project holding the same texts.
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from colosseum.index import ProjectIndex
from index_fingerprint import differences, fingerprint

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "example-project"
sys.path.insert(0, str(REPO / "bench"))

SNIPPETS = [
    "x", "\n", "\n\n", "\\label{new}", "\\label{lem:resampling}", "\\cref{a,b}", "\\cref{lem:resampling}",
    "}", "{", "%", "% colosseum: obligation\n", "\\obligation", "\\begin{verbatim}", "\\end{verbatim}",
    "\\iffalse", "\\fi", "\\begin{lemma}", "\\end{lemma}", "\\begin{proof}", "\\end{proof}",
    "\\begin{lemma}\\label{lem:fresh}\nA statement \\cref{thm:main}.\n\\end{lemma}\n",
    "\\begin{proof}\nBy \\cref{lem:fresh}.\n\\end{proof}\n", "\\begin{proof}[Proof of \\cref{lem:fresh}]\nOk.\n\\end{proof}\n",
    "\\section{Inserted}\\label{sec:inserted}\n", "\\subsection{Sub}\n", "\\chapter{C}\n",
    "\\newtheorem{principle}{Principle}\n", "\\begin{principle}\\label{pr:a}\nP.\n\\end{principle}\n",
    "\\newcommand{\\foo}[1]{\\ref{#1}}", "\\foo{lem:fresh}", "\\uses{p,\n q}", "\\leanok", "\\lean{A.b}",
    "\\\\", "\\%", "\\end{document}", "\\begin{equation}\\label{eq:new}x\\end{equation}", "é𝔽", "",
]


def _tex_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.tex") if ".colosseum" not in p.parts)


class Mirror:
    """The project under edit (indexed incrementally) and a copy that is indexed cold each time."""

    def __init__(self, source: Path, workdir: Path):
        self.live = workdir / "live"
        self.cold = workdir / "cold"
        shutil.copytree(source, self.live)
        shutil.copytree(source, self.cold)
        self.index = ProjectIndex.open(self.live)
        self.index.diagnostics()
        self.texts = {p.relative_to(self.live).as_posix(): p.read_text(encoding="utf-8") for p in _tex_files(self.live)}

    def edit(self, rel: str, text: str) -> None:
        self.texts[rel] = text
        self.index.update_document(self.live / rel, text)
        (self.cold / rel).write_text(text, encoding="utf-8")

    def check(self, what: str) -> None:
        cold = ProjectIndex.open(self.cold)
        diff = differences(fingerprint(self.index), fingerprint(cold))
        assert not diff, f"after {what}:\n" + "\n".join(diff)


def _splice(text: str, where: float, length: int, inserted: str) -> str:
    start = int(where * len(text))
    return text[:start] + inserted + text[start + length:]


EDIT = st.tuples(st.integers(0, 10**6), st.floats(0, 1), st.integers(0, 80), st.lists(st.sampled_from(SNIPPETS), max_size=3))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(EDIT, min_size=1, max_size=4))
def test_random_edits_of_the_example_project_match_a_cold_index(tmp_path_factory, edits):
    mirror = Mirror(EXAMPLE, tmp_path_factory.mktemp("example"))
    names = sorted(mirror.texts)
    for n, (pick, where, length, inserted) in enumerate(edits):
        rel = names[pick % len(names)]
        mirror.edit(rel, _splice(mirror.texts[rel], where, length, "".join(inserted)))
        mirror.check(f"edit {n + 1} of {rel}: {length} characters at {where:.3f} replaced by {inserted!r}")


def test_edits_of_a_synthetic_project_match_a_cold_index(tmp_path):
    import synthetic

    project = synthetic.write_project(tmp_path / "src", seed=3, n_lines=6_000, n_files=12, n_labels=600,
                                      n_undefined=4, big_file_lines=2_000)
    mirror = Mirror(tmp_path / "src", tmp_path / "work")
    rel = project.big_file
    sequence = synthetic.EditSequence(project, rel, seed=11)
    for n, edit in enumerate(sequence.edits(25)):
        mirror.edit(rel, edit.text)
        mirror.check(f"synthetic edit {n + 1} ({edit.description})")
    # then edits that change the structure: sections, unclosed environments, proofs, includes
    rng = random.Random(5)
    names = sorted(mirror.texts)
    for n in range(25):
        target = rel if rng.random() < 0.6 else rng.choice(names)
        text = mirror.texts[target]
        inserted = "".join(rng.choice(SNIPPETS) for _ in range(rng.randint(0, 3)))
        mirror.edit(target, _splice(text, rng.random(), rng.randint(0, 120), inserted))
        mirror.check(f"structural edit {n + 1} of {target} ({inserted!r})")
