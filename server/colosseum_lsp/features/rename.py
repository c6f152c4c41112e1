"""Rename a label everywhere: one WorkspaceEdit over every \\label and every reference.

A place made through a wrapper (``\\lemlabel{a}`` for ``lem:a``) is edited in the argument that
holds the varying part of the name (colosseum_lsp.features.wrapper_arguments). A rename that
cannot edit every place is refused, naming the places, rather than leaving a broken document."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from lsprotocol import types

from colosseum.catalog.rename import catalog_label_places
from colosseum.core.structure import Position, Range
from colosseum_lsp import convert
from colosseum_lsp.context import FeatureContext
from colosseum_lsp.features.catalog_view import project_catalog
from colosseum_lsp.features.wrapper_arguments import ArgumentReading, readings, settled

_VALID = re.compile(r"[^\s{}%#\\,]+")
MAX_PLACES_NAMED = 5


class RenameError(ValueError):
    pass


def _call_text(project, loc) -> tuple[str, int] | None:
    """The text at a place and its offset in the file."""
    ft = project.index.text_of(loc.file)
    if ft is None:
        return None
    start, end = ft.lines.offset(loc.range.start), ft.lines.offset(loc.range.end)
    return ft.text[start:end], start


class _Places:
    """Every definition and use of one label, each with what its text says about the name."""

    def __init__(self, project, snap, name: str):
        self.project, self.name = project, name
        items = list(snap.labels.get(name, [])) + [ref for ref in snap.references if ref.label == name]
        self.items = []
        seen = set()
        for item in items:
            loc = item.location
            key = (loc.file, loc.range)
            if key not in seen:
                seen.add(key)
                self.items.append(item)
        self._snap = snap
        self._other_calls: dict[str, list[list[ArgumentReading]]] = {}

    def where(self, item) -> str:
        loc = item.location
        return f"`\\{item.command}` at {self.project.index.relative(loc.file)}:{loc.range.start.line + 1}"

    def reading(self, item) -> tuple[str, int, list[ArgumentReading]] | None:
        """(text, offset, readings): readings empty when the text is the name itself."""
        found = _call_text(self.project, item.location)
        if found is None:
            return None
        text, offset = found
        if text == self.name:
            return text, offset, []
        options = readings(text, self.name)
        if len(options) > 1:
            options = settled(options, self._others(item.command))
        return text, offset, options

    def _others(self, command: str) -> list[list[ArgumentReading]]:
        """How the other calls of the same wrapper read (to settle a call with several readings)."""
        if command not in self._other_calls:
            calls = []
            named = [(label.name, label) for labels in self._snap.labels.values() for label in labels
                     if label.command == command]
            named += [(ref.label, ref) for ref in self._snap.references if ref.command == command]
            for name, item in named[:200]:
                found = _call_text(self.project, item.location)
                if found is not None and found[0] != name:
                    calls.append(readings(found[0], name))
            self._other_calls[command] = calls
        return self._other_calls[command]


def _refuse(places: _Places, problems: list[str], why: str) -> None:
    if problems:
        shown = "; ".join(problems[:MAX_PLACES_NAMED])
        more = f" (and {len(problems) - MAX_PLACES_NAMED} more)" if len(problems) > MAX_PLACES_NAMED else ""
        raise RenameError(f"cannot rename `{places.name}`: {why}: {shown}{more}")


def prepare_rename(fc: FeatureContext, pos: Position):
    hit = fc.project.item_at(fc.path, pos)
    if hit is None:
        return None
    kind, item = hit
    name = item.label if kind == "ref" else item.name
    places = _Places(fc.project, fc.snapshot, name)
    unreadable = []
    for place in places.items:
        found = places.reading(place)
        if found is None or (found[0] != name and not found[2]):
            unreadable.append(places.where(place))
    _refuse(places, unreadable, "the name is not written out at these places (made by a wrapper)")
    return convert.rename_placeholder(item.location.range, name)


def rename(fc: FeatureContext, pos: Position, new_name: str) -> types.WorkspaceEdit | None:
    hit = fc.project.item_at(fc.path, pos)
    if hit is None:
        return None
    kind, item = hit
    old = item.label if kind == "ref" else item.name
    if not _VALID.fullmatch(new_name):
        raise RenameError(f"`{new_name}` is not a usable label (no spaces, braces, commas, % or #)")
    project, snap = fc.project, fc.snapshot
    if new_name in snap.labels and new_name != old:
        raise RenameError(f"label `{new_name}` already exists")
    places = _Places(project, snap, old)
    edits: dict[Path, list[types.TextEdit]] = defaultdict(list)
    unreadable, fixed_text, ambiguous = [], [], []
    for place in places.items:
        loc = place.location
        found = places.reading(place)
        if found is None:
            unreadable.append(places.where(place))
            continue
        text, offset, options = found
        if text == old:
            edits[loc.file].append(convert.text_edit(loc.range, new_name))
            continue
        if not options:
            unreadable.append(places.where(place))
            continue
        choices = {(r.start, r.end, r.new_argument(new_name)) for r in options if r.new_argument(new_name) is not None}
        if not choices:
            kept = " or ".join(sorted({f"`{r.prefix}…{r.suffix}`" for r in options}))
            fixed_text.append(f"{places.where(place)} (keep {kept})")
            continue
        if len(choices) > 1:
            ambiguous.append(places.where(place))
            continue
        start, end, argument = choices.pop()
        lines = project.index.text_of(loc.file).lines
        span = Range(lines.position(offset + start), lines.position(offset + end))
        edits[loc.file].append(convert.text_edit(span, argument))
    _refuse(places, unreadable, "the name is not written out at these places (made by a wrapper)")
    _refuse(places, fixed_text, f"`{new_name}` drops the text these wrappers add to their argument")
    _refuse(places, ambiguous, "these wrapper calls could make the name from more than one of their arguments")
    # the catalog's entries about the label follow it (colosseum.catalog.rename)
    for file, spans in catalog_label_places(project_catalog(project), old).items():
        edits[file].extend(convert.text_edit(span, new_name) for span in spans)
    changes = []
    for file, file_edits in sorted(edits.items()):
        uri = convert.path_to_uri(file)
        changes.append((uri, fc.document_version(uri), file_edits))
    return convert.document_edits(changes)
