"""Publishing: one list per file, an empty list for files whose findings went away."""

from __future__ import annotations

from collections import defaultdict

from lsprotocol import types

from colosseum_lsp.convert import diagnostic, path_to_uri


def publish_project(ctx, project) -> None:
    snap = project.snapshot()
    if snap is None:
        return
    per_uri: dict[str, list[types.Diagnostic]] = defaultdict(list)
    for diag in snap.diagnostics or ():
        per_uri[path_to_uri(diag.file)].append(diagnostic(diag))
    owned = {u for u, _ in ctx.published.items() if u.startswith(path_to_uri(project.root_dir))}
    for uri in sorted(set(per_uri) | owned):
        diags = per_uri.get(uri, [])
        if not diags and ctx.published.get(uri, 0) == 0:
            continue
        doc = ctx.server.workspace.text_documents.get(uri)
        ctx.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=doc.version if doc else None))
        ctx.published[uri] = len(diags)
