"""Engine data classes <-> LSP types. The only place that knows both."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types

from colosseum import structure

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def uri_to_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path)).resolve()


_URIS: dict = {}  # path -> uri: resolving a path costs system calls, and every publication asks
_MAX_URIS = 100_000


def path_to_uri(path: Path) -> str:
    found = _URIS.get(path)
    if found is None:
        if len(_URIS) >= _MAX_URIS:
            _URIS.clear()
        found = _URIS[path] = Path(path).resolve().as_uri()
    return found


def position(pos: structure.Position) -> types.Position:
    return types.Position(line=pos.line, character=pos.character)


def range_(rng: structure.Range) -> types.Range:
    return types.Range(start=position(rng.start), end=position(rng.end))


def location(loc: structure.Location) -> types.Location:
    return types.Location(uri=path_to_uri(loc.file), range=range_(loc.range))


def engine_position(pos: types.Position) -> structure.Position:
    return structure.Position(pos.line, pos.character)


def diagnostic(diag: structure.Diagnostic) -> types.Diagnostic:
    tags = [types.DiagnosticTag.Unnecessary] if diag.code.endswith("unused-label") else None
    return types.Diagnostic(
        range=range_(diag.range),
        message=diag.message,
        severity=SEVERITY[diag.severity],
        code=diag.code,
        source=diag.source,
        tags=tags,
        related_information=[
            types.DiagnosticRelatedInformation(location=location(r.location), message=r.message)
            for r in diag.related
        ] or None,
    )


def _range_json(rng: structure.Range) -> dict:
    start, end = rng
    return {"start": {"line": start[0], "character": start[1]}, "end": {"line": end[0], "character": end[1]}}


def diagnostic_json(diag: structure.Diagnostic) -> dict:
    """``diagnostic(diag)`` in its JSON form, built directly (what the protocol's serializer makes
    of it, at a fraction of the cost: a publication sends every finding of the file)."""
    out = {"range": _range_json(diag.range), "message": diag.message, "severity": SEVERITY[diag.severity].value,
           "code": diag.code, "source": diag.source}
    if diag.code.endswith("unused-label"):
        out["tags"] = [types.DiagnosticTag.Unnecessary.value]
    if diag.related:
        out["relatedInformation"] = [{"location": {"uri": path_to_uri(r.location.file),
                                                   "range": _range_json(r.location.range)},
                                      "message": r.message} for r in diag.related]
    return out


def utf16_to_index(line: str, units: int) -> int:
    """The string index in ``line`` of an LSP column counted in UTF-16 code units."""
    count = 0
    for i, ch in enumerate(line):
        if count >= units:
            return i
        count += 2 if ord(ch) > 0xFFFF else 1
    return len(line)
