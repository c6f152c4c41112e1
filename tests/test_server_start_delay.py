"""Every model-backed run from the editor asks before the paper first leaves the machine (global
review, local review and research here; solve in tests/test_server_consent.py), shows its estimate in
its progress title, and can be cancelled before its first call: the title stays up for
`startDelaySeconds`, and a cancel then sends nothing. The real server, the real Anthropic SDK and a
local Messages-API double standing in for the API."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from lsp_session import start_session
from pytest_lsp import ClientServerConfig, LanguageClient

from doubles.messages_api import MessagesAPIDouble
from doubles.research_script import ResearchScript
from test_research_cli import TOML, responder
from test_research_pipeline import MAIN, RESULT
from test_solve_cli import answer_by_role

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
API = MessagesAPIDouble([], responder=answer_by_role)
API.__enter__()
RESEARCH_API = MessagesAPIDouble([], responder=responder(ResearchScript(generations=(2, 1))))
RESEARCH_API.__enter__()
CONFIG_HOME = Path(os.environ["XDG_CONFIG_HOME"])  # conftest: a user config dir of the test run's own
PASSED_ON = {k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ}


def server(api: MessagesAPIDouble, config_home: str) -> ClientServerConfig:
    return ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"], server_env={
        **PASSED_ON, "XDG_CONFIG_HOME": str(CONFIG_HOME / config_home), "ANTHROPIC_API_KEY": "sk-test",
        "ANTHROPIC_BASE_URL": api.url})


@pytest_lsp.fixture(config=server(API, "start-delay-paper"))
async def paper(lsp_client: LanguageClient, tmp_path_factory):
    project = tmp_path_factory.mktemp("ws") / "paper"
    shutil.copytree(EXAMPLE, project)
    await start_session(lsp_client, project)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=server(RESEARCH_API, "start-delay-research"))
async def research(lsp_client: LanguageClient, tmp_path_factory):
    project = tmp_path_factory.mktemp("ws") / "paper"
    (project / "sections").mkdir(parents=True)
    for name, text in (("main.tex", MAIN), ("sections/result.tex", RESULT), ("colosseum.toml", TOML)):
        (project / name).write_text(text)
    await start_session(lsp_client, project)
    yield
    await lsp_client.shutdown_session()


def open_document(client: LanguageClient, path: Path) -> str:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="latex", version=1, text=path.read_text())))
    return path.as_uri()


async def run_cancelled_at_begin(client: LanguageClient, title_start: str, command: str, *arguments) -> tuple:
    """Runs ``command`` and cancels its progress as soon as it begins; (answer, title, reports)."""
    known = set(client.progress_reports)
    running = asyncio.ensure_future(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=command, arguments=list(arguments))))
    token = None
    for _ in range(2400):  # bounded wait for the progress to begin (an index and the SDK import come first)
        await asyncio.sleep(0.05)
        token = next((t for t, values in client.progress_reports.items() if t not in known and values
                      and getattr(values[0], "title", "").startswith(title_start)), None)
        if token is not None and len(client.progress_reports[token]) >= 2:  # the "starting in" line is up
            break
    assert token is not None, f"no progress began with {title_start!r}"
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    answer = await running
    return answer, client.progress_reports[token][0].title, client.progress_reports[token]


def delay(client: LanguageClient, seconds: float) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"colosseum": {"startDelaySeconds": seconds}}))


async def test_reviews_ask_first_then_show_the_estimate_and_cancel_before_the_first_call(paper: LanguageClient):
    main = open_document(paper, paper.project / "main.tex")
    local = open_document(paper, paper.project / "sections" / "local-structure.tex")
    before = len(API.requests)
    paper.consent_answers = ["Cancel"]
    declined = await paper.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.globalReview", arguments=[main]))
    assert declined["sent"] is False and "nothing was sent" in declined["message"]
    (question,) = paper.consent_questions
    assert "the whole document" in question.message and "tokens of input" in question.message
    assert len(API.requests) == before

    delay(paper, 600)  # long enough that only the cancel can end the wait
    paper.consent_answers = ["Send"]
    answer, title, reports = await run_cancelled_at_begin(paper, "Global review", "colosseum.globalReview", main)
    assert answer["status"] == "cancelled" and answer["sent"] is False
    assert "before its first call: nothing was sent or spent" in answer["message"]
    assert "(at most ~$" in title and "starting in 600 s" in reports[1].message
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    answer, title, _ = await run_cancelled_at_begin(paper, "Reviewing lem:edge-degree", "colosseum.reviewClaim",
                                                    local, "lem:edge-degree")
    assert answer["status"] == "cancelled" and "(at most ~$" in title
    assert len(API.requests) == before  # not one call in all of it
    assert len(paper.consent_questions) == 2  # asked again after a Cancel, then remembered

    delay(paper, 0)  # no wait: a run starts at once, and the project is not asked about again
    solved = open_document(paper, paper.project / "sections" / "main-result.tex")
    done = await paper.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.solveObligation", arguments=[solved, "lem:resampling"]))
    assert done["status"] == "done" and len(API.requests) > before and len(paper.consent_questions) == 2


async def test_research_asks_first_and_can_be_cancelled_before_its_first_call(research: LanguageClient):
    uri = open_document(research, research.project / "sections" / "result.tex")
    before = len(RESEARCH_API.requests)
    research.consent_answers = ["Cancel"]
    declined = await research.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.exploreStrategies", arguments=[uri, "thm:goal"]))
    assert declined["sent"] is False
    (question,) = research.consent_questions
    assert "the statement of thm:goal" in question.message and "model calls" in question.message
    delay(research, 600)
    research.consent_answers = ["Send"]
    answer, title, _ = await run_cancelled_at_begin(research, "Exploring strategies for thm:goal",
                                                    "colosseum.exploreStrategies", uri, "thm:goal")
    assert answer["status"] == "cancelled" and answer["sent"] is False and "(at most ~$" in title
    assert len(RESEARCH_API.requests) == before
