"""The version handshake, server side: `initialize` answers with serverInfo naming the server and
its version, the package's own (colosseum.__version__), which the editor clients compare with theirs."""

from __future__ import annotations

import os
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from colosseum import __version__


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "colosseum", "serve"],
    server_env={k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}))
async def client(lsp_client: LanguageClient, tmp_path):
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params):  # the server registers its file watchers with a client that offers it
        return None

    lsp_client.initialized_result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def test_initialize_reports_the_server_name_and_version(client: LanguageClient):
    info = client.initialized_result.server_info
    assert info is not None
    assert (info.name, info.version) == ("colosseum", __version__)


def test_the_editor_clients_are_released_with_the_server_version():
    """Each client compares its own version with the server's: all three move together."""
    import json
    import re
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    vscode = json.loads((repo / "editor-clients" / "vscode" / "package.json").read_text())["version"]
    lua = (repo / "editor-clients" / "neovim" / "lua" / "colosseum" / "version.lua").read_text()
    neovim = re.search(r'version\.VERSION = "([^"]+)"', lua).group(1)
    assert vscode == neovim == __version__
