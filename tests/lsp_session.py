"""The client side of an end-to-end session shared by the server tests: the server's command, the
initialize request on one project folder, and a VS Code-like client that applies every edit the
server offers (and records it) and accepts capability registrations."""

from __future__ import annotations

import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

SERVER = [sys.executable, "-m", "colosseum", "serve"]


def initialize_params(project: Path, capabilities: types.ClientCapabilities) -> types.InitializeParams:
    """Open ``project`` as the one workspace folder (named "paper"). Model-backed runs start at once:
    the pause before a run's first call is tested on its own (tests/test_server_start_delay.py)."""
    return types.InitializeParams(
        capabilities=capabilities, root_uri=project.as_uri(), initialization_options={"startDelaySeconds": 0},
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="paper")])


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

    answer_consent(client)

    await client.initialize_session(initialize_params(project, client_capabilities("visual-studio-code")))
    client.project, client.applied = project, applied
    return applied


def answer_consent(client: LanguageClient) -> None:
    """The consent to send the paper to a model (asked once per project): this author says "Send"
    unless a test sets ``client.consent_answers`` (tests/test_server_consent.py); the questions are
    kept in ``client.consent_questions``."""
    client.consent_questions = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def consent(params: types.ShowMessageRequestParams):
        client.consent_questions.append(params)
        answers = getattr(client, "consent_answers", None)
        return types.MessageActionItem(title=answers.pop(0) if answers else "Send")
