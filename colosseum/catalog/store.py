"""The knowledge catalog beside the paper: reading and checking its entries.

One Markdown file per entry with a YAML front matter (format: ``knowledge/FORMAT.md``, schema:
``knowledge/schema.json``). A malformed entry is reported with its file, the field and what is
wrong; it is never dropped silently, and the other entries stay usable.
"""

from __future__ import annotations

import datetime
import difflib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from colosseum.core.resources import PACKAGE_DATA, REPOSITORY

SCHEMA_LOCATIONS = (
    PACKAGE_DATA / "knowledge-schema.json",  # installed package
    REPOSITORY / "knowledge" / "schema.json",  # this repository
)
STARTER_LOCATIONS = (
    PACKAGE_DATA / "starter",
    REPOSITORY / "knowledge" / "starter",
)
MAX_ENTRY_BYTES = 1_000_000
# The catalog format (knowledge/FORMAT.md, "version 1"). Every entry the engine writes carries it as
# ``schema_version``; an entry without it was written before entries were versioned and reads as 1.
CATALOG_FORMAT_VERSION = 1


@dataclass(slots=True)
class CatalogProblem:
    file: Path
    field: str  # dotted path in the front matter, "" for the file as a whole
    message: str
    severity: str = "error"  # error | warning | information
    line: int = 0  # 0-based line in the file, where known


@dataclass(slots=True)
class Entry:
    id: str
    kind: str
    title: str
    status: str
    file: Path
    data: dict
    layer: str = "project"  # project | starter

    @property
    def links(self) -> dict:
        return self.data.get("links") or {}


@dataclass(slots=True)
class Catalog:
    entries: dict[str, Entry] = field(default_factory=dict)
    problems: list[CatalogProblem] = field(default_factory=list)

    def malformed(self) -> list[CatalogProblem]:
        return [p for p in self.problems if p.severity == "error"]


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    for location in SCHEMA_LOCATIONS:
        if location.is_file():
            schema = json.loads(location.read_text(encoding="utf-8"))
            return jsonschema.Draft202012Validator(schema)
    raise FileNotFoundError("knowledge catalog schema not found: " + ", ".join(map(str, SCHEMA_LOCATIONS)))


def starter_directory() -> Path | None:
    return next((p for p in STARTER_LOCATIONS if p.is_dir()), None)


def _iso_dates(value):
    """YAML reads unquoted dates as date objects; the schema wants ISO strings."""
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()[:10]
    if isinstance(value, dict):
        return {k: _iso_dates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_iso_dates(v) for v in value]
    return value


