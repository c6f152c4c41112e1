"""Colosseum engine: project index, dependency DAG, model layer, loops, catalog, Lean bridge.

This package is editor-agnostic: it never imports pygls or lsprotocol. The language server in
``server/colosseum_lsp`` converts its plain data classes to protocol types at the edge.
"""

__version__ = "0.1.0"
