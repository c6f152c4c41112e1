"""Deterministic generator of synthetic LaTeX proof projects, and of edit sequences on them.

Used by ``bench/run.py`` (cold index, peak memory, edit latency) and meant to be reused by the
language-server benchmark. Everything is a pure function of the parameters and the seed: the
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
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_SEED = 1
DEFAULT_LINES = 50_000
DEFAULT_FILES = 200
DEFAULT_LABELS = 5_000
DEFAULT_UNDEFINED = 10

CLAIM_KINDS = (
    # (environment, label prefix, weight, has proof)
    ("lemma", "lem", 40, True),
    ("theorem", "thm", 12, True),
    ("proposition", "prop", 14, True),
    ("corollary", "cor", 8, True),
    ("definition", "def", 20, False),
    ("remark", "rem", 6, False),
)

WORDS = (
    "bounded measurable compact continuous finite dense separable integrable smooth "
    "monotone convex closed open disjoint countable unique nonempty normal regular "
    "function measure operator sequence series ideal module group ring field space "
    "kernel image cover norm metric subset limit bound estimate constant family"
).split()

MATH = (
    r"$\|f\|_{L^2} \le C \|g\|_{L^2}$",
    r"$x \in X$",
    r"$\mu(E) < \infty$",
    r"$\sum_{n \ge 1} a_n$",
    r"$T \colon V \to W$",
    r"$\int_X f \, d\mu$",
    r"$n \to \infty$",
    r"$\varepsilon > 0$",
    r"$G / H$",
    r"$\mathbb{R}^d$",
)

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


class _ChapterWriter:
    """Writes one chapter: blocks of lines, then prose padding between blocks."""

    def __init__(self, gen: "_Generator", index: int, n_lines: int, n_labels: int, n_undefined: int):
        self.g = gen
        self.rng = gen.rng
        self.index = index
        self.n_lines = n_lines
        self.n_labels = n_labels
        self.n_undefined = n_undefined
        self.blocks: list[list[str]] = []
        self.labels_left = n_labels

    # -- helpers ---------------------------------------------------------------------------
    def sentence(self, n_words: int | None = None, math: bool = True) -> str:
        rng = self.rng
        n = n_words or rng.randint(6, 12)
        words = [rng.choice(WORDS) for _ in range(n)]
        if rng.random() < 0.5 and math:
            words.insert(rng.randrange(len(words)), rng.choice(MATH))
        text = " ".join(words)
        return text[0].upper() + text[1:] + "."

    def new_label(self, prefix: str) -> str:
        self.g.serial += 1
        name = f"{prefix}:{self.g.serial:05d}"
        self.labels_left -= 1
        return name

    def define(self, name: str, kind: str) -> None:
        self.g.defined.append(name)
        self.g.kind_of[name] = kind

    def earlier(self, kinds: tuple[str, ...] | None = None) -> str | None:
        """An earlier label (mostly recent ones), optionally of given kinds."""
        pool = self.g.defined
        if not pool:
            return None
        rng = self.rng
        for _ in range(12):
            if rng.random() < 0.7:
                i = len(pool) - 1 - min(len(pool) - 1, int(rng.expovariate(1 / 40)))
            else:
                i = rng.randrange(len(pool))
            name = pool[i]
            if kinds is None or self.g.kind_of[name] in kinds:
                return name
        return None

    def ref_phrase(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.35:
            t = self.earlier()
            return f"\\cref{{{t}}}" if t else ""
        if r < 0.55:
            t = self.earlier(("lem",))
            return f"\\lemref{{{t}}}" if t else ""
        if r < 0.70:
            t = self.earlier(("eq",))
            return f"\\eqref{{{t}}}" if t else ""
        if r < 0.80:
            t = self.earlier(("thm",))
            return f"\\thmref{{{t}}}" if t else ""
        t = self.earlier()
        return f"Section~\\ref{{{t}}}" if t and self.g.kind_of[t] == "sec" else (f"\\ref{{{t}}}" if t else "")

    def uses_line(self, n: int) -> str | None:
        targets = []
        for _ in range(n):
            t = self.earlier(("lem", "thm", "prop", "cor", "def"))
            if t and t not in targets:
                targets.append(t)
        if not targets:
            return None
        return "  \\uses{" + ", ".join(targets) + "}"

    # -- blocks ----------------------------------------------------------------------------
    def claim_block(self) -> list[str]:
        rng = self.rng
        env, prefix, _, has_proof = rng.choices(CLAIM_KINDS, weights=[k[2] for k in CLAIM_KINDS])[0]
        label = self.new_label(prefix)
        title = f"[{self.sentence(3, math=False)[:-1]}]" if rng.random() < 0.5 else ""
        lines = [f"\\begin{{{env}}}{title}\\label{{{label}}}"]
        if rng.random() < 0.3:
            lines.append(f"  \\lean{{Synthetic.{prefix}{self.g.serial}}}" + ("\\leanok" if rng.random() < 0.5 else ""))
        if rng.random() < 0.6:
            u = self.uses_line(rng.randint(1, 3))
            if u:
                lines.append(u)
        stmt = self.sentence()
        if rng.random() < 0.3:
            ref = self.ref_phrase()
            if ref:
                stmt = f"Assume {ref}. " + stmt
        lines.append("  " + stmt)
        lines.append(f"\\end{{{env}}}")
        self.define(label, prefix)
        if has_proof:
            lines.append("\\begin{proof}")
            if rng.random() < 0.7:
                u = self.uses_line(rng.randint(1, 4))
                if u:
                    lines.append(u)
            for _ in range(rng.randint(1, 2)):
                ref = self.ref_phrase()
                s = self.sentence()
                lines.append(f"  By {ref}, {s[0].lower()}{s[1:]}" if ref else "  " + s)
            if self.labels_left > 0 and rng.random() < 0.25:
                eq = self.new_label("eq")
                lines += [f"  \\begin{{equation}}\\label{{{eq}}}", f"    a_{{{self.g.serial}}} \\le C \\, b_{{{self.g.serial}}}", "  \\end{equation}"]
                lines.append(f"  Combining \\eqref{{{eq}}} with the above finishes the proof.")
                self.define(eq, "eq")
            lines.append("\\end{proof}")
        lines.append("")
        return lines

    def equation_block(self) -> list[str]:
        label = self.new_label("eq")
        lines = [
            "\\begin{equation}\\label{" + label + "}",
            f"  \\int_X f_{{{self.g.serial}}} \\, d\\mu = \\sum_{{n}} c_n",
            "\\end{equation}",
        ]
        self.define(label, "eq")
        return lines

    def section_block(self, level: str = "section") -> list[str]:
        label = self.new_label("sec")
        lines = [f"\\{level}{{{self.sentence(3, math=False)[:-1]}}}\\label{{{label}}}", ""]
        self.define(label, "sec")
        return lines

    def decoy_block(self) -> list[str]:
        rng = self.rng
        n = self.g.serial
        if rng.random() < 0.5:
            return [
                "\\begin{verbatim}",
                f"  \\label{{verb:{n}}} and \\ref{{verb:nowhere-{n}}} are not LaTeX here",
                "  % nor is this a comment",
                "\\end{verbatim}",
                "",
            ]
        return [
            f"% TODO: \\cref{{comment:nowhere-{n}}} once it is written",
            f"% \\begin{{lemma}}\\label{{comment:lem-{n}}} commented out \\end{{lemma}}",
        ]

    def undefined_block(self, k: int) -> list[str]:
        name = f"missing:{k:03d}"
        self.g.undefined.append(name)
        return [f"This relies on \\cref{{{name}}}, which is not written yet.", ""]

    # -- assembly --------------------------------------------------------------------------
    def build(self) -> str:
        rng = self.rng
        idx = self.index
        head = [f"% Chapter {idx:03d} of a synthetic Colosseum benchmark project.", ""]
        chap_label = self.new_label("sec")
        head += [f"\\chapter{{Chapter {idx}}}\\label{{{chap_label}}}", ""]
        self.define(chap_label, "sec")
        budget_lines = self.n_lines - len(head) - 1
        # blocks until the label quota is used; prefer cheap blocks when lines run short
        while self.labels_left > 0:
            used = sum(len(b) for b in self.blocks)
            slack = budget_lines - used - 5 * self.labels_left
            r = rng.random()
            if r < 0.06 and self.labels_left > 0:
                self.blocks.append(self.section_block("section" if rng.random() < 0.6 else "subsection"))
            elif r < 0.40 or slack < 20:
                self.blocks.append(self.equation_block())
            else:
                self.blocks.append(self.claim_block())
            if rng.random() < 0.05:
                self.blocks.append(self.decoy_block())
        for _ in range(self.n_undefined):
            pos = rng.randint(0, len(self.blocks))
            self.g.undefined_serial += 1
            self.blocks.insert(pos, self.undefined_block(self.g.undefined_serial))
        used = sum(len(b) for b in self.blocks)
        deficit = budget_lines - used
        if deficit < 0:
            raise ValueError(f"chapter {idx}: {used} lines of blocks exceed the budget {budget_lines}")
        # prose padding in the gaps between blocks
        gaps = len(self.blocks) + 1
        pad = [0] * gaps
        # paragraphs of 2..6 lines, spread at random over the gaps
        while deficit > 0:
            n = min(deficit, rng.randint(2, 6))
            pad[rng.randrange(gaps)] += n
            deficit -= n
        out = list(head)
        for i in range(gaps):
            out += self.prose(pad[i])
            if i < len(self.blocks):
                out += self.blocks[i]
        out.append(f"% end of chapter {idx:03d}")
        assert len(out) == self.n_lines, (len(out), self.n_lines)
        return "\n".join(out) + "\n"

    def prose(self, n: int) -> list[str]:
        rng = self.rng
        lines = []
        for j in range(n):
            if j == n - 1 and n > 1:
                lines.append("")  # paragraph break
            elif rng.random() < 0.08:
                lines.append("% " + self.sentence(5))
            else:
                lines.append(self.sentence())
        return lines


class _Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.serial = 0
        self.undefined_serial = 0
        self.defined: list[str] = []
        self.kind_of: dict[str, str] = {}
        self.undefined: list[str] = []


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
    gen = _Generator(seed)
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
        texts[name] = _ChapterWriter(gen, i + 1, lines_per[i], labels_per[i], undefined_per[i]).build()
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


# ------------------------------------------------------------------------------------------
# A reference model of labels and references, valid for the generator's own output format.

_REF_RE = re.compile(r"\\(ref|cref|Cref|eqref|uses|proves|lemref|thmref)\{([^}]*)\}")
_LABEL_RE = re.compile(r"\\label\{([^}]*)\}")


@dataclass
class Model:
    labels: dict[str, int]  # name -> number of definitions
    references: list[tuple[str, int, str, str]]  # (file, 0-based line, command, label)

    def undefined_count(self) -> int:
        return sum(1 for r in self.references if r[3] not in self.labels)


def _analyze_file(rel: str, text: str) -> tuple[list[str], list[tuple[str, int, str, str]]]:
    labels: list[str] = []
    refs: list[tuple[str, int, str, str]] = []
    in_verbatim = False
    for n, line in enumerate(text.split("\n")):
        if in_verbatim:
            if "\\end{verbatim}" in line:
                in_verbatim = False
            continue
        if line.lstrip().startswith("\\begin{verbatim}"):
            in_verbatim = True
            continue
        cut = re.search(r"(?<!\\)%", line)
        if cut:
            line = line[: cut.start()]
        labels += _LABEL_RE.findall(line)
        for cmd, arg in _REF_RE.findall(line):
            for name in arg.split(","):
                name = name.strip()
                if name and "#" not in name:  # skip macro parameters (\newcommand bodies)
                    refs.append((rel, n, cmd, name))
    return labels, refs


def analyze(texts: dict[str, str]) -> Model:
    labels: dict[str, int] = {}
    refs: list[tuple[str, int, str, str]] = []
    for rel, text in texts.items():
        ls, rs = _analyze_file(rel, text)
        for name in ls:
            labels[name] = labels.get(name, 0) + 1
        refs += rs
    return Model(labels, refs)


# ------------------------------------------------------------------------------------------
# Edit sequences: each edit changes a reference target or adds/removes a label.


@dataclass
class Edit:
    kind: str  # retarget | add-label | remove-label
    start_line: int  # replace lines [start_line, end_line) ...
    end_line: int
    new_lines: list[str]  # ... by these lines
    description: str
    text: str = ""  # the whole file text after the edit

    def lsp_change(self) -> dict:
        """A ranged textDocument/didChange content change (0-based lines, whole lines)."""
        return {
            "range": {
                "start": {"line": self.start_line, "character": 0},
                "end": {"line": self.end_line, "character": 0},
            },
            "text": "".join(line + "\n" for line in self.new_lines),
        }


class EditSequence:
    """Deterministic edits to one file of a project; keeps the project texts up to date."""

    def __init__(self, project: SyntheticProject, rel: str, seed: int = 7):
        self.project = project
        self.rel = rel
        self.rng = random.Random(seed)
        self.texts = dict(project.texts)
        text = self.texts[rel]
        assert text.endswith("\n")
        self.lines = text[:-1].split("\n")
        self.counter = 0
        self.added: list[str] = []  # labels added by earlier edits, still present
        self._other = analyze({k: v for k, v in self.texts.items() if k != rel})

    @property
    def path(self) -> Path | None:
        return self.project.root / self.rel if self.project.root else None

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def expected_undefined_references(self) -> int:
        labels, refs = _analyze_file(self.rel, self.text())
        all_labels = dict(self._other.labels)
        for name in labels:
            all_labels[name] = all_labels.get(name, 0) + 1
        return sum(1 for r in self._other.references + refs if r[3] not in all_labels)

    def _code_lines(self) -> list[bool]:
        """Per line: True when outside verbatim and not a comment line."""
        out = []
        in_verbatim = False
        for line in self.lines:
            s = line.lstrip()
            if in_verbatim:
                out.append(False)
                if "\\end{verbatim}" in line:
                    in_verbatim = False
                continue
            if s.startswith("\\begin{verbatim}"):
                in_verbatim = True
                out.append(False)
                continue
            out.append(not s.startswith("%"))
        return out

    def _top_level_blank_lines(self) -> list[int]:
        depth = 0
        out = []
        code = self._code_lines()
        for i, line in enumerate(self.lines):
            if code[i]:
                depth += line.count("\\begin{") - line.count("\\end{")
                if depth == 0 and line == "" and i > 3:
                    out.append(i)
        return out

    def _defined_here(self) -> list[tuple[int, str]]:
        code = self._code_lines()
        return [(i, m.group(1)) for i, line in enumerate(self.lines) if code[i]
                for m in _LABEL_RE.finditer(line)]

    def _retarget(self) -> Edit:
        rng = self.rng
        code = self._code_lines()
        cands = [(i, m) for i, line in enumerate(self.lines) if code[i]
                 for m in re.finditer(r"\\(cref|ref|eqref|uses)\{([^}]*)\}", line)]
        i, m = rng.choice(cands)
        names = [s.strip() for s in m.group(2).split(",")]
        j = rng.randrange(len(names))
        old = names[j]
        if rng.random() < 0.25:
            self.counter += 1
            new = f"missing:edit-{self.counter:03d}"
        else:
            # another label defined above this line in the same file, or anywhere in other files
            # of a kind that fits the command (eqref: equations, uses: claims)
            fits = {"eqref": ("eq",), "uses": ("lem", "thm", "prop", "cor", "def", "rem")}.get(m.group(1))
            here = [name for (k, name) in self._defined_here() if k < i]
            pool = here if here and rng.random() < 0.7 else self.project.labels
            if fits:
                pool = [name for name in pool if name.split(":", 1)[0] in fits] or [
                    name for name in self.project.labels if name.split(":", 1)[0] in fits]
            new = rng.choice(pool)
        names[j] = new
        line = self.lines[i]
        new_line = line[: m.start(2)] + ", ".join(names) + line[m.end(2):]
        return Edit("retarget", i, i + 1, [new_line], f"line {i + 1}: \\{m.group(1)} {old} -> {new}")

    def _add_label(self) -> Edit:
        rng = self.rng
        spots = self._top_level_blank_lines()
        i = rng.choice(spots)
        self.counter += 1
        name = f"eq:edit-{self.counter:03d}"
        self.added.append(name)
        new = ["", "\\begin{equation}\\label{" + name + "}", f"  x_{{{self.counter}}} = y_{{{self.counter}}}", "\\end{equation}", ""]
        return Edit("add-label", i, i + 1, new, f"line {i + 1}: new equation \\label{{{name}}}")

    def _remove_label(self) -> Edit:
        rng = self.rng
        if self.added and rng.random() < 0.5:
            name = self.added.pop(rng.randrange(len(self.added)))
            i = next(k for k, line in enumerate(self.lines) if "\\label{" + name + "}" in line)
            # remove the whole block added by _add_label (4 lines: begin, body, end, blank)
            return Edit("remove-label", i, i + 4, [], f"line {i + 1}: removed equation {name}")
        defined = [(k, n) for (k, n) in self._defined_here() if not n.startswith("eq:edit-")]
        i, name = rng.choice(defined)
        line = self.lines[i]
        new_line = line.replace("\\label{" + name + "}", "", 1)
        return Edit("remove-label", i, i + 1, [new_line], f"line {i + 1}: removed \\label{{{name}}}")

    def next_edit(self) -> Edit:
        r = self.rng.random()
        edit = None
        try:
            if r < 0.5:
                edit = self._retarget()
            elif r >= 0.75:
                edit = self._remove_label()
        except IndexError:  # nothing to retarget or remove in this file: add a label instead
            edit = None
        if edit is None:
            edit = self._add_label()
        self.lines[edit.start_line: edit.end_line] = edit.new_lines
        edit.text = self.text()
        self.texts[self.rel] = edit.text
        return edit

    def edits(self, n: int):
        for _ in range(n):
            yield self.next_edit()


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
