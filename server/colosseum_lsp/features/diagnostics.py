"""Publishing: one list per file, sent when it changed (or the document's version did), and an
empty list for files whose findings went away, so nothing stale stays in the editor.

The index keeps each file's findings in one list object for as long as they stay the same
(``IndexSnapshot.diagnostics_by_file``): telling what changed costs a look per file, and only
the files that changed are converted and sent, the ones just edited first.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.protocol import default_converter

from colosseum_lsp.convert import diagnostic_json, path_to_uri


class Publications:
    """The publisher's state: what the editor was last sent per document, and its JSON form."""

    def __init__(self):
        self.published: dict[str, tuple] = {}  # uri -> (findings, version) last published
        self.converted: dict[str, dict] = {}  # uri -> finding -> its JSON form, as last published


def publish_project(ctx, project, first=()) -> None:
    """Send what changed since the last publication; ``first``: URIs to send before the others
    (the documents just edited, whose author is waiting)."""
    snap = project.snapshot()
    if snap is None:
        return
    sent = ctx.feature_state(Publications)
    per_uri: dict[str, list] = {}
    by_file = snap.diagnostics_by_file
    if not by_file and snap.diagnostics:  # a snapshot made otherwise: group them here
        by_file = {}
        for diag in snap.diagnostics:
            by_file.setdefault(diag.file, []).append(diag)
    for path, found in by_file.items():
        per_uri[path_to_uri(path)] = found
    for (_source, uri), (found, _extra) in ctx.extra_diagnostics.items():
        per_uri[uri] = per_uri.get(uri, []) + list(found)
    ignored = ctx.options.ignored_diagnostics
    if ignored:  # the codes another server beside this one reports (README "Beside texlab")
        per_uri = {uri: [d for d in found if d.code not in ignored] for uri, found in per_uri.items()}
    prefix = path_to_uri(project.root_dir).rstrip("/") + "/"  # not a sibling paper-v2/
    owned = {u for u in sent.published if u.startswith(prefix)}
    uris = sorted(set(per_uri) | owned)
    wanted = [u for u in first if u in per_uri or u in owned]
    for uri in dict.fromkeys(wanted + uris):
        found = per_uri.get(uri, [])
        # the version the index read, which is what these findings describe
        version = project.indexed_versions.get(uri)
        if ctx.server.workspace.text_documents.get(uri) is None:
            version = None  # not open: the findings are about the file on disk
        previous = sent.published.get(uri)
        if previous is not None and previous[1] == version and (previous[0] is found or previous[0] == found):
            continue  # the same findings for the same version: nothing to tell the editor
        if previous is None and not found:
            continue
        _send(ctx, uri, _converted(sent.converted, uri, found), version)
        sent.published[uri] = (found, version)


_CONVERTER = default_converter()
METHOD = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS


def _send(ctx, uri: str, converted: list[dict], version) -> None:
    """Send one file's findings. Already in their JSON form: the protocol's generic serializer
    would walk every finding again (most of the cost of a publication)."""
    params = {"uri": uri, "diagnostics": converted}
    if version is not None:
        params["version"] = version
    send = getattr(ctx.server.protocol, "_send_data", None)
    if send is not None:
        send({"jsonrpc": "2.0", "method": METHOD, "params": params})
    else:  # another protocol implementation: through its public API
        ctx.server.text_document_publish_diagnostics(_CONVERTER.structure(params, types.PublishDiagnosticsParams))


def _converted(cache: dict, uri: str, found: list) -> list[dict]:
    """The JSON form of a file's findings, reusing the last publication's for findings that did
    not change (most of a file's findings survive an edit)."""
    before = cache.get(uri, {})
    now = {}
    out = []
    for diag in found:
        lsp = before.get(diag)
        if lsp is None:
            lsp = diagnostic_json(diag)
        now[diag] = lsp
        out.append(lsp)
    cache[uri] = now
    return out
