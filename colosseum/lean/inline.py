"""Lean written in the paper itself: ``\\begin{lean} ... \\end{lean}``, ``lstlisting`` with
``language=Lean`` and ``minted`` with ``{lean}``. The blocks of one document, in reading order,
make one scratch file (a later block may use what an earlier one defined; their ``import`` lines
are moved to its top), and every line of that file remembers the ``.tex`` line it came from, so
Lean's findings land where the author wrote the code."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.latex.scanner import scan
from colosseum.latex.macros import MacroTable
from colosseum.core.source_text import LineIndex
from colosseum.core.structure import Position, Range

_LST_LANGUAGE = re.compile(r"language\s*=\s*\{?\s*lean4?\s*\}?\s*(?:[,\]]|$)", re.I)
_MINTED_LANGUAGE = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?\{\s*lean4?\s*\}", re.I)
_OPT_OUT = re.compile(r"^\s*--\s*colosseum\s*:\s*(?:no-check|skip)\b", re.I)
_IMPORT = re.compile(r"^\s*import\s+\S")
_MENTIONS_LEAN = re.compile(r"\\begin\s*\{\s*(?:lean|lstlisting|minted)\s*\}")
MAX_BLOCKS = 500


@dataclass(slots=True)
class InlineBlock:
    file: Path
    env: str
    begin_line: int  # the \begin line (0-based)
    first_line: int  # first line of code
    lines: list[str]  # the code, one entry per .tex line from first_line


@dataclass(slots=True)
class InlineUnit:
    """The scratch file of one document's inline Lean."""

    root: Path
    blocks: list[InlineBlock]
    text: str = ""
    imports: list[str] = field(default_factory=list)
    header_lines: int = 0
    origin: dict[int, tuple[Path, int]] = field(default_factory=dict)  # scratch line -> (.tex file, line)

    @property
    def name(self) -> str:
        return f"inline Lean of {self.root.name}"


def inline_blocks(path: Path, text: str) -> list[InlineBlock]:
    """The Lean blocks of one .tex file (comments and \\iffalse regions are not read: the
    scanner decides what LaTeX reads)."""
    if not _MENTIONS_LEAN.search(text):
        return []
    events = scan(text, MacroTable()).events
    lines = text.split("\n")
    line_index = LineIndex(text)
    starts, line_of = line_index.line_starts, line_index.line_of
    blocks: list[InlineBlock] = []
    for i, ev in enumerate(events):
        if ev.kind != "begin" or ev.extra != "verbatim" or ev.name.rstrip("*") not in ("lean", "lstlisting", "minted"):
            continue
        closing = next((e for e in events[i + 1:i + 2] if e.kind == "end" and e.name == ev.name), None)
        if closing is None:
            continue  # never closed: the scanner already reports it
        begin_line = line_of(ev.start)
        rest_of_line = text[ev.end:starts[begin_line] + len(lines[begin_line])]
        env = ev.name.rstrip("*")
        if env == "lstlisting" and not _LST_LANGUAGE.search(rest_of_line.split("]")[0] + "]"):
            continue
        if env == "minted" and not _MINTED_LANGUAGE.match(rest_of_line):
            continue
        end_line = line_of(closing.start)
        code = lines[begin_line + 1:end_line]
        before_end = text[starts[end_line]:closing.start] if end_line > begin_line else ""
        if before_end.strip():
            code.append(before_end)
        if not code or _OPT_OUT.match(next((c for c in code if c.strip()), "")):
            continue
        blocks.append(InlineBlock(path, env, begin_line, begin_line + 1, code))
        if len(blocks) >= MAX_BLOCKS:
            break
    return blocks


def inline_units(index, extra_imports: list[str] | None = None) -> list[InlineUnit]:
    """One scratch file per root document that has inline Lean, from the texts the index holds
    (the editor's copies of open files)."""
    units = []
    for result in index.snapshot.root_results:
        blocks: list[InlineBlock] = []
        for path in result.files:
            ft = index.text_of(path)
            if ft is not None:
                blocks += inline_blocks(path, ft.text)
        if blocks:
            units.append(build_unit(result.root, blocks, extra_imports or []))
    return units


def build_unit(root: Path, blocks: list[InlineBlock], extra_imports: list[str]) -> InlineUnit:
    unit = InlineUnit(root, blocks)
    imports = list(extra_imports)
    bodies: list[list[str]] = []
    for block in blocks:
        body = list(block.lines)
        for n, line in enumerate(body):
            stripped = line.strip()
            if _IMPORT.match(line):
                imports += stripped.split()[1:]
                body[n] = ""  # moved to the top of the scratch file: Lean wants imports first
            elif stripped and not stripped.startswith("--"):
                break
        bodies.append(body)
    unit.imports = list(dict.fromkeys(m for m in imports if m))
    out = [f"import {m}" for m in unit.imports]
    out.append(f"-- inline Lean of {root.name}, checked by Colosseum (one line per line of the .tex files)")
    unit.header_lines = len(out)
    for block, body in zip(blocks, bodies):
        for n, line in enumerate(body):
            unit.origin[len(out)] = (block.file, block.first_line + n)
            out.append(line)
        out.append("")  # a blank line between blocks: one never runs into the next
    unit.text = "\n".join(out) + "\n"
    return unit


def map_range(unit: InlineUnit, start: tuple[int, int], end: tuple[int, int]) -> tuple[Path, Range] | None:
    """A scratch-file range on the .tex file it came from. Findings on the imports land on the
    first block's \\begin line; a range that runs past its block is cut at the block's end."""
    line, character = start
    if line < unit.header_lines or line not in unit.origin:
        if line < unit.header_lines:
            first = unit.blocks[0]
            return first.file, Range(Position(first.begin_line, 0), Position(first.begin_line, 0))
        line = max((n for n in unit.origin if n < line), default=None)
        if line is None:
            return None
        character = 0
    file, tex_line = unit.origin[line]
    end_line, end_character = end
    if end_line not in unit.origin or unit.origin[end_line][0] != file or end_line < line:
        end_line, end_character = line, character
    return file, Range(Position(tex_line, character), Position(unit.origin[end_line][1], end_character))