def split_front_matter(text: str) -> tuple[str, str] | None:
    """(front matter, body), or None when the file is not an entry (first line is not ---)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r") == "---":
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1:])
    return "\n".join(lines[1:]), ""  # no closing line: reported by the caller


def _field_path(error) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties":
        return path  # the unknown key is named in the message
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        return f"{path}.{missing}" if path else missing
    return path


def _message(error, known_fields: list[str]) -> str:
    if error.validator == "additionalProperties":
        extra = [k for k in error.instance if k not in (error.schema.get("properties") or {})
                 and not str(k).startswith("x-")]
        hints = []
        for key in extra:
            close = difflib.get_close_matches(str(key), known_fields, n=1)
            hints.append(f"unknown field `{key}`" + (f" (did you mean `{close[0]}`?)" if close else ""))
        return "; ".join(hints) or error.message
    if error.validator == "required":
        return "required field missing"
    if error.validator == "not":
        return "not allowed here (for this kind or this status)"
    return error.message


def _load_front_matter(front: str) -> tuple[object, list[tuple[str, int, int]]]:
    """The YAML front matter, and each top-level key written more than once (key, times, the line
    of the last one). PyYAML
    keeps the last value silently; a union merge of two authors' edits can write a key twice, and
    the author must hear of it."""
    import yaml

    node = yaml.compose(front, Loader=yaml.SafeLoader)
    repeated = []  # line: 0-based in the file (the front matter starts on its second line)
    if isinstance(node, yaml.MappingNode):
        lines: dict[str, list[int]] = {}
        for key_node, _value in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                lines.setdefault(key_node.value, []).append(key_node.start_mark.line + 1)
        repeated = [(key, len(at), at[-1]) for key, at in lines.items() if len(at) > 1]
    return yaml.safe_load(front), repeated


def read_entry(path: Path, layer: str = "project") -> tuple[Entry | None, list[CatalogProblem]]:
    """One file: its entry (None when the file is not an entry or is unusable) and its problems."""
    import yaml

    try:
        if path.stat().st_size > MAX_ENTRY_BYTES:
            return None, [CatalogProblem(path, "", f"entry file is larger than {MAX_ENTRY_BYTES} bytes")]
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [CatalogProblem(path, "", f"cannot read the entry: {exc}")]
    parts = split_front_matter(text)
    if parts is None:
        return None, []
    front, _body = parts
    if not any(line.rstrip("\r") == "---" for line in text.split("\n")[1:]):
        return None, [CatalogProblem(path, "", "the front matter has no closing `---` line")]
    try:
        data, repeated = _load_front_matter(front)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        return None, [CatalogProblem(path, "", f"front matter is not valid YAML: {exc}".split("\n")[0], line=line)]
    if not isinstance(data, dict):
        return None, [CatalogProblem(path, "", "front matter must be a mapping of fields")]
    data = _iso_dates(data)
    validator = _validator()
    known = sorted(validator.schema.get("properties", {}))
    problems = [CatalogProblem(path, _field_path(e), _message(e, known))
                for e in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))]
    problems += [CatalogProblem(path, key, f"`{key}` is written {count} times (a merge of two authors' edits "
                                           "keeps both lines); the last one is read: keep one", "warning", line)
                 for key, count, line in repeated]
    version = data.get("schema_version")
    if isinstance(version, int) and version > CATALOG_FORMAT_VERSION:
        problems.append(CatalogProblem(path, "schema_version", f"written in catalog format {version}; this "
                                       f"colosseum reads format {CATALOG_FORMAT_VERSION}: upgrade colosseum", "warning"))
    entry_id = data.get("id")
    if isinstance(entry_id, str) and entry_id != path.stem:
        problems.append(CatalogProblem(path, "id", f"id `{entry_id}` differs from the file name `{path.stem}`"))
    if not isinstance(entry_id, str) or not isinstance(data.get("kind"), str):
        return None, problems or [CatalogProblem(path, "id", "an entry needs an id and a kind")]
    entry = Entry(entry_id, data["kind"], str(data.get("title", "")), str(data.get("status", "active")),
                  path, data, layer)
    return entry, problems


def load_catalog(directory: Path | None, with_starter: bool = True) -> Catalog:
    """The project's catalog over the starter catalog (a project entry shadows a starter one)."""
    catalog = Catalog()
    layers: list[tuple[str, Path]] = []
    starter = starter_directory() if with_starter else None
    if starter is not None:
        layers.append(("starter", starter))
    if directory is not None and directory.is_dir():
        layers.append(("project", directory))
    for layer, folder in layers:
        seen: dict[str, Path] = {}
        for path in sorted(folder.rglob("*.md")):
            entry, problems = read_entry(path, layer)
            catalog.problems += problems
            if entry is None:
                continue
            if entry.id in seen:
                catalog.problems.append(CatalogProblem(path, "id", f"id `{entry.id}` is also used by {seen[entry.id]}"))
                continue
            seen[entry.id] = path
            shadowed = catalog.entries.get(entry.id)
            if shadowed is not None and shadowed.layer != layer:
                catalog.problems.append(CatalogProblem(path, "id", f"shadows the starter entry `{entry.id}`",
                                                       "information"))
            catalog.entries[entry.id] = entry
    _cross_checks(catalog)
    return catalog


def _cross_checks(catalog: Catalog) -> None:
    entries = catalog.entries
    for entry in entries.values():
        for target in entry.links.get("entries") or []:
            if target not in entries:
                catalog.problems.append(CatalogProblem(entry.file, "links.entries", f"no entry `{target}` in the catalog"))
        successor = entry.data.get("superseded_by")
        if successor is not None:
            chain, node = [entry.id], successor
            while node is not None and node not in chain and node in entries:
                chain.append(node)
                node = entries[node].data.get("superseded_by")
            if successor not in entries:
                catalog.problems.append(CatalogProblem(entry.file, "superseded_by", f"no entry `{successor}`"))
            elif node in chain:
                catalog.problems.append(CatalogProblem(entry.file, "superseded_by",
                                                       "supersede chain runs in a circle: " + " -> ".join(chain + [node])))
        for dependency in entry.links.get("entries") or []:
            other = entries.get(dependency)
            if other is not None and other.status == "retracted":
                catalog.problems.append(CatalogProblem(entry.file, "links.entries",
                                                       f"suspect: depends on the retracted entry `{dependency}`",
                                                       "warning"))
