"""Label completion inside \\ref{, \\cref{a,, \\eqref{, \\uses{ and the project's own wrappers."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types

from colosseum.latex.macros import BLUEPRINT_LIST_COMMANDS, LIST_REF_COMMANDS, RANGE_REF_COMMANDS, SINGLE_REF_COMMANDS
from colosseum_lsp import convert
from colosseum_lsp.context import FeatureContext
from colosseum_lsp.features.statement_text import first_line

_BUILTIN = "|".join(sorted(SINGLE_REF_COMMANDS + LIST_REF_COMMANDS + RANGE_REF_COMMANDS + BLUEPRINT_LIST_COMMANDS,
                           key=len, reverse=True))
_KNOWN = frozenset(SINGLE_REF_COMMANDS + LIST_REF_COMMANDS + RANGE_REF_COMMANDS + BLUEPRINT_LIST_COMMANDS)
_CONTEXT = re.compile(r"\\([A-Za-z@]+)\*?(?:\[[^\]]*\])?\{([^{}]*)$")


LOOK_BACK_LINES = 20  # an argument begun further up than this is not looked for


def text_before_cursor(lines: list[str], line: int, character: int) -> str:
    """The document up to the cursor, from at most LOOK_BACK_LINES lines above it (a \\uses{a,
    list often runs over several lines)."""
    current = lines[line][:character] if line < len(lines) else ""
    above = lines[max(0, line - LOOK_BACK_LINES):min(line, len(lines))]
    return "".join(text if text.endswith("\n") else text + "\n" for text in above) + current


def completion_context(text_before: str, extra_commands: set[str]) -> str | None:
    """The partial label being typed, or None when the cursor is not in a reference argument
    (one still open: no closing brace, no paragraph break since it began)."""
    m = _CONTEXT.search(text_before)
    if not m or re.search(r"\n[ \t]*\n", m.group(2)):
        return None
    command = m.group(1)
    if not (re.fullmatch(_BUILTIN, command) or command in extra_commands):
        return None
    return m.group(2).split(",")[-1].strip()


MAX_ITEMS = 200


class LabelCandidates:
    """The completion feature's state: per project, its labels as ready completion items, with
    the snapshot they were built from (one list per snapshot)."""

    def __init__(self):
        self.by_project: dict[Path, tuple[object, list]] = {}


def _candidates(fc: FeatureContext) -> list[tuple[str, str, types.CompletionItem]]:
    """Every label as a ready completion item, built once per index snapshot."""
    project, snap = fc.project, fc.snapshot
    cache = fc.state(LabelCandidates).by_project
    cached = cache.get(project.root_dir)
    if cached is not None and cached[0] is snap:
        return cached[1]
    index = project.index
    out = []
    for name, labels in snap.labels.items():
        owner = labels[0].owner
        claim = snap.claims.get(owner) if owner else None
        section = snap.sections.get(owner) if owner else None
        if claim is not None:
            detail = f"{claim.kind} · {snap.graph.status.get(owner)}"
            first = first_line(claim.statement_text)
            kind = "claim"
        elif section is not None:
            detail, first, kind = section.level, section.title, "section"
        else:
            detail, first, kind = "label", "", "label"
        loc = labels[0].location
        item = convert.completion_item(
            name, kind, detail, f"{first}\n\n{index.relative(loc.file)}:{loc.range.start.line + 1}".strip(),
            ("0" if claim else "1") + name)
        out.append((name.lower(), item.sort_text, item))
    out.sort(key=lambda entry: entry[1])
    cache[project.root_dir] = (snap, out)
    return out


_LABEL_RUN = re.compile(r"[^\s,{}%\\]*")  # what may continue a label after the cursor


def _utf16_length(text: str) -> int:
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def label_edit_columns(text_before: str, line_after: str, character: int) -> tuple[int, int]:
    """(start, end) around the cursor at ``character`` (client columns, UTF-16): the label typed
    so far on the cursor's line starts at ``start`` (just after the `{` or the last `,`, spaces
    skipped), and with the rest of the label after the cursor it ends at ``end`` (as texlab
    replaces). A completion must say what it replaces: an editor's own idea of a word stops at
    ':' or '-' (Neovim's omnifunc took `ar` of `lem:degree-ar` and dropped every label)."""
    typed = re.split(r"[{,\n]", text_before)[-1].lstrip()
    rest = _LABEL_RUN.match(line_after).group(0)
    return character - _utf16_length(typed), character + _utf16_length(rest)


def completions(fc: FeatureContext, text_before: str, line_after: str = "", position: tuple[int, int] | None = None,
                insert_replace: bool = False) -> types.CompletionList | None:
    """Labels for the reference argument at the cursor; with ``position`` (line, UTF-16 column),
    each item says which text it replaces (convert.completion_list)."""
    project, snap = fc.project, fc.snapshot
    wrappers = set(project.index.config.index.label_reference_commands)
    wrappers |= {ref.command for ref in snap.references[:20000] if ref.command not in _KNOWN}
    partial = completion_context(text_before, wrappers)
    if partial is None:
        return None
    wanted = partial.lower()
    items = []
    for lowered, _sort, item in _candidates(fc):
        if wanted in lowered:
            items.append(item)
            if len(items) > MAX_ITEMS:
                break
    return bounded_list(items, text_before, line_after, position, insert_replace)


def bounded_list(items: list, text_before: str, line_after: str, position: tuple[int, int] | None,
                 insert_replace: bool) -> types.CompletionList:
    """At most MAX_ITEMS items, each replacing the argument around the cursor; marked incomplete
    when more matched, so the editor asks again as the author types more."""
    replaced = None
    if position is not None:
        line, character = position
        start, end = label_edit_columns(text_before, line_after, character)
        replaced = (line, start, character, end)
    return convert.completion_list(items[:MAX_ITEMS], len(items) > MAX_ITEMS, replaced, insert_replace)
