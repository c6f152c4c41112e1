"""Documents the server must survive, end to end over stdio: requests for documents outside the
workspace (or not files at all), a document closed mid-request or never opened, and a file whose
closing braces are all deleted."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient
from server_session import B_TEX, _change, _find, _open, _publication, _ready, _undefined, _uri, vscode_only
from server_session import client, project  # noqa: F401 - fixtures, requested by name


@vscode_only
async def test_requests_for_documents_outside_the_workspace(client: LanguageClient):
    """A request for a document that is not in the workspace (a file that does not exist, in a
    directory with a paper of its own or in /tmp, or a non-file URI) is answered at once with
    nothing, and the server does not take the document's directory for a project of its own."""
    inside = _open(client, "sections/b.tex")
    await _ready(client, inside)
    mark = len(client.published)
    outside_dir = client.project.parent.parent / "outside"
    foreign = ["untitled:Untitled-1", (outside_dir / "missing.tex").as_uri(), "file:///tmp/elsewhere.tex"]
    assert not Path("/tmp/elsewhere.tex").exists()
    pos = types.Position(line=0, character=3)
    problems, stuck = [], False
    loop = asyncio.get_running_loop()
    for uri in foreign:
        doc = types.TextDocumentIdentifier(uri=uri)
        requests = {
            "hover": client.text_document_hover_async(types.HoverParams(text_document=doc, position=pos)),
            "definition": client.text_document_definition_async(types.DefinitionParams(
                text_document=doc, position=pos)),
            "references": client.text_document_references_async(types.ReferenceParams(
                text_document=doc, position=pos, context=types.ReferenceContext(include_declaration=True))),
            "documentSymbol": client.text_document_document_symbol_async(types.DocumentSymbolParams(
                text_document=doc)),
            "codeLens": client.text_document_code_lens_async(types.CodeLensParams(text_document=doc)),
            "codeAction": client.text_document_code_action_async(types.CodeActionParams(
                text_document=doc, range=types.Range(start=pos, end=pos),
                context=types.CodeActionContext(diagnostics=[]))),
            "prepareRename": client.text_document_prepare_rename_async(types.PrepareRenameParams(
                text_document=doc, position=pos)),
        }
        started = loop.time()
        try:
            answers = await asyncio.wait_for(asyncio.gather(*requests.values()), 5)
        except TimeoutError:
            problems.append(f"{uri}: no answer within 5 s")
            stuck = True
            break
        elapsed = loop.time() - started
        problems += [f"{name} on {uri} answered {answer!r}" for name, answer in zip(requests, answers) if answer]
        if elapsed > 2:
            problems.append(f"{uri}: the requests took {elapsed:.1f} s")

    try:
        if not stuck:
            # the untitled document can be opened, edited and closed like any other
            untitled = "untitled:Untitled-1"
            client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
                uri=untitled, language_id="latex", version=1, text="\\ref{x}\n")))
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=untitled, version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text="\\ref{y}\n")]))
            client.text_document_did_close(types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=untitled)))

        # still serving the workspace
        try:
            locations = await asyncio.wait_for(client.text_document_definition_async(types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(uri=inside),
                position=_find(B_TEX.lstrip("\n"), "lem:gamma", client.encoding, after="By \\ref{").start)), 5)
            if not (locations and locations[0].uri == inside):
                problems.append(f"definition in the workspace afterwards: {locations!r}")
        except TimeoutError:
            problems.append("definition in the workspace afterwards: no answer within 5 s")

        # nothing published for files that are not in the workspace
        await asyncio.sleep(0.3)
        strangers = sorted({p.uri for p in client.published[mark:] if not p.uri.startswith(client.project.as_uri())})
        if strangers:
            problems.append(f"diagnostics published for files outside the workspace: {strangers}")
    finally:
        if stuck:  # do not let the teardown wait for whatever the server is busy with
            client.error = RuntimeError("the server stopped answering; killed by the test")
            client._server.kill()
    assert not problems, "\n".join(problems)


@vscode_only
async def test_document_closed_mid_request(client: LanguageClient):
    enc = client.encoding
    a = _open(client, "sections/a.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    await _ready(client, a)
    mark = len(client.published)
    _change(client, a, (_find(text, "lem:alpha", enc, after="Beta holds by \\cref{"), "lem:unsaved"))
    await _publication(client, a, mark, lambda p: _undefined(p, "lem:unsaved"), "the unsaved edit's diagnostic")

    # hover and didClose back to back: the hover gets an answer, not an error
    mark = len(client.published)
    pos = _find(text, "lem:alpha", enc, after="\\uses{").start
    hover = asyncio.ensure_future(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=a), position=pos)))
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=a)))
    answer = await asyncio.wait_for(hover, 10)
    assert answer is None or "lem:alpha" in str(answer.contents)

    # closed without saving: the disk's text is back, and the unsaved edit's finding goes away
    published = await _publication(client, a, mark, lambda p: not _undefined(p, "lem:unsaved"),
                                   "the diagnostics of the text on disk")
    assert len(published.diagnostics) == 0 and published.version is None

    # a change and a close for a document that is not open (a client bug) do not stop the server
    b = _uri(client, "sections/b.tex")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=b, version=9),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            text="% x\n")]))
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=b)))
    # nor does a change whose range lies past the end of the document
    _open(client, "sections/b.tex")
    far = types.Position(line=10_000, character=10_000)
    _change(client, b, (types.Range(start=far, end=far), "\\ref{lem:far}\n"))
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=a), position=pos)), 10)
    assert hover is not None and "lem:alpha" in str(hover.contents)


@vscode_only
async def test_every_closing_brace_deleted(client: LanguageClient):
    a, b = _open(client, "sections/a.tex"), _open(client, "sections/b.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    await _ready(client, a)
    mark = len(client.published)
    broken = text.replace("}", "")
    version = _change(client, a, broken)
    structural = ("colosseum/unbalanced-brace", "colosseum/unterminated-environment")
    published = await _publication(client, a, mark, lambda p: p.version == version and any(
        d.code in structural for d in p.diagnostics), "brace or environment diagnostics")
    last_line = broken.count("\n")
    for diag in published.diagnostics:
        assert 0 <= diag.range.start.line <= diag.range.end.line <= last_line, diag

    # another file is still served: definition and hover in b.tex
    b_text = B_TEX.lstrip("\n")
    locations = await asyncio.wait_for(client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=b),
        position=_find(b_text, "lem:gamma", client.encoding, after="By \\ref{").start)), 10)
    assert locations and len(locations) == 1 and locations[0].uri == b
    assert locations[0].range == _find(b_text, "lem:gamma", client.encoding)

    # and so is the broken file itself, and the partial change that repairs it
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=a)))
    assert symbols is not None
    mark = len(client.published)
    version = _change(client, a, text)
    published = await _publication(client, a, mark, lambda p: p.version == version, "the repaired file")
    assert len(published.diagnostics) == 0
