""""Solve obligation" from the editor: the real server, the real Anthropic SDK, and a local
Messages-API double standing in for the API."""

from __future__ import annotations

import ast
import os
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from draft_offers import draft_offers, text_edits
from lsp_session import start_session
from pytest_lsp import ClientServerConfig, LanguageClient

from doubles.messages_api import MessagesAPIDouble
from test_solve_cli import answer_by_role

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
API = MessagesAPIDouble([], responder=answer_by_role)
API.__enter__()  # one double for the module; the server reads its address from the environment
# a checkout run with PYTHONPATH (a worktree, not the installed copy) serves its own code
PASSED_ON = {k: os.environ[k] for k in ("PYTHONPATH", "XDG_CONFIG_HOME") if k in os.environ}


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "colosseum", "serve"],
    server_env={**PASSED_ON, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": API.url}))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    project = tmp_path_factory.mktemp("ws") / "paper"
    shutil.copytree(EXAMPLE, project)
    await start_session(lsp_client, project)
    yield
    await lsp_client.shutdown_session()


def open_document(client: LanguageClient, path: Path) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="latex", version=1, text=path.read_text())))
    return uri


async def test_solve_obligation_offers_the_proof_and_pins_the_critiques(client: LanguageClient):
    path = client.project / "sections" / "main-result.tex"
    uri = open_document(client, path)
    before = len(API.requests)
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.solveObligation", arguments=[uri, "lem:resampling"]))
    assert result["status"] == "done" and result["calls"] == 49 and len(API.requests) - before == 49
    # the proof is offered as a draft on the claim: an edit of that document, at its version, right
    # after the lemma, applied only when the author picks it (tests/test_server_drafts.py)
    assert client.applied == [] and result["offered"] is True
    (offer,) = await draft_offers(client, uri, result["offer_at"]["line"])
    (change,) = offer.edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == 1
    (edit,) = text_edits(offer.edit, uri)
    line = path.read_text().splitlines()[edit.range.start.line]
    assert "\\end{lemma}" in line and "\\begin{proof}" in edit.new_text and "witness-tree" in edit.new_text
    # the surviving critique is a diagnostic on the obligation, with the report one action away
    critiques = [d for d in client.diagnostics.get(uri, []) if d.source == "colosseum-solve"]
    assert critiques and critiques[0].code == "colosseum/critique-gap"
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=critiques[0].range,
        context=types.CodeActionContext(diagnostics=critiques)))
    # lsprotocol's client reads a CodeAction that carries a command as a Command whose `command`
    # is the nested object's repr (the union is ambiguous to it); VS Code and Neovim are not fooled
    commands = []
    for a in actions:
        nested = a.command if isinstance(a, types.CodeAction) else a
        if nested is None:
            continue  # an action that is an edit (Unmark), not a command
        if isinstance(nested.command, str) and nested.command.startswith("{"):
            data = ast.literal_eval(nested.command)
            nested = types.Command(data["title"], data["command"], arguments=data.get("arguments"))
        commands.append(nested)
    report = [c for c in commands if c.command == "colosseum.openReport"]
    assert len(report) == 1
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.openReport", arguments=report[0].arguments))
    assert client.shown_documents and client.shown_documents[-1].uri.endswith("report.md")
    # the curator kept what the run taught: the proof as a model-reviewed observation pointing at the
    # report and, once the author inserted it (the offer's command) and no fatal critique survived,
    # a result in the paper
    inserted = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=offer.command.command, arguments=offer.command.arguments))
    from colosseum.catalog.store import read_entry

    knowledge = client.project / "knowledge"
    written = {i: read_entry(knowledge / f"{i}.md") for i in result["catalog"] + inserted["catalog"]}
    assert all(problems == [] for _, problems in written.values())
    kinds = {entry.kind: entry for entry, _ in written.values()}
    observation = kinds["observation"]
    assert observation.links["labels"] == ["lem:resampling"] and observation.data["strength"] == "proof"
    (evidence,) = observation.data["evidence"]
    assert evidence["type"] == "proof" and "Not yet read by a person" in evidence["description"]
    assert (client.project / evidence["artifact"]).is_file()
    assert kinds["result"].data["proof"] == {"label": "lem:resampling"}
    # an unknown label is a clear error
    with pytest.raises(Exception, match="no claim `lem:nowhere`"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="colosseum.solveObligation", arguments=[uri, "lem:nowhere"]))


async def test_add_to_catalog_and_record_a_failed_route_from_the_editor(client: LanguageClient):
    from colosseum.catalog.store import read_entry

    path = client.project / "sections" / "main-result.tex"
    uri = open_document(client, path)
    added = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.addToCatalog", arguments=[uri, "thm:main"]))
    entry, problems = read_entry(Path(added["path"]))
    assert problems == [] and entry.kind == "result" and entry.links["labels"] == ["thm:main"]
    recorded = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.recordFailedRoute", arguments=[uri, "lem:resampling", "major gap: the bound needs LLL"]))
    entry, problems = read_entry(Path(recorded["path"]))
    assert problems == [] and entry.kind == "failed-route" and entry.data["target"] == {"label": "lem:resampling"}
    assert any(doc.uri.endswith(".md") for doc in client.shown_documents)


async def test_retract_from_the_editor_asks_for_a_reason_and_makes_dependents_suspect(client: LanguageClient):
    from colosseum.catalog.store import read_entry

    path = client.project / "sections" / "main-result.tex"
    uri = open_document(client, path)
    added = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.addToCatalog", arguments=[uri, "thm:main"]))
    entry_id = Path(added["path"]).stem
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "\\label{thm:main}" in line)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=at, character=0), end=types.Position(line=at, character=0)),
        context=types.CodeActionContext(diagnostics=[])))
    titles = [a.title for a in actions]
    assert f"Retract catalog entry `{entry_id}` (result)…" in titles
    # without a reason: refused, saying how to give one; the entry is untouched
    with pytest.raises(Exception, match="needs a reason"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="colosseum.retractEntry", arguments=[uri, entry_id]))
    assert read_entry(Path(added["path"]))[0].status == "active"
    done = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.retractEntry", arguments=[uri, entry_id, "the constant in (3) is wrong"]))
    assert done["retracted"] == entry_id and done["problems"] == []
    entry, problems = read_entry(Path(added["path"]))
    assert problems == [] and entry.status == "retracted"
    assert entry.data["retraction_reason"] == "the constant in (3) is wrong"
    # the claim that relied on it is now suspect, in the editor
    import asyncio

    for _ in range(100):  # published after the command answered, or with it
        suspect = [d for d in client.diagnostics.get(uri, []) if d.code == "colosseum/suspect"]
        if suspect:
            break
        await asyncio.sleep(0.05)
    assert any("thm:main" in d.message and "the constant in (3) is wrong" in d.message for d in suspect)
