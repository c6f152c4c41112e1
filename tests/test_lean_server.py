"""Lean in the editor, end to end: the real server (`python -m colosseum serve`), the real
leanclient, and the scripted `lake serve` double (tests/doubles/lake_serve.py) first on the
server's PATH. Each test writes the double's script before it starts a check."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from lsp_session import start_session
from pytest_lsp import ClientServerConfig, LanguageClient

from colosseum.catalog.store import read_entry
from doubles.lake_serve import alive, install, read_log

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
DOUBLE = Path(tempfile.mkdtemp(prefix="lake-double-"))
BIN = install(DOUBLE, {})
SCRIPT, LOG = DOUBLE / "lake-double-script.json", DOUBLE / "log.jsonl"
FINE = {"ExampleProject.edge_degree_bound": {"module": "ExampleProject.Basic", "axioms": ["propext"]}}
SECTION = Path("sections") / "local-structure.tex"
# the server runs the code under test: the same modules as this process (e.g. from a git worktree)
# and trusted: these tests expect lake to run (tests/reliability/test_trust.py: not before trust)
PASSED_ON = {**{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ}, "COLOSSEUM_TRUST": "1"}


def script(**fields) -> None:
    """What the double answers from now on (read when `lake serve` starts)."""
    SCRIPT.write_text(json.dumps(dict(fields, log=str(LOG))), encoding="utf-8")


async def start(lsp_client: LanguageClient, tmp_path_factory, edit=None) -> None:
    project = tmp_path_factory.mktemp("ws") / "paper"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".colosseum"))
    if edit is not None:
        edit(project)
    await start_session(lsp_client, project)


def unmark(project: Path) -> None:
    path = project / SECTION
    path.write_text(path.read_text().replace("\\lean{ExampleProject.edge_degree_bound}\\leanok",
                                             "\\lean{ExampleProject.edge_degree_bound}")
                    .replace("\\begin{proof}\n  \\leanok\n", "\\begin{proof}\n"))


INLINE = ("\n\\begin{lstlisting}[language=Lean]\nexample (k : Nat) : k * 1 = k := by\n"
          "  exact no_such_lemma k\n\\end{lstlisting}\n")


def add_inline(project: Path) -> None:
    path = project / SECTION
    path.write_text(path.read_text().replace("Combining \\cref", INLINE.lstrip("\n") + "\nCombining \\cref", 1))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                                              server_env=dict(PASSED_ON, PATH=f"{BIN}:{os.environ['PATH']}")))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await start(lsp_client, tmp_path_factory, unmark)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                                              server_env=dict(PASSED_ON, PATH=f"{BIN}:{os.environ['PATH']}")))
async def client_with_inline(lsp_client: LanguageClient, tmp_path_factory):
    await start(lsp_client, tmp_path_factory, add_inline)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                                              server_env=dict(PASSED_ON, PATH="/usr/bin:/bin", HOME=str(DOUBLE / "home"))))
async def client_without_lake(lsp_client: LanguageClient, tmp_path_factory):
    await start(lsp_client, tmp_path_factory)
    yield
    await lsp_client.shutdown_session()


def open_section(client: LanguageClient) -> tuple[str, Path]:
    path = client.project / SECTION
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="latex", version=1, text=path.read_text())))
    return path.as_uri(), path


def lean_findings(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    return [d for d in client.diagnostics.get(uri, []) if d.source == "colosseum-lean"]


async def check(client: LanguageClient, uri: str) -> dict:
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.checkLean", arguments=[uri]))


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.split("\n")
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        line = lines[edit.range.start.line]
        lines[edit.range.start.line] = line[:edit.range.start.character] + edit.new_text + line[edit.range.end.character:]
    return "\n".join(lines)


async def test_a_passing_check_offers_leanok_as_a_versioned_edit(client: LanguageClient):
    script(declarations=FINE)
    uri, path = open_section(client)
    result = await check(client, uri)
    assert result["status"] == "done" and result["formal"] == 1 and result["files"]["checked"] == 2
    (report,) = [r for r in client.progress_reports.values() if r and getattr(r[0], "title", "").startswith("Checking Lean")]
    assert isinstance(report[-1], types.WorkDoneProgressEnd)
    (hint,) = lean_findings(client, uri)
    assert hint.code == "colosseum/lean-checked" and hint.severity == types.DiagnosticSeverity.Hint
    text = path.read_text()
    assert text.split("\n")[hint.range.start.line].strip() == "\\lean{ExampleProject.edge_degree_bound}"
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=hint.range,
        context=types.CodeActionContext(diagnostics=[hint])))
    (add,) = [a for a in actions if isinstance(a, types.CodeAction) and a.title.startswith("Add \\leanok")]
    (change,) = add.edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == 1
    edited = apply_edits(text, change.edits)
    assert "\\lean{ExampleProject.edge_degree_bound}\\leanok\n" in edited and "\\begin{proof}\\leanok\n" in edited
    (entry_file,) = (client.project / "knowledge").glob("lean-check-of-*.md")
    entry, problems = read_entry(entry_file)
    assert problems == [] and entry.data["evidence"][0]["type"] == "formal"


async def test_a_failing_leanok_is_an_error_and_inline_lean_lands_on_its_line(client_with_inline: LanguageClient):
    client = client_with_inline
    script(declarations={"ExampleProject.edge_degree_bound": {"module": "ExampleProject.Basic",
                                                              "axioms": ["Classical.choice", "Lean.ofReduceBool"]}},
           rules=[{"contains": "no_such_lemma", "severity": 1, "message": "unknown identifier 'no_such_lemma'"}])
    uri, path = open_section(client)
    result = await check(client, uri)
    # the statement is formalized, the proof (marked \leanok) rests on a non-standard axiom
    assert result["statement"] == 1 and result["failed"] == 0 and result["files"]["checked"] == 2
    lines = path.read_text().split("\n")
    by_code = {d.code: d for d in lean_findings(client, uri)}
    failed = by_code["colosseum/lean-check-failed"]
    assert failed.severity == types.DiagnosticSeverity.Error and "Lean.ofReduceBool" in failed.message
    assert lines[failed.range.start.line][failed.range.start.character:failed.range.end.character] == "\\leanok"
    inline = by_code["colosseum/lean-inline"]
    assert lines[inline.range.start.line].strip() == "exact no_such_lemma k"
    assert lines[inline.range.start.line][inline.range.start.character:inline.range.end.character] == "no_such_lemma"
    assert list((client.project / "knowledge").glob("lean-check-of-*.md")) == []


async def test_cancelling_the_progress_stops_lake_serve(client: LanguageClient):
    LOG.unlink(missing_ok=True)
    script(declarations=FINE, modules={"ExampleProject.Basic": {"hang": True}})
    uri, _ = open_section(client)
    running = asyncio.ensure_future(check(client, uri))
    token = None
    for _ in range(600):  # until the check is under way and the double holds the file (bounded)
        tokens = [t for t, r in client.progress_reports.items() if r and getattr(r[0], "title", "").startswith("Checking")]
        if tokens and any(e.get("method") == "textDocument/didOpen" for e in read_log(LOG)):
            token = tokens[0]
            break
        await asyncio.sleep(0.05)
    assert token is not None
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(running, 60)
    assert result["status"] == "cancelled"
    (start,) = [e for e in read_log(LOG) if e.get("event") == "start"]
    assert not alive(start["pid"])
    assert isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd)


async def test_saving_checks_again_in_the_background(client: LanguageClient):
    script(declarations=FINE)
    uri, path = open_section(client)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    for _ in range(600):
        if lean_findings(client, uri):
            break
        await asyncio.sleep(0.05)
    (hint,) = lean_findings(client, uri)
    assert hint.code == "colosseum/lean-checked"


async def test_without_lake_the_editor_is_told_once(client_without_lake: LanguageClient):
    client = client_without_lake
    uri, _ = open_section(client)
    first = await check(client, uri)
    second = await check(client, uri)
    assert first["unchecked"] == second["unchecked"] == 1 and "elan" in first["problem"]
    told = [m for m in client.messages if "`lake` is not on PATH" in m.message]
    assert len(told) == 1 and told[0].type == types.MessageType.Warning
    assert lean_findings(client, uri) == []  # not repeated on the claim


def change(client: LanguageClient, uri: str, version: int, line: int, text: str, end_line: int | None = None) -> None:
    end = types.Position(line=end_line if end_line is not None else line, character=0)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=line, character=0), end=end), text=text)]))


async def add_leanok_actions(client: LanguageClient, uri: str, hint: types.Diagnostic) -> list[types.CodeAction]:
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=hint.range,
        context=types.CodeActionContext(diagnostics=[hint])))
    return [a for a in actions or [] if isinstance(a, types.CodeAction) and a.title.startswith("Add \\leanok")]


async def test_after_an_edit_the_quick_fix_targets_its_claim_where_it_is_now(client: LanguageClient):
    """The hint was placed before the author inserted a lemma above it: its position is stale, and
    at that position is now another claim. The fix still edits the claim Lean checked, at its
    place in the current text, as an edit of the current version; the findings are placed again."""
    script(declarations=FINE)
    uri, path = open_section(client)
    await check(client, uri)
    (stale,) = lean_findings(client, uri)
    text = path.read_text()
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("\\begin{lemma}[Degree arithmetic]"))
    block = "\\begin{lemma}\\label{lem:inserted}\n  \\lean{Other.thing}\n  See \\cref{lem:not-yet}.\n\\end{lemma}\n"
    change(client, uri, 2, at, block)
    for _ in range(600):  # until the server has indexed the edit: its finding on the new \cref (bounded)
        if any("lem:not-yet" in d.message for d in client.diagnostics.get(uri, [])):
            break
        await asyncio.sleep(0.05)
    (add,) = await add_leanok_actions(client, uri, stale)
    assert "`lem:degree-arith`" in add.title
    (edit,) = add.edit.document_changes
    assert edit.text_document.version == 2
    edited = apply_edits(block.join([text.split(lines[at], 1)[0], lines[at] + text.split(lines[at], 1)[1]]),
                         edit.edits)
    assert "\\lean{ExampleProject.edge_degree_bound}\\leanok\n" in edited and "\\lean{Other.thing}\n" in edited
    for _ in range(600):  # the findings were placed again on the current text
        found = lean_findings(client, uri)
        if found and found[0].range.start.line == stale.range.start.line + 4:
            break
        await asyncio.sleep(0.05)
    (moved,) = lean_findings(client, uri)
    assert moved.range.start.line == stale.range.start.line + 4
    # the claim now names another declaration: Lean did not check that one, no edit is offered
    renamed = stale.range.start.line + 4
    change(client, uri, 3, renamed, "  \\lean{ExampleProject.edge_degree_bound_one}\\leanok\n", renamed + 1)
    for _ in range(600):
        if not lean_findings(client, uri) or lean_findings(client, uri)[0].code != "colosseum/lean-checked":
            break
        await add_leanok_actions(client, uri, moved)  # asking refreshes the findings
        await asyncio.sleep(0.05)
    assert await add_leanok_actions(client, uri, moved) == []
