""""Explore strategies" from the editor: the real server, the real Anthropic SDK, and a local
Messages-API double standing in for the API, answering from the research script (a test double)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from draft_offers import draft_offers
from lsp_session import start_session
from pytest_lsp import ClientServerConfig, LanguageClient

from doubles.research_script import ResearchScript
from doubles.messages_api import MessagesAPIDouble
from test_research_cli import TOML, responder
from test_research_pipeline import MAIN, RESULT

API = MessagesAPIDouble([], responder=responder(ResearchScript(generations=(2, 1))))
API.__enter__()  # one double for the module; the server reads its address from the environment
# a checkout run with PYTHONPATH (a worktree, not the installed copy) serves its own code
PASSED_ON = {k: os.environ[k] for k in ("PYTHONPATH", "XDG_CONFIG_HOME") if k in os.environ}


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "colosseum", "serve"],
    server_env={**PASSED_ON, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": API.url}))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    project = tmp_path_factory.mktemp("ws") / "paper"
    (project / "sections").mkdir(parents=True)
    for name, text in (("main.tex", MAIN), ("sections/result.tex", RESULT), ("colosseum.toml", TOML)):
        (project / name).write_text(text)
    await start_session(lsp_client, project)
    yield
    await lsp_client.shutdown_session()


async def test_explore_strategies_shows_the_cards_and_offers_the_skeleton_as_a_new_file(client: LanguageClient):
    path = client.project / "sections" / "result.tex"
    uri = path.as_uri()
    before = len(API.requests)  # the double is shared by the module's tests, in any order
    # bad arguments are a clear message, before anything is spent
    for arguments, message in (([uri], "usage"), ([uri, "thm:none"], "no claim"), ([uri, "lem:known"], "already has")):
        try:
            await client.workspace_execute_command_async(types.ExecuteCommandParams(
                command="colosseum.exploreStrategies", arguments=arguments))
        except Exception as exc:  # the server answers RequestFailed with the author's message
            assert message in str(exc)
        else:
            raise AssertionError(f"{arguments} was accepted")
    assert len(API.requests) == before
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="latex", version=3, text=path.read_text())))
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.exploreStrategies", arguments=[uri, "thm:goal"]))
    assert result["status"] == "decomposed" and result["offered"] is True
    # the strategy cards are in the run's report, shown to the author
    report = Path(result["report"])
    assert "## Strategy cards" in report.read_text() and "Key mechanism" in report.read_text()
    assert [d.uri for d in client.shown_documents] == [report.as_uri()]
    # the progress said which stage the run was at
    messages = [getattr(r, "message", "") or "" for reports in client.progress_reports.values() for r in reports]
    assert any("exploring" in m for m in messages) and any("decomposing" in m for m in messages)
    # offered as a draft, applied only when the author picks it: one edit that creates a new file
    # with the skeleton (each proof in it marked as the run's draft) and \input's it after the
    # theorem at version 3
    assert client.applied == []
    (offer,) = await draft_offers(client, uri, result["offer_at"]["line"])
    assert offer.title.startswith("Insert draft skeleton of thm:goal (run ")
    create, fill, link = offer.edit.document_changes
    new = client.project / "sections" / "result-thm-goal-skeleton.tex"
    assert isinstance(create, types.CreateFile) and create.uri == new.as_uri()
    assert create.options.overwrite is False and not new.exists()
    assert fill.text_document.uri == new.as_uri() and "% colosseum: obligation" in fill.edits[0].new_text
    assert "[Proof of \\cref{thm:goal}]" in fill.edits[0].new_text
    proof_lines = [line for line in fill.edits[0].new_text.splitlines() if "\\begin{proof}" in line]
    assert proof_lines and all("% colosseum: draft " in line for line in proof_lines)
    assert link.text_document.uri == uri and link.text_document.version == 3
    (insert,) = link.edits
    assert "\\end{theorem}" in path.read_text().splitlines()[insert.range.start.line]
    assert insert.new_text.strip() == "\\input{sections/result-thm-goal-skeleton}"
    # only the stages before solving ran: no inner loop, no review (4 cards, 4 falsifiers, the
    # aggregator, the gate, the check of its rebuttal of the one fatal critique, the decomposer)
    assert result["calls"] == 4 + 4 + 1 + 1 + 1 + 1 == len(API.requests) - before
    assert path.read_text() == RESULT  # nothing written unless the author applies the edit


async def test_cancelling_a_research_run_stops_it_before_the_next_model_call(client: LanguageClient):
    import asyncio

    path = client.project / "sections" / "result.tex"
    slow = responder(ResearchScript(generations=(2, 1)))

    def answer(body: dict):  # the inner loop's provers answer late, so there is time to cancel
        late = "prover" in body["messages"][-1]["content"] and " name=\"obligation\">" in \
            body["messages"][-1]["content"]
        return ("sleep", 3.0, slow(body)) if late else slow(body)

    API.responder = answer
    try:
        running = asyncio.ensure_future(client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="colosseum.exploreStrategies", arguments=[path.as_uri(), "thm:goal", {"solve": True}])))
        token, seen, quiet = None, None, 0
        for _ in range(2400):  # bounded wait for the run to reach the DAG and send all it can
            await asyncio.sleep(0.05)
            token = next((t for t, values in client.progress_reports.items()
                          if any("· solving" in (getattr(v, "message", "") or "") for v in values)), None)
            # the provers' calls start one after another: cancel only once nothing new has been
            # sent for a while, so every call counted below was sent after the cancel
            now = (len(API.requests), API.in_flight)
            quiet = quiet + 1 if now == seen else 0
            seen = now
            if token is not None and API.in_flight and quiet >= 8:
                break
        assert token is not None and API.in_flight
        sent, in_flight = len(API.requests), API.in_flight
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        result = await running
    finally:
        API.responder = responder(ResearchScript(generations=(2, 1)))
    assert result["status"] == "cancelled"
    # only the calls already in flight finished: not one more was sent (before, every section's
    # inner loop and local review ran to the end)
    assert len(API.requests) - sent == 0, (in_flight, [b["messages"][-1]["content"][:60]
                                                       for b in API.requests[sent:]])
    assert isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd)


async def test_bad_settings_and_a_theorem_renamed_during_the_run_are_clear_messages(client: LanguageClient):
    import asyncio

    path = client.project / "sections" / "result.tex"
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="latex", version=1, text=path.read_text())))
    before = len(API.requests)
    for budget, message in ((5, "must be a table"), ({"max_calls": "ten"}, "must be a positive integer")):
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"colosseum": {"budget": budget}}))
        try:
            await client.workspace_execute_command_async(types.ExecuteCommandParams(
                command="colosseum.exploreStrategies", arguments=[uri, "thm:goal"]))
        except Exception as exc:  # the server answers RequestFailed with the author's message
            assert message in str(exc)
        else:
            raise AssertionError(f"budget {budget!r} was accepted")
    assert len(API.requests) == before
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"colosseum": {"budget": None}}))
    # the author renames the theorem while its strategies are explored
    script = responder(ResearchScript(generations=(2, 1)))
    API.responder = lambda body: ("sleep", 0.3, script(body))
    try:
        running = asyncio.ensure_future(client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="colosseum.exploreStrategies", arguments=[uri, "thm:goal"])))
        for _ in range(200):  # bounded wait for the first call
            await asyncio.sleep(0.05)
            if len(API.requests) > before:
                break
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(
                text=path.read_text().replace("thm:goal", "thm:renamed"))]))
        result = await running
    finally:
        API.responder = responder(ResearchScript(generations=(2, 1)))
    assert result["status"] == "decomposed" and result["offered"] is False and result["skeleton"] is None
    assert "no longer in the document" in result["message"]
