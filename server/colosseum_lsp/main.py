"""Entry point: ``colosseum serve`` (stdio) or ``colosseum serve --tcp PORT``."""

from __future__ import annotations

import logging
import sys


def run_server(tcp_port: int | None = None, log_file: str | None = None) -> int:
    handler = logging.FileHandler(log_file) if log_file else logging.StreamHandler(sys.stderr)
    logging.basicConfig(level=logging.INFO if log_file else logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        handlers=[handler])
    import gc

    from colosseum_lsp.server import build_server

    server = build_server()
    # what the imports made lives as long as the server: set it aside from the cyclic collector,
    # which would otherwise walk it again during the first index (as context._settle_memory does)
    gc.freeze()
    if tcp_port is not None:
        server.start_tcp("127.0.0.1", tcp_port)
    else:
        server.start_io()
    return 0
