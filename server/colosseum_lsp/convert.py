"""Engine data classes <-> LSP types. The only place that knows both."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types

from colosseum.core import structure

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def uri_to_path(uri: str) -> Path | None:
    """The real path of a client's URI. A URI that reaches its file or folder through a symlink is
    remembered: what the server says about it is said under the client's own spelling (an
    editor keeps the link's path; findings sent under the real one would show on no open file)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    spelled = Path(unquote(parsed.path))
    resolved = spelled.resolve()
    if resolved != spelled and spelled.is_absolute():
        _remember_spelling(resolved, spelled)
    return resolved


_URIS: dict = {}  # path -> uri: resolving a path costs system calls, and every publication asks
_MAX_URIS = 100_000
_SPELLINGS: list[tuple[str, str]] = []  # (real path, the client's spelling), longest real path first


def _remember_spelling(resolved: Path, spelled: Path) -> None:
    pair = (str(resolved), str(spelled))
    if pair not in _SPELLINGS:
        _SPELLINGS.append(pair)
        _SPELLINGS.sort(key=lambda p: -len(p[0]))
        _URIS.clear()


def _client_spelling(real: str) -> str:
    for resolved, spelled in _SPELLINGS:
        if real == resolved or real.startswith(resolved + os.sep):
            return spelled + real[len(resolved):]
    return real


def path_to_uri(path: Path) -> str:
    found = _URIS.get(path)
    if found is None:
        if len(_URIS) >= _MAX_URIS:
            _URIS.clear()
        real = str(Path(path).resolve())
        found = _URIS[path] = Path(_client_spelling(real) if _SPELLINGS else real).as_uri()
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
