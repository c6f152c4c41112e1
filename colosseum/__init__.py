"""Colosseum engine: project index, dependency DAG, model layer, loops, catalog, Lean bridge.

This package is editor-agnostic: it never imports pygls or lsprotocol. The language server in
``server/colosseum_lsp`` converts its plain data classes to protocol types at the edge.
The architecture (packages and the flow of one edit and one solve) is in docs/architecture.md.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    # ``colosseum.ProjectIndex`` stays importable without making ``import colosseum`` (done by
    # every command, the server and the editor clients' probes) load the whole index.
    if name in ("ProjectIndex", "ProjectError", "IndexSnapshot"):
        from colosseum import index

        return getattr(index, name)
    raise AttributeError(f"module 'colosseum' has no attribute {name!r}")
