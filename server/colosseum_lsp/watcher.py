"""A watchdog observer for clients that cannot watch files themselves (git checkout, another editor)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from colosseum_lsp.convert import path_to_uri

log = logging.getLogger(__name__)


def start_watching(ctx) -> None:
    try:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer
    except ImportError:  # pragma: no cover - watchdog is a dependency
        return
    loop = asyncio.get_running_loop()

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event):
            # only changes: watchdog also reports files being opened and read, which the
            # server itself does when it indexes (reacting to those would never stop)
            if event.is_directory or event.event_type not in ("created", "modified", "deleted", "moved"):
                return
            for raw in (getattr(event, "src_path", None), getattr(event, "dest_path", None)):
                if not raw:
                    continue
                path = Path(raw)
                if path.suffix in (".tex", ".sty", ".cls", ".bib") or path.name == "colosseum.toml" or (
                        path.suffix == ".md" and "knowledge" in path.parts):
                    loop.call_soon_threadsafe(_changed, ctx, path.resolve())

    observer = Observer()
    for root in ctx.workspace_roots:
        if root.is_dir():
            observer.schedule(Handler(), str(root), recursive=True)
    observer.daemon = True
    observer.start()
    ctx.observer = observer


def _changed(ctx, path: Path) -> None:
    uri = path_to_uri(path)  # as the client spells it
    if path.suffix != ".bib" and ctx.server.workspace.text_documents.get(uri) is not None:
        return  # open in the editor: its copy wins (a .bib's is not ours: the disk's is read)
    ctx.schedule_update(path, None)
