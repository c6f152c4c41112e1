"""Where feature modules that add commands and code actions register them, so that the server
wires each one once without knowing its details.

A feature module lists itself in ``FEATURE_MODULES``; at import it calls ``@command(name)`` for
each ``workspace/executeCommand`` it answers and ``@code_action_provider`` for each function that
offers code actions. An error the author should read (bad arguments, no model configured) is
raised as ``CommandFailed``: the server answers it as RequestFailed with that message."""

from __future__ import annotations

import importlib
from typing import Awaitable, Callable

# modules imported by the server at start; each registers what it offers
FEATURE_MODULES: tuple[str, ...] = ("colosseum_lsp.features.lean", "colosseum_lsp.features.review", "colosseum_lsp.features.research")

# name -> async handler(ctx, arguments: list) -> JSON-able result
COMMANDS: dict[str, Callable[..., Awaitable[object]]] = {}
# fn(ctx, path, uri, params: CodeActionParams, snapshot, version) -> list[CodeAction]
CODE_ACTION_PROVIDERS: list[Callable] = []
# fn(ctx, path, uri) -> None, called when the editor saves a project file; must not block (spawn
# heavy work with ctx.spawn)
SAVE_HOOKS: list[Callable] = []
# fn(ctx, project) -> None, called after each (re)index of a project, in the event loop, before its
# findings are published; must be quick (spawn heavy work with ctx.spawn)
INDEX_HOOKS: list[Callable] = []


class CommandFailed(Exception):
    """A failure whose message is for the author (shown by the editor as the command's error)."""


def command(name: str):
    def register(handler):
        if name in COMMANDS:
            raise ValueError(f"command {name} registered twice")
        COMMANDS[name] = handler
        return handler
    return register


def code_action_provider(fn):
    CODE_ACTION_PROVIDERS.append(fn)
    return fn


def on_save(fn):
    SAVE_HOOKS.append(fn)
    return fn


def on_index(fn):
    INDEX_HOOKS.append(fn)
    return fn


def load_feature_modules() -> None:
    for name in FEATURE_MODULES:
        importlib.import_module(name)
