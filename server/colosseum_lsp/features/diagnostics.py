"""Publishing: one list per file, sent when it changed (or the document's version did), and an
empty list for files whose findings went away, so nothing stale stays in the editor."""

from __future__ import annotations

from collections import defaultdict

from lsprotocol import types

from colosseum_lsp.convert import diagnostic, path_to_uri


def publish_project(ctx, project) -> None:
    snap = project.snapshot()
    if snap is None:
        return
    per_uri: dict[str, list] = defaultdict(list)
    for diag in snap.diagnostics or ():
        per_uri[path_to_uri(diag.file)].append(diag)
    for (_source, uri), (found, _extra) in ctx.extra_diagnostics.items():
        per_uri[uri].extend(found)
    prefix = path_to_uri(project.root_dir).rstrip("/") + "/"  # not a sibling paper-v2/
    owned = {u for u in ctx.published if u.startswith(prefix)}
    for uri in sorted(set(per_uri) | owned):
        found = per_uri.get(uri, [])
        # the version the index read, which is what these findings describe
        version = project.indexed_versions.get(uri)
        doc = ctx.server.workspace.text_documents.get(uri)
        if doc is None:
            version = None
        previous = ctx.published.get(uri)
        if previous is not None and previous == (found, version):
            continue  # the same findings for the same version: nothing to tell the editor
        if previous is None and not found:
            continue
        ctx.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=[diagnostic(d) for d in found], version=version))
        ctx.published[uri] = (found, version)
