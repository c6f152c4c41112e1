"""Deterministic generator of synthetic LaTeX proof projects, and of edit sequences on them.

Used by the suite's engine rows (``bench/engine_rows.py``: cold index, peak memory, edit latency),
by the language-server benchmark and by tests. The chapters' text comes from
``synthetic_chapters.py``; the edits and the model that checks them live in ``synthetic_edits.py``
and are importable from here. Everything is a pure function of the parameters and the seed: the
same call writes byte-identical files on every machine and Python >= 3.11.

A project has a root ``main.tex`` (``\\documentclass``, a preamble with ``\\newtheorem``
declarations and wrapper macros such as ``\\newcommand{\\lemref}[1]{Lemma~\\ref{#1}}``, then one
``\\input{chapters/chNNN}`` line per chapter) and ``n_files - 1`` chapter files. Chapters hold
sections, theorem-like environments with ``\\label``, proofs whose ``\\cref``/``\\ref``/
``\\eqref``/``\\uses``/``\\lemref`` point only at labels defined *earlier* in document order (so
the dependency graph is a DAG), labelled equations, comments and verbatim blocks. Comments and
verbatim blocks contain decoy references that a correct indexer must ignore, and
``n_undefined`` references point at labels that exist nowhere. The project compiles with
pdflatex; LaTeX then reports exactly ``n_undefined`` undefined references.

Command line (writes a project and prints its statistics as JSON)::

    python bench/synthetic.py OUT_DIR [--seed 1] [--lines 50000] [--files 200] [--labels 5000]
                                      [--big-file-lines 10000] [--undefined 10]

Library::

    from synthetic import generate, write_project, EditSequence, analyze
    project = write_project(tmp_dir, seed=1)                  # SyntheticProject
    seq = EditSequence(project, project.big_file, seed=7)     # edits to one file
    for edit in seq.edits(50):
        edit.kind, edit.start_line, edit.end_line, edit.new_lines, edit.description
        edit.text          # whole new text of the file after the edit
        edit.lsp_change()  # {"range": ..., "text": ...} for textDocument/didChange
        seq.expected_undefined_references()  # what a correct engine reports now
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from synthetic_chapters import ChapterWriter, GenerationState
# The edit side of the library, importable from here as the README shows.
from synthetic_edits import Edit, EditSequence, Model, analyze

__all__ = ["SyntheticProject", "generate", "write_project", "Edit", "EditSequence", "Model", "analyze",
           "DEFAULT_SEED", "PREAMBLE"]

DEFAULT_SEED = 1
DEFAULT_LINES = 50_000
DEFAULT_FILES = 200
DEFAULT_LABELS = 5_000
DEFAULT_UNDEFINED = 10

PREAMBLE = r"""\documentclass{{report}}
\usepackage{{amsmath,amssymb,amsthm}}
\usepackage{{hyperref}}
\usepackage[capitalize]{{cleveref}}

% Blueprint macros, so that the project also compiles without the blueprint package.
\providecommand{{\uses}}[1]{{}}
\providecommand{{\proves}}[1]{{}}
\providecommand{{\lean}}[1]{{}}
\providecommand{{\leanok}}{{}}

\theoremstyle{{plain}}
\newtheorem{{theorem}}{{Theorem}}[chapter]
\newtheorem{{lemma}}[theorem]{{Lemma}}
\newtheorem{{proposition}}[theorem]{{Proposition}}
\newtheorem{{corollary}}[theorem]{{Corollary}}
\theoremstyle{{definition}}
\newtheorem{{definition}}[theorem]{{Definition}}
\theoremstyle{{remark}}
\newtheorem{{remark}}[theorem]{{Remark}}

