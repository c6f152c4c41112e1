"""The client side of an end-to-end session shared by the server tests: a VS Code-like client
that applies every edit the server offers (and records it) and accepts capability registrations,
opened on one project folder."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities


async def start_session(client: LanguageClient, project: Path) -> list:
    """Initialize ``client`` on ``project``; returns the list the applied edits are appended to
    (also kept as ``client.applied``, with ``client.project``)."""
    applied: list = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams):
        applied.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params):
        return None

    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=project.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="paper")]))
    client.project, client.applied = project, applied
    return applied
