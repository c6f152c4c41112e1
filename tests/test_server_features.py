"""How the server wires its features (server/colosseum_lsp/features/registry.py, server.py): each
LSP method is registered once, the features' commands and hooks are read from the marks on their
functions into the server's own table, and a failing feature is isolated (logged; the others
still run)."""

from __future__ import annotations

import logging
import sys
import types as pytypes

import pytest

from colosseum_lsp.features import registry
from colosseum_lsp.server import CORE_COMMANDS, Handlers, build_server


def _feature_module(name: str, **functions) -> pytypes.ModuleType:
    module = pytypes.ModuleType(name)
    for fn_name, fn in functions.items():
        fn.__module__, fn.__name__ = name, fn_name
        setattr(module, fn_name, fn)
    sys.modules[name] = module
    return module


def test_every_method_and_command_is_registered_once_and_the_tables_are_the_servers():
    server = build_server()
    features = server.colosseum.features
    names = [m for m, *_ in Handlers.METHODS + Handlers.REQUESTS]
    assert len(names) == len(set(names))
    assert set(names) <= set(server.protocol.fm.features)
    assert set(features.commands) <= set(server.protocol.fm.commands)
    assert set(CORE_COMMANDS) <= set(features.commands)
    assert {"colosseum.checkLean", "colosseum.globalReview", "colosseum.exploreStrategies",
            "colosseum.retractEntry"} <= set(features.commands)
    # a second server reads its own table: nothing is shared through module-level lists
    other = build_server().colosseum.features
    assert other is not features and other.save_hooks == features.save_hooks
    other.save_hooks.clear()
    assert features.save_hooks and registry.SAVE_HOOKS


def test_a_failing_feature_is_logged_and_the_others_still_run(monkeypatch, caplog):
    calls = []

    def broken(*args):
        raise RuntimeError("a bug in one feature")

    def fine_save(ctx, path, uri):
        calls.append(("save", uri))

    def fine_actions(ctx, path, uri, params, snap, version):
        return ["an action"]

    module = _feature_module("colosseum_test_feature", broken_save=registry.on_save(broken),
                             fine_save=registry.on_save(fine_save))
    actions = _feature_module("colosseum_test_actions", broken_actions=registry.code_action_provider(lambda *a: 1 / 0),
                              fine_actions=registry.code_action_provider(fine_actions))
    monkeypatch.setattr(registry, "FEATURE_MODULES", (module.__name__, actions.__name__))
    try:
        features = registry.load_features()
        with caplog.at_level(logging.ERROR, logger=registry.__name__):
            features.saved(None, None, "file:///a.tex")
            assert features.code_actions(None, None, "file:///a.tex", None, None, None) == ["an action"]
        assert calls == [("save", "file:///a.tex")]
        assert sum("failed" in r.getMessage() for r in caplog.records) == 2
    finally:
        del sys.modules[module.__name__], sys.modules[actions.__name__]


def test_a_command_registered_twice_is_refused(monkeypatch):
    async def handler(ctx, args):
        return None

    module = _feature_module("colosseum_test_twice", handler=registry.command("colosseum.reindex")(handler))
    monkeypatch.setattr(registry, "FEATURE_MODULES", (module.__name__,))
    try:
        with pytest.raises(ValueError, match="registered twice"):
            registry.load_features(CORE_COMMANDS)
    finally:
        del sys.modules[module.__name__]