% Wrapper macros around \ref.
\newcommand{{\lemref}}[1]{{Lemma~\ref{{#1}}}}
\newcommand{{\thmref}}[1]{{Theorem~\ref{{#1}}}}
\newcommand{{\R}}{{\mathbb{{R}}}}

\title{{Synthetic benchmark project}}
\author{{Colosseum bench (seed {seed})}}

\begin{{document}}
\maketitle
\tableofcontents
"""


@dataclass
class SyntheticProject:
    root: Path | None  # project directory (None until written)
    texts: dict[str, str]  # relative posix path -> text, in document order (main.tex first)
    seed: int
    labels: list[str]  # every label, in document order
    undefined: list[str]  # deliberately undefined reference targets
    big_file: str | None  # relative path of the big file, if one was requested
    params: dict = field(default_factory=dict)

    @property
    def main(self) -> str:
        return "main.tex"

    def line_counts(self) -> dict[str, int]:
        return {rel: text.count("\n") for rel, text in self.texts.items()}

    def stats(self) -> dict:
        counts = self.line_counts()
        model = analyze(self.texts)
        return {
            "root": str(self.root) if self.root else None,
            "params": self.params,
            "files": len(self.texts),
            "lines": sum(counts.values()),
            "labels": len(self.labels),
            "labels_found_by_model": sum(model.labels.values()),
            "references": len(model.references),
            "undefined_references": model.undefined_count(),
            "big_file": self.big_file,
            "big_file_lines": counts.get(self.big_file) if self.big_file else None,
            "max_file_lines": max(counts.values()),
        }


def _split_evenly(total: int, weights: list[float]) -> list[int]:
    """Integer parts proportional to weights, summing exactly to total (largest remainder)."""
    s = sum(weights)
    raw = [total * w / s for w in weights]
    parts = [int(x) for x in raw]
    rest = total - sum(parts)
    order = sorted(range(len(raw)), key=lambda i: (-(raw[i] - parts[i]), i))
    for i in order[:rest]:
        parts[i] += 1
    return parts


def generate(
    *,
    seed: int = DEFAULT_SEED,
    n_lines: int = DEFAULT_LINES,
    n_files: int = DEFAULT_FILES,
    n_labels: int = DEFAULT_LABELS,
    n_undefined: int = DEFAULT_UNDEFINED,
    big_file_lines: int | None = None,
) -> SyntheticProject:
    """Build a project in memory. ``n_lines``/``n_files``/``n_labels`` are met exactly."""
    if n_files < 2:
        raise ValueError("need at least 2 files (main.tex and one chapter)")
    gen = GenerationState(seed)
    rng = gen.rng
    n_chapters = n_files - 1
    chapter_names = [f"chapters/ch{i:03d}.tex" for i in range(1, n_chapters + 1)]
    main_lines = PREAMBLE.format(seed=seed).count("\n") + n_chapters + 1  # + \end{document}
    rest = n_lines - main_lines
    big_idx = None
    if big_file_lines:
        big_idx = n_chapters // 2
        if big_file_lines > rest:
            raise ValueError("big file larger than the project")
    weights = [rng.uniform(0.6, 1.4) for _ in range(n_chapters)]
    if big_idx is not None:
        others = _split_evenly(rest - big_file_lines, [w for i, w in enumerate(weights) if i != big_idx])
        lines_per = others[:big_idx] + [big_file_lines] + others[big_idx:]
    else:
        lines_per = _split_evenly(rest, weights)
    labels_per = _split_evenly(n_labels, [float(n) for n in lines_per])
    if min(labels_per) < 1:
        raise ValueError("too few labels: every chapter needs at least its \\chapter label")
    undefined_per = [0] * n_chapters
    for i in rng.sample(range(n_chapters), min(n_undefined, n_chapters)):
        undefined_per[i] += 1
    for _ in range(n_undefined - n_chapters):
        undefined_per[rng.randrange(n_chapters)] += 1

    texts: dict[str, str] = {}
    main = PREAMBLE.format(seed=seed) + "".join(
        f"\\input{{{name[:-4]}}}\n" for name in chapter_names
    ) + "\\end{document}\n"
    assert main.count("\n") == main_lines
    texts["main.tex"] = main
    for i, name in enumerate(chapter_names):
        texts[name] = ChapterWriter(gen, i + 1, lines_per[i], labels_per[i], undefined_per[i]).build()
    params = dict(seed=seed, n_lines=n_lines, n_files=n_files, n_labels=n_labels,
                  n_undefined=n_undefined, big_file_lines=big_file_lines)
    return SyntheticProject(
        root=None,
        texts=texts,
        seed=seed,
        labels=list(gen.defined),
        undefined=list(gen.undefined),
        big_file=chapter_names[big_idx] if big_idx is not None else None,
        params=params,
    )


def write_project(out_dir: str | Path, **kwargs) -> SyntheticProject:
    """Generate (see ``generate``) and write the project under out_dir (created if needed)."""
    project = generate(**kwargs)
    root = Path(out_dir)
    for rel, text in project.texts.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    project.root = root
    return project


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--lines", type=int, default=DEFAULT_LINES)
    ap.add_argument("--files", type=int, default=DEFAULT_FILES)
    ap.add_argument("--labels", type=int, default=DEFAULT_LABELS)
    ap.add_argument("--undefined", type=int, default=DEFAULT_UNDEFINED)
    ap.add_argument("--big-file-lines", type=int, default=None)
    a = ap.parse_args(argv)
    project = write_project(a.out_dir, seed=a.seed, n_lines=a.lines, n_files=a.files,
                            n_labels=a.labels, n_undefined=a.undefined, big_file_lines=a.big_file_lines)
    json.dump(project.stats(), sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
