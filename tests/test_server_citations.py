"""Citations in the language server, end to end over stdio: an undefined \\cite key is published
with its near-miss quick fix, hover on a key shows its .bib entry, and a .bib changed on disk
(watched files, or saved in the editor) judges the citations again."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from server_session import FILES, MAIN, _apply, _codes, _find, _open, _publication, _ready, _write, vscode_only
from server_session import client  # noqa: F401 - fixture, requested by name

BIB = ("@article{knuth84, author={Donald E. Knuth}, title={Literate Programming}, journal={The Computer Journal},\n"
       "  year=1984}\n@book{lamport94, author={Leslie Lamport}, title={{LaTeX}}, year=1994}\n")
CITING = MAIN.replace("\\end{document}", "See \\cite{knuth85} and \\citep{lamport94}.\n\\bibliography{refs}\n"
                      "\\end{document}")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _write(tmp_path / "ws" / "paper", {**FILES, "main.tex": CITING, "refs.bib": BIB})


def _undefined_citations(params: types.PublishDiagnosticsParams, key: str) -> list[types.Diagnostic]:
    return [d for d in _codes(params, "colosseum/undefined-citation") if f"`{key}`" in d.message]


@vscode_only
async def test_undefined_citation_quick_fix_hover_and_bib_change(client: LanguageClient):
    enc = client.encoding
    main = _open(client, "main.tex")
    text = (client.project / "main.tex").read_text(encoding="utf-8")
    await _ready(client, main)
    published = await _publication(client, main, 0, lambda p: _undefined_citations(p, "knuth85"), "knuth85 undefined")
    [diag] = _undefined_citations(published, "knuth85")
    assert diag.severity == types.DiagnosticSeverity.Warning and "did you mean `knuth84`?" in diag.message
    assert diag.range == _find(text, "knuth85", enc)

    # the quick fix: the near miss, preferred (the only one)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=main), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    fixes = [x for x in actions or [] if isinstance(x, types.CodeAction) and x.kind == types.CodeActionKind.QuickFix]
    assert [f.title for f in fixes] == ["Change to `knuth84`"] and fixes[0].is_preferred
    [change] = fixes[0].edit.document_changes
    assert _apply(text, change.edits, enc) == text.replace("knuth85", "knuth84")

    # hover on a defined key: its entry
    at = _find(text, "lamport94", enc).start
    shown = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=main), position=at))
    assert shown is not None and "LaTeX" in shown.contents.value and "Leslie Lamport" in shown.contents.value
    assert "1994" in shown.contents.value

    # the .bib changes on disk: the key is defined now, the finding goes away (the .bib open in the
    # editor too: the server does not hold .bib documents, the disk's copy is what it reads)
    _open(client, "refs.bib")
    mark = len(client.published)
    bib = client.project / "refs.bib"
    bib.write_text(BIB + "@misc{knuth85, title={Another}}\n", encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=bib.as_uri(), type=types.FileChangeType.Changed)]))
    await _publication(client, main, mark, lambda p: not _codes(p, "colosseum/undefined-citation"),
                       "the citation defined by the changed .bib")
    # saved in the editor (a client that does not watch files): judged again too
    mark = len(client.published)
    bib.write_text(BIB, encoding="utf-8")
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=bib.as_uri())))
    await _publication(client, main, mark, lambda p: _undefined_citations(p, "knuth85"),
                       "the citation undefined again after the .bib was saved")
