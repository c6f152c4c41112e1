"""What the generator's own text says, and seeded edits to it: the reference a benchmark checks an
engine against after every edit.

``analyze`` is a model of labels and references that holds for the generator's output format (one
command per argument list, comments and verbatim blocks by line), not for LaTeX in general.
``EditSequence`` edits one file of a ``synthetic.SyntheticProject``: each edit changes a reference
target or adds or removes a label, and the sequence keeps the project texts and the expected
number of undefined references up to date.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from synthetic import SyntheticProject


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
    lines = text.split("\n")
    for n, (line, is_code) in enumerate(zip(lines, code_lines(lines))):
        if not is_code:
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


def code_lines(lines: list[str]) -> list[bool]:
    """Per line: True when outside verbatim and not a comment line (the generator's layout)."""
    out = []
    in_verbatim = False
    for line in lines:
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

    def _top_level_blank_lines(self) -> list[int]:
        depth = 0
        out = []
        code = code_lines(self.lines)
        for i, line in enumerate(self.lines):
            if code[i]:
                depth += line.count("\\begin{") - line.count("\\end{")
                if depth == 0 and line == "" and i > 3:
                    out.append(i)
        return out

    def _defined_here(self) -> list[tuple[int, str]]:
        code = code_lines(self.lines)
        return [(i, m.group(1)) for i, line in enumerate(self.lines) if code[i]
                for m in _LABEL_RE.finditer(line)]

    def _retarget(self) -> Edit:
        rng = self.rng
        code = code_lines(self.lines)
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
