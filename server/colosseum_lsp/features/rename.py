"""Rename a label everywhere: one WorkspaceEdit over every \\label and every reference."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from lsprotocol import types

from colosseum.structure import Position
from colosseum_lsp.convert import path_to_uri, range_

_VALID = re.compile(r"[^\s{}%#\\,]+")


class RenameError(ValueError):
    pass


def prepare_rename(ctx, path: Path, pos: Position):
    hit = ctx.item_at(path, pos)
    if hit is None:
        return None
    _project, kind, item = hit
    name = item.label if kind == "ref" else item.name
    if not _exact(hit[0], item.location, name):
        return None  # produced by a wrapper's body: nothing to edit here
    return types.PrepareRenamePlaceholder(range=range_(item.location.range), placeholder=name)


def _exact(project, loc, name: str) -> bool:
    ft = project.index.text_of(loc.file)
    if ft is None:
        return False
    start, end = ft.lines.offset(loc.range.start), ft.lines.offset(loc.range.end)
    return ft.text[start:end] == name


def rename(ctx, path: Path, pos: Position, new_name: str) -> types.WorkspaceEdit | None:
    hit = ctx.item_at(path, pos)
    if hit is None:
        return None
    project, kind, item = hit
    old = item.label if kind == "ref" else item.name
    if not _VALID.fullmatch(new_name):
        raise RenameError(f"`{new_name}` is not a usable label (no spaces, braces, commas, % or #)")
    snap = project.snapshot()
    if new_name in snap.labels and new_name != old:
        raise RenameError(f"label `{new_name}` already exists")
    edits: dict[Path, list[types.TextEdit]] = defaultdict(list)
    places = [label.location for label in snap.labels.get(old, [])]
    places += [ref.location for ref in snap.references if ref.label == old]
    for loc in places:
        if _exact(project, loc, old):
            edits[loc.file].append(types.TextEdit(range=range_(loc.range), new_text=new_name))
    changes = []
    for file, file_edits in sorted(edits.items()):
        uri = path_to_uri(file)
        doc = ctx.server.workspace.text_documents.get(uri)
        changes.append(types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=doc.version if doc else None),
            edits=file_edits))
    return types.WorkspaceEdit(document_changes=changes)
