"""How feature modules declare what they offer, and the server's table of it (``Features``).

A feature module lists itself in ``FEATURE_MODULES`` and marks its functions: ``@command(name)``
for each ``workspace/executeCommand`` it answers, ``@code_action_provider`` for each function
that offers code actions, ``@on_save`` and ``@on_index`` for what it does after a save or an index.
The marks are attributes of the functions, not entries in a module-level list: the server reads
them once into its own ``Features`` (esbonio's hooks, as plain functions), and fans each LSP
notification out to the features that implement it, each isolated from the others.

An error the author should read (bad arguments, no model configured) is raised as
``CommandFailed``: the server answers it as RequestFailed with that message."""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field
from typing import Awaitable, Callable

log = logging.getLogger(__name__)

# modules imported by the server at start; each marks what it offers
FEATURE_MODULES: tuple[str, ...] = ("colosseum_lsp.features.catalog_view", "colosseum_lsp.features.lean",
                                    "colosseum_lsp.features.review", "colosseum_lsp.features.research",
                                    "colosseum_lsp.features.drafts", "colosseum_lsp.features.draft_review")
ROLES = "colosseum_roles"  # the attribute holding a function's marks: ((role, argument), ...)


class CommandFailed(Exception):
    """A failure whose message is for the author (shown by the editor as the command's error)."""


def _mark(fn, role: str, argument=None):
    setattr(fn, ROLES, getattr(fn, ROLES, ()) + ((role, argument),))
    return fn


def command(name: str):
    """An async handler(ctx, arguments: list) -> JSON-able result for ``workspace/executeCommand``."""
    return lambda handler: _mark(handler, "command", name)


def code_action_provider(fn):
    """fn(ctx, path, uri, params: CodeActionParams, snapshot, version) -> list[CodeAction]"""
    return _mark(fn, "code_action")


def on_save(fn):
    """fn(ctx, path, uri) -> None, when the editor saves a project file; must not block (spawn heavy
    work with ctx.spawn)."""
    return _mark(fn, "save")


def on_index(fn):
    """fn(ctx, project) -> None, after each (re)index of a project, in the event loop, before its
    findings are published; must be quick (spawn heavy work with ctx.spawn)."""
    return _mark(fn, "index")


@dataclass
class Features:
    """What the features offer, read once when the server is built."""

    commands: dict[str, Callable[..., Awaitable[object]]] = field(default_factory=dict)
    code_action_providers: list[Callable] = field(default_factory=list)
    save_hooks: list[Callable] = field(default_factory=list)
    index_hooks: list[Callable] = field(default_factory=list)

    def add(self, fn, role: str, argument) -> None:
        if role == "command":
            if argument in self.commands:
                raise ValueError(f"command {argument} registered twice")
            self.commands[argument] = fn
        else:
            {"code_action": self.code_action_providers, "save": self.save_hooks,
             "index": self.index_hooks}[role].append(fn)

    def saved(self, ctx, path, uri: str) -> None:
        for hook in self.save_hooks:
            _isolated(hook, None, ctx, path, uri)

    def indexed(self, ctx, project) -> None:
        for hook in self.index_hooks:
            _isolated(hook, None, ctx, project)

    def code_actions(self, ctx, path, uri: str, params, snapshot, version) -> list:
        """Every provider's actions; a failing provider offers none, the others still do."""
        return [action for provider in self.code_action_providers
                for action in _isolated(provider, [], ctx, path, uri, params, snapshot, version)]


def _isolated(hook, default, *args):
    """One feature's hook: a failure is logged and gives ``default``; the other features still run."""
    try:
        return hook(*args)
    except Exception:
        log.exception("%s hook %s failed", getattr(hook, "__module__", "?"), getattr(hook, "__name__", hook))
        return default


def declared(module) -> list[tuple[Callable, str, object]]:
    """(function, role, argument) for each mark on the module's own functions, in their order."""
    found = []
    for value in vars(module).values():
        if getattr(value, "__module__", None) == module.__name__:
            for role, argument in getattr(value, ROLES, ()):
                found.append((value, role, argument))
    return found


def load_features(core_commands: dict | None = None) -> Features:
    """The features of ``FEATURE_MODULES`` with the commands the server names itself."""
    features = Features()
    for name, handler in (core_commands or {}).items():
        features.add(handler, "command", name)
    for name in FEATURE_MODULES:
        for fn, role, argument in declared(importlib.import_module(name)):
            features.add(fn, role, argument)
    return features


_TABLES = {"COMMANDS": "commands", "CODE_ACTION_PROVIDERS": "code_action_providers", "SAVE_HOOKS": "save_hooks",
           "INDEX_HOOKS": "index_hooks"}


def __getattr__(name: str):
    """``registry.SAVE_HOOKS`` and the like: what the feature modules declare, read afresh (for
    tests and callers that ask without a server)."""
    if name in _TABLES:
        return getattr(load_features(), _TABLES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
