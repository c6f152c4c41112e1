"""Review in the editor, end to end: the real server and the real Anthropic SDK against the local
Messages-API double. Global review diagnostics on exact ranges in whichever file, dismissal and
the report from code actions, local review with a retry through the inner loop, and review on
save re-running exactly the affected claims."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from draft_offers import draft_offers, text_edits
from lsp_session import start_session
from pytest_lsp import ClientServerConfig, LanguageClient

from doubles.messages_api import MessagesAPIDouble, tool_answer

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
EDGE_BOUND = "every edge of $H$ meets at most $k(\\Delta-1)$ other edges"
DOUBLE_COUNT = "Summing over the $k$ vertices of $e$"


def label_of(body: dict) -> str | None:
    m = re.search(r'<document-[0-9a-f]+ name="statement of ([^"]+)">', body["messages"][-1]["content"])
    return m.group(1) if m else None


def answer(body: dict):
    properties = body["tools"][0]["input_schema"]["properties"]
    if "withdrawn" in properties:
        return tool_answer({"verdict": "accepted", "reasons": [], "critiques": [], "withdrawn": []})
    if "verdict" in properties and properties["verdict"]["enum"] == ["passed", "failed"]:
        if label_of(body) == "lem:edge-degree":
            return tool_answer({"verdict": "failed", "reasons": ["the double count"], "critiques": [
                {"severity": "major", "kind": "gap", "quote": DOUBLE_COUNT, "message": "edges counted twice",
                 "repair": "say it only helps"}]})
        return tool_answer({"verdict": "passed", "reasons": ["fine"], "critiques": []})
    if "verdict" in properties:
        return tool_answer({"verdict": "revise", "reasons": ["a gap"], "critiques": [
            {"severity": "major", "kind": "gap", "file": "main.tex", "line": 1, "quote": EDGE_BOUND,
             "message": "the edge itself is not excluded", "repair": ""},
            {"severity": "minor", "kind": "other", "file": "main.tex", "line": 1, "quote": "nowhere in the paper",
             "message": "unanchored", "repair": ""}]})
    if "strategy" in properties:
        return tool_answer({"strategy": "per vertex", "proof": "Each vertex of $e$ lies in at most $\\Delta-1$ other edges."})
    if "critiques" in properties:
        return tool_answer({"critiques": []})
    if "angles" in properties:
        return tool_answer({"angles": [{"angle": "per vertex", "why": "."}, {"angle": "per edge", "why": "."}]})
    return tool_answer({"proof": "Each vertex of $e$ lies in at most $\\Delta-1$ other edges; sum over them.",
                        "alternative": "", "resolved": [], "open_conflicts": []})


API = MessagesAPIDouble([], responder=answer)
API.__enter__()  # one double for the module; the server reads its address from the environment


# a checkout run with PYTHONPATH (a worktree, not the installed copy) serves its own code
PASSED_ON = {k: os.environ[k] for k in ("PYTHONPATH", "XDG_CONFIG_HOME") if k in os.environ}


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "colosseum", "serve"],
    server_env={**PASSED_ON, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": API.url}))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    project = tmp_path_factory.mktemp("ws") / "paper"
    shutil.copytree(EXAMPLE, project)
    with (project / "colosseum.toml").open("a") as toml:
        toml.write("\n[solve]\nleaves = 2\nwidths = [2, 1]\nk = 2\n")  # a small inner loop for the retry
    await start_session(lsp_client, project)
    yield
    await lsp_client.shutdown_session()


def open_document(client: LanguageClient, path: Path, version: int = 1) -> str:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="latex", version=version, text=path.read_text())))
    return path.as_uri()


async def command(client: LanguageClient, name: str, *arguments):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command=name,
                                                                                   arguments=list(arguments)))


async def actions_for(client: LanguageClient, uri: str, diagnostic) -> list[types.Command]:
    found = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic])))
    commands = []
    for a in found or []:
        nested = a.command if isinstance(a, types.CodeAction) else a
        if nested is None:
            continue
        if isinstance(nested.command, str) and nested.command.startswith("{"):  # see test_server_solve.py
            data = ast.literal_eval(nested.command)
            nested = types.Command(data["title"], data["command"], arguments=data.get("arguments"))
        commands.append(nested)
    return commands


def review_diagnostics(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    return [d for d in client.diagnostics.get(uri, []) if d.source == "colosseum-review"]


async def test_global_review_pins_critiques_in_whichever_file_and_a_dismissal_removes_one(client: LanguageClient):
    main = open_document(client, client.project / "main.tex")
    before = len(API.requests)
    result = await command(client, "colosseum.globalReview", main)
    assert result["status"] == "done" and result["verdict"] == "revise" and result["unanchored"] == 1
    assert len(API.requests) - before == 3  # three reviewers
    # the quote is in sections/local-structure.tex, line 17: the diagnostic is there, on its exact span
    local = (client.project / "sections" / "local-structure.tex")
    (diag,) = review_diagnostics(client, local.as_uri())
    line = local.read_text().splitlines()[16]
    assert diag.code == "colosseum/review-gap" and diag.range.start.line == 16
    assert diag.range.start.character == line.index("every edge") and diag.range.end.line == 17
    assert "reviewer 1, reviewer 2, reviewer 3" in diag.message  # three identical critiques, merged
    assert review_diagnostics(client, main) == []  # the unanchored one is in the report only
    commands = await actions_for(client, local.as_uri(), diag)
    titles = {c.title: c for c in commands}
    assert set(titles) >= {"Dismiss this critique", "Open review report"}
    await command(client, "colosseum.openReport", *titles["Open review report"].arguments)
    assert client.shown_documents[-1].uri.endswith("-global.md")
    report = Path(titles["Open review report"].arguments[0]).read_text()
    assert "unanchored" in report and "# Global review: revise" in report
    await command(client, "colosseum.dismissReviewCritique", *titles["Dismiss this critique"].arguments)
    assert review_diagnostics(client, local.as_uri()) == []
    stored = json.loads((client.project / ".colosseum" / "reviews" / "dismissed.json").read_text())
    assert [entry["quote"] for entry in stored.values()] == [EDGE_BOUND]
    # reviewing again (served from the response cache) keeps it dismissed while the text is unchanged
    again = await command(client, "colosseum.globalReview", main)
    assert again["critiques"] == 1 and len(API.requests) - before == 3
    assert review_diagnostics(client, local.as_uri()) == []
    with pytest.raises(Exception, match="usage: colosseum.globalReview"):
        await command(client, "colosseum.globalReview")


async def test_local_review_retry_through_the_inner_loop_and_review_on_save(client: LanguageClient):
    local = client.project / "sections" / "local-structure.tex"
    uri = open_document(client, local)
    # a claim with a proof offers its local review where the cursor is
    lemma_line = next(i for i, text in enumerate(local.read_text().splitlines()) if "{lem:edge-degree}" in text)
    cursor = types.Diagnostic(range=types.Range(start=types.Position(line=lemma_line + 1, character=2),
                                                end=types.Position(line=lemma_line + 1, character=2)), message="")
    offered = [c for c in await actions_for(client, uri, cursor) if c.command == "colosseum.reviewClaim"]
    assert [c.arguments for c in offered] == [[uri, "lem:edge-degree"]]
    before = len(API.requests)
    with pytest.raises(Exception, match="nothing to review: `lem:resampling` has no proof"):
        await command(client, "colosseum.reviewClaim", uri, "lem:resampling")
    assert len(API.requests) == before  # a claim with no proof costs no call
    result = await command(client, "colosseum.reviewClaim", *offered[0].arguments)
    assert result["verdict"] == "failed" and not result["cached"] and len(API.requests) - before == 1
    diagnostics = review_diagnostics(client, uri)
    failed = next(d for d in diagnostics if d.code == "colosseum/review-failed")
    critique = next(d for d in diagnostics if d.code == "colosseum/review-gap")
    assert critique.range.start.line == 23 and "edges counted twice" in critique.message
    assert (await command(client, "colosseum.reviewClaim", uri, "lem:edge-degree"))["cached"]
    assert len(API.requests) - before == 1  # unchanged: no call
    # the failed claim is retried alone, the failed draft and the critique given to the provers
    (retry,) = [c for c in await actions_for(client, uri, failed) if c.command == "colosseum.retryClaim"]
    before = len(API.requests)
    done = await command(client, "colosseum.retryClaim", *retry.arguments)
    # the angle plan, 2 provers, 2 refuters, 1 aggregator, 2 final refuters of the root
    assert done["status"] == "done" and done["calls"] == 8 and len(API.requests) - before == 8
    generator = next(r for r in API.requests[before:] if "strategy" in r["tools"][0]["input_schema"]["properties"])
    generator = generator["messages"][-1]["content"]
    assert "edges counted twice" in generator and DOUBLE_COUNT in generator
    # the new proof is a draft the author picks, in place of the failed one; nothing applied unasked
    assert client.applied == [] and done["offered"] is True
    (offer,) = await draft_offers(client, uri, done["offer_at"]["line"])
    assert offer.title.startswith("Insert draft proof of lem:edge-degree in place of its proof (run ")
    (edit,) = offer.edit.document_changes
    assert edit.text_document.uri == uri and edit.text_document.version == 1
    (change,) = text_edits(offer.edit, uri)
    assert change.new_text.startswith("\\begin{proof} % colosseum: draft ")
    lines = local.read_text().splitlines()
    assert lines[change.range.start.line].strip() == "\\begin{proof}" and change.range.start.line == 20
    assert lines[change.range.end.line].strip() == "\\end{proof}" and "sum over them" in change.new_text

    # review on save: first a save to warm the cache, then an edit of a statement and a save,
    # which reviews exactly the edited claim and the claims that use it directly
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"colosseum": {"reviewOnSave": True}}))
    start = len(API.requests)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await settle()
    warmed = {label_of(b) for b in API.requests[start:]}
    assert {"lem:mutual-independence", "lem:degree-arith", "cor:dependency-graph", "thm:main"} <= warmed
    assert "lem:edge-degree" not in warmed  # reviewed above, unchanged
    text = local.read_text().replace("at most $k(\\Delta-1)$ other edges.", "at most $k\\Delta$ other edges.")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    start = len(API.requests)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await settle()
    assert sorted(label_of(b) for b in API.requests[start:]) == ["cor:dependency-graph", "lem:edge-degree"]


async def settle(quiet: float = 1.0, limit: float = 60.0) -> None:
    """Until the save's review (spawned by the server) has begun and the double has then seen no
    request for ``quiet`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    first = seen = len(API.requests)
    since = loop.time()
    while loop.time() < deadline:
        await asyncio.sleep(0.1)
        if len(API.requests) != seen:
            seen, since = len(API.requests), loop.time()
        elif seen > first and loop.time() - since >= quiet and API.in_flight == 0:
            return


async def test_a_global_review_can_be_cancelled_from_its_progress(client: LanguageClient):
    main = open_document(client, client.project / "main.tex")
    API.responder = lambda body: ("sleep", 1.0, answer(body))  # slow reviewers, to cancel in the middle
    try:
        running = asyncio.ensure_future(command(client, "colosseum.globalReview", main))
        token = None
        for _ in range(2400):  # bounded wait for the progress to begin (a first index and SDK import come first)
            await asyncio.sleep(0.05)
            token = next((t for t, values in client.progress_reports.items()
                          if values and getattr(values[0], "title", "").startswith("Global review")), None)
            if token is not None:
                break
        assert token is not None
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        result = await running
    finally:
        API.responder = answer
    assert result["status"] == "cancelled"
    assert isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd)  # the progress ended
    assert review_diagnostics(client, (client.project / "sections" / "local-structure.tex").as_uri()) == []


async def test_critiques_follow_their_quotes_at_every_re_index_without_a_save(client: LanguageClient):
    main = open_document(client, client.project / "main.tex")
    local = client.project / "sections" / "local-structure.tex"
    uri = open_document(client, local)
    result = await command(client, "colosseum.globalReview", main)
    assert result["status"] == "done"
    (diag,) = review_diagnostics(client, uri)
    assert diag.range.start.line == 16
    original = local.read_text()

    async def edited(version: int, text: str, expect) -> list[types.Diagnostic]:
        """Type ``text`` (no save); the review diagnostics once the server published for it."""
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        for _ in range(200):  # bounded wait for the re-index and its publication
            await asyncio.sleep(0.05)
            found = review_diagnostics(client, uri)
            if expect(found):
                return found
        return review_diagnostics(client, uri)

    # two lines typed above the lemma: the critique moves down with its quote, on its exact span
    moved = await edited(2, "% a note\n% another\n" + original, lambda f: f and f[0].range.start.line != 16)
    assert [(d.range.start.line, d.range.end.line) for d in moved] == [(18, 19)]
    line = ("% a note\n% another\n" + original).splitlines()[18]
    assert moved[0].range.start.character == line.index("every edge")
    # the quoted words are rewritten: the critique is not pinned anywhere; restored: it is back
    gone = await edited(3, original.replace("every edge of $H$ meets", "each edge of $H$ meets"), lambda f: not f)
    assert gone == []
    back = await edited(4, original, lambda f: bool(f))
    assert [(d.range.start.line, d.code) for d in back] == [(16, "colosseum/review-gap")]
    # the code actions still find the critique behind the diagnostic where it now is
    commands = await actions_for(client, uri, back[0])
    assert "Dismiss this critique" in {c.title for c in commands}
    # the sentence is cut from this file and pasted into another: the critique follows it there
    other = client.project / "sections" / "preliminaries.tex"
    other_uri = open_document(client, other)
    cut = original.replace("every edge of $H$ meets\n  at most $k(\\Delta-1)$ other edges", "it holds")
    assert cut != original and await edited(5, cut, lambda f: not f) == []
    pasted = other.read_text() + "\nHere every edge of $H$ meets at most $k(\\Delta-1)$ other edges.\n"
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=other_uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=pasted)]))
    for _ in range(200):  # bounded wait for the re-index and its publication
        await asyncio.sleep(0.05)
        if review_diagnostics(client, other_uri):
            break
    (there,) = review_diagnostics(client, other_uri)
    assert there.range.start.line == len(pasted.splitlines()) - 1 and there.code == "colosseum/review-gap"
    assert review_diagnostics(client, uri) == []
