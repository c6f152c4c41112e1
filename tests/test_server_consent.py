"""Consent before a paper leaves the machine: the first model-backed action in a project asks once
(what is sent, about how many tokens, the estimated cost, the provider) with "Send" / "Cancel";
"Cancel" sends nothing, "Send" is remembered in the user-level config dir, never in the project."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from lsp_session import start_session
from pytest_lsp import ClientServerConfig, LanguageClient

from doubles.messages_api import MessagesAPIDouble
from test_solve_cli import answer_by_role

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
API = MessagesAPIDouble([], responder=answer_by_role)
API.__enter__()
CONFIG_HOME = Path(os.environ["XDG_CONFIG_HOME"]) / "consent-test"  # this module's user config dir (conftest)
PASSED_ON = {k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ}


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "colosseum", "serve"],
    server_env={**PASSED_ON, "XDG_CONFIG_HOME": str(CONFIG_HOME), "ANTHROPIC_API_KEY": "sk-test",
                "ANTHROPIC_BASE_URL": API.url}))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    project = tmp_path_factory.mktemp("ws") / "paper"
    shutil.copytree(EXAMPLE, project)
    await start_session(lsp_client, project)
    yield
    await lsp_client.shutdown_session()


async def _solve(client: LanguageClient, uri: str):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.solveObligation", arguments=[uri, "lem:resampling"]))


async def test_the_first_solve_asks_and_cancel_sends_nothing_send_is_remembered(client: LanguageClient):
    path = client.project / "sections" / "main-result.tex"
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="latex", version=1, text=path.read_text())))
    before = len(API.requests)
    client.consent_answers = ["Cancel"]
    declined = await _solve(client, uri)
    assert declined["status"] == "cancelled" and declined["sent"] is False and "nothing was sent" in declined["message"]
    assert len(API.requests) == before  # no model call was made
    (question,) = client.consent_questions
    assert [a.title for a in question.actions] == ["Send", "Cancel"]
    assert "lem:resampling" in question.message and "tokens of input" in question.message
    assert "anthropic" in question.message and "$" in question.message
    memory = CONFIG_HOME / "colosseum" / "consent.json"
    assert not memory.exists()  # a Cancel is not remembered: the next action asks again

    client.consent_answers = ["Send"]
    done = await _solve(client, uri)
    assert done["status"] == "done" and len(API.requests) - before == 49
    assert len(client.consent_questions) == 2
    remembered = json.loads(memory.read_text())
    assert list(remembered) == [str(client.project.resolve())]
    # remembered outside the project: nothing in the project says it may be sent
    assert not any("consent" in p.name for p in client.project.rglob("*"))

    again = await _solve(client, uri)
    assert again["status"] == "done" and len(client.consent_questions) == 2  # not asked a second time
