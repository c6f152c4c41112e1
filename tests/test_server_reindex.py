"""Re-indexing the project from disk, end to end over stdio: files changed outside the editor
(``workspace/didChangeWatchedFiles``, or the watchdog when the client does not watch files) and the
``colosseum.reindex`` command with its work-done progress."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from server_session import B_TEX, _open, _publication, _ready, _undefined, _until, _uri, vscode_only
from server_session import client, project  # noqa: F401 - fixtures, requested by name

# --------------------------------------------------------------------------------------------------
# files changed outside the editor

@vscode_only
async def test_watched_files_notification(client: LanguageClient):
    a, b = _uri(client, "sections/a.tex"), _uri(client, "sections/b.tex")
    await _ready(client, b)
    assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations)
    _open(client, "sections/a.tex")

    # b.tex (closed) and a.tex (open in the editor: its copy wins) both change on disk
    mark = len(client.published)
    b_path, a_path = client.project / "sections/b.tex", client.project / "sections/a.tex"
    b_path.write_text(b_path.read_text() + "\\ref{lem:ondisk}\n", encoding="utf-8")
    a_path.write_text(a_path.read_text() + "\\ref{lem:ignored}\n", encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=b, type=types.FileChangeType.Changed),
        types.FileEvent(uri=a, type=types.FileChangeType.Changed)]))
    published = await _publication(client, b, mark, lambda p: _undefined(p, "lem:ondisk"),
                                   "diagnostics for the file changed on disk")
    assert published.version is None  # not open in the editor
    assert not any(_undefined(p, "lem:ignored") for p in client.published if p.uri == a)

    # a new file on disk, \input by b.tex: created, then reported
    mark = len(client.published)
    c_path = client.project / "sections/c.tex"
    c_path.write_text("\\ref{lem:inC}\n", encoding="utf-8")
    b_path.write_text(b_path.read_text() + "\\input{sections/c}\n", encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=c_path.as_uri(), type=types.FileChangeType.Created),
        types.FileEvent(uri=b, type=types.FileChangeType.Changed)]))
    await _publication(client, c_path.as_uri(), mark, lambda p: _undefined(p, "lem:inC"),
                       "diagnostics for the new file")

    # deleted: its findings go away (an empty list), b.tex reports the missing input instead
    mark = len(client.published)
    c_path.unlink()
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=c_path.as_uri(), type=types.FileChangeType.Deleted)]))
    await _publication(client, c_path.as_uri(), mark, lambda p: len(p.diagnostics) == 0,
                       "the deleted file's diagnostics cleared")


@pytest.mark.parametrize("client", ["no-watch"], indirect=True)
async def test_watchdog_without_client_watching(client: LanguageClient):
    b = _uri(client, "sections/b.tex")
    await _ready(client, b)
    assert not any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations)
    await asyncio.sleep(0.3)  # the observer thread sets its inotify watches

    mark = len(client.published)
    b_path = client.project / "sections/b.tex"
    b_path.write_text(b_path.read_text() + "\\ref{lem:watchdog}\n", encoding="utf-8")
    await _publication(client, b, mark, lambda p: _undefined(p, "lem:watchdog"),
                       "the watchdog to pick up the file written on disk", timeout=10)

    # written by another program through a rename (as many editors and git do)
    mark = len(client.published)
    tmp = b_path.with_suffix(".tex.tmp~")
    tmp.write_text(B_TEX.lstrip("\n"), encoding="utf-8")
    tmp.replace(b_path)
    await _publication(client, b, mark, lambda p: len(p.diagnostics) == 0,
                       "the watchdog to pick up a file replaced by a rename", timeout=10)

    # the project's own package: a wrapper it defines, then redefined there as plain text
    main = client.project / "main.tex"
    (client.project / "mine.sty").write_text("\\newcommand{\\wref}[1]{\\ref{#1}}\n", encoding="utf-8")
    main.write_text(main.read_text().replace("\\begin{document}", "\\usepackage{mine}\n\\begin{document}", 1),
                    encoding="utf-8")
    mark = len(client.published)
    b_path.write_text(b_path.read_text() + "\\wref{lem:wrapped}\n", encoding="utf-8")
    await _publication(client, b, mark, lambda p: _undefined(p, "lem:wrapped"),
                       "a wrapper from the project's package", timeout=10)
    mark = len(client.published)
    (client.project / "mine.sty").write_text("\\newcommand{\\wref}[1]{#1}\n", encoding="utf-8")
    await _publication(client, b, mark, lambda p: not _undefined(p, "lem:wrapped"),
                       "the watchdog to pick up the package's change", timeout=10)


# --------------------------------------------------------------------------------------------------
# work-done progress

def _progress_problems(client: LanguageClient) -> list[str]:
    problems = []
    for token, reports in client.progress_reports.items():
        kinds = [type(r).__name__ for r in reports]
        if not reports or not isinstance(reports[0], types.WorkDoneProgressBegin):
            problems.append(f"{token}: does not begin: {kinds}")
        if not reports or not isinstance(reports[-1], types.WorkDoneProgressEnd):
            problems.append(f"{token}: does not end: {kinds}")
        if sum(isinstance(r, types.WorkDoneProgressBegin) for r in reports) > 1 or \
                sum(isinstance(r, types.WorkDoneProgressEnd) for r in reports) > 1:
            problems.append(f"{token}: begins or ends twice: {kinds}")
    return problems


async def test_reindex_progress(client: LanguageClient):
    uri = _open(client, "sections/a.tex")
    result = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.reindex", arguments=[uri])), 15)
    assert result["claims"] == 3 and result["files"] == 3
    await _until(lambda: not _progress_problems(client), "every progress to end", 5)
    titles = {token: reports[0].title for token, reports in client.progress_reports.items()}
    reindex = [token for token, title in titles.items() if title.startswith("Re-indexing")]
    assert len(reindex) == 1, titles
    reports = client.progress_reports[reindex[0]]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[0].cancellable is False  # a re-index cannot be stopped halfway: no Cancel button

    # a reindex that fails (no root file there) answers an error, and its progress still ends
    empty = client.project.parent.parent / "no-paper"
    empty.mkdir()
    (empty / "notes.tex").write_text("Just notes, no \\verb|\\documentclass|.\n", encoding="utf-8")
    before = set(client.progress_reports)
    with pytest.raises(JsonRpcException):
        await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="colosseum.reindex", arguments=[(empty / "notes.tex").as_uri()])), 15)
    await _until(lambda: not _progress_problems(client), "every progress to end after a failure", 5)
    assert set(client.progress_reports) - before, "the failing index reported no progress at all"

    # a reindex from a document that is not a file (the first project) or without arguments
    for arguments in (["untitled:Untitled-1"], None):
        result = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="colosseum.reindex", arguments=arguments)), 15)
        assert result["claims"] == 3
    await _until(lambda: not _progress_problems(client), "every progress to end", 5)
