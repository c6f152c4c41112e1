"""Label completion inside \\ref{, \\cref{a,, \\eqref{, \\uses{ and the project's own wrappers."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types

from colosseum.macros import BLUEPRINT_LIST_COMMANDS, LIST_REF_COMMANDS, RANGE_REF_COMMANDS, SINGLE_REF_COMMANDS
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


def _candidates(project, snap) -> list[tuple[str, str, types.CompletionItem]]:
    """Every label as a ready completion item, built once per index snapshot."""
    cached = getattr(project, "_completion_cache", None)
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
            kind = types.CompletionItemKind.Function
        elif section is not None:
            detail, first, kind = section.level, section.title, types.CompletionItemKind.Module
        else:
            detail, first, kind = "label", "", types.CompletionItemKind.Reference
        loc = labels[0].location
        item = types.CompletionItem(
            label=name, kind=kind, detail=detail,
            documentation=f"{first}\n\n{index.relative(loc.file)}:{loc.range.start.line + 1}".strip(),
            sort_text=("0" if claim else "1") + name)
        out.append((name.lower(), item.sort_text, item))
    out.sort(key=lambda entry: entry[1])
    project._completion_cache = (snap, out)
    return out


def completions(ctx, path: Path, text_before: str) -> types.CompletionList | None:
    project = ctx.project_for(path)
    snap = project.snapshot()
    if snap is None:
        return None
    wrappers = set(project.index.config.index.label_reference_commands)
    wrappers |= {ref.command for ref in snap.references[:20000] if ref.command not in _KNOWN}
    partial = completion_context(text_before, wrappers)
    if partial is None:
        return None
    wanted = partial.lower()
    items = []
    for lowered, _sort, item in _candidates(project, snap):
        if wanted in lowered:
            items.append(item)
            if len(items) > MAX_ITEMS:
                break
    # incomplete: the editor asks again as the author types more of the label
    return types.CompletionList(is_incomplete=len(items) > MAX_ITEMS, items=items[:MAX_ITEMS])
