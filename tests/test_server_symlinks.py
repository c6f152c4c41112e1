"""A workspace opened through a symlink (a paper kept in a synced folder and linked into ~/work):
the editor keeps the link's path, so everything the server says about the paper must use it.
Findings sent under the real path would show on no open editor."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

MAIN = r"""\documentclass{article}
\begin{document}
\input{sections/a}
\end{document}
"""
A_TEX = r"""\section{First}\label{sec:first}
\begin{lemma}\label{lem:alpha}
Alpha holds.
\end{lemma}
\begin{theorem}\label{thm:beta}
Beta holds by \cref{lem:alpha} and \cref{lem:missing}.
\end{theorem}
"""


@pytest.fixture
def linked_project(tmp_path: Path) -> Path:
    real = tmp_path / "synced" / "paper"
    (real / "sections").mkdir(parents=True)
    (real / "main.tex").write_text(MAIN, encoding="utf-8")
    (real / "sections" / "a.tex").write_text(A_TEX, encoding="utf-8")
    link = tmp_path / "work"
    link.mkdir()
    (link / "paper").symlink_to(real, target_is_directory=True)
    return link / "paper"


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                              server_env={k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}),
)
async def client(lsp_client: LanguageClient, linked_project: Path):
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        return None

    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=linked_project.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=linked_project.as_uri(), name="paper")]))
    lsp_client.project = linked_project
    yield
    await lsp_client.shutdown_session()


async def _diagnostics_for(client: LanguageClient, uri: str, timeout: float = 15.0) -> list[types.Diagnostic]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if client.diagnostics.get(uri):
            return client.diagnostics[uri]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics for {uri}; published for: {sorted(client.diagnostics)}")


async def test_findings_and_locations_use_the_clients_spelling(client: LanguageClient):
    path = client.project / "sections" / "a.tex"
    assert path.resolve() != path  # the test is about a link
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="latex", version=1, text=path.read_text(encoding="utf-8"))))

    found = await _diagnostics_for(client, uri)
    assert [d.code for d in found if d.code == "colosseum/undefined-reference"] == ["colosseum/undefined-reference"]
    real_prefix = path.resolve().parent.parent.as_uri()
    assert not [u for u in client.diagnostics if u.startswith(real_prefix + "/")], "published under the real path"

    # go to definition, and an edit, keep the link's spelling too
    line = A_TEX.splitlines().index(r"Beta holds by \cref{lem:alpha} and \cref{lem:missing}.")
    col = A_TEX.splitlines()[line].index("lem:alpha") + 2
    locations = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=col)))
    locations = locations if isinstance(locations, list) else [locations]
    assert [loc.uri for loc in locations] == [uri]

    fixed = A_TEX.replace(r" and \cref{lem:missing}", "")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)]))
    def undefined() -> list:
        return [d for d in client.diagnostics.get(uri, []) if d.code == "colosseum/undefined-reference"]

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    while undefined() and loop.time() < deadline:
        await asyncio.sleep(0.05)
    assert undefined() == [], "the fix clears the link's finding"
    assert not [u for u in client.diagnostics if u.startswith(real_prefix + "/")]
