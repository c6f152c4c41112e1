"""The features a LaTeX author expects from any LaTeX server (issue 17): folding ranges, workspace
symbols, document links for includes, prepareRename, and completion of environment names, file
names and citation keys. End to end over stdio, under the VS Code and the Neovim capabilities."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient
from server_session import _open, _ready
from server_session import client, project  # noqa: F401 - fixtures, requested by name


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def test_folding_ranges_cover_sections_claims_and_proofs(client: LanguageClient):
    uri = _open(client, "sections/a.tex")
    await _ready(client, uri)
    ranges = await client.text_document_folding_range_async(types.FoldingRangeParams(text_document=_doc(uri)))
    spans = {(r.start_line, r.end_line) for r in ranges}
    # the section to the end of its file; the lemma; the theorem; the theorem's proof (the lemma's
    # proof sits on one line: nothing to fold)
    assert spans == {(0, 15), (2, 5), (7, 10), (11, 13)}, spans


async def test_workspace_symbols_find_claims_by_label_or_title(client: LanguageClient):
    await _ready(client, _open(client, "main.tex"))
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="alpha"))
    assert [s.name for s in found] == ["lem:alpha (Alpha)"]
    assert found[0].location.uri == (client.project / "sections/a.tex").as_uri()
    assert found[0].location.range.start.line == 2
    assert found[0].kind == types.SymbolKind.Function
    by_label = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="thm:"))
    assert [s.name for s in by_label] == ["thm:beta"]
    everything = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    assert {s.name for s in everything} == {"lem:alpha (Alpha)", "thm:beta", "lem:gamma"}
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="nothing-like-it")) == []


async def test_document_links_open_the_included_files(client: LanguageClient, project):
    (project / "main.tex").write_text((project / "main.tex").read_text().replace(
        "\\input{sections/b}", "\\input{sections/b}\n% \\input{sections/a}\n\\input{missing}\n\\input{../../outside/other}"))
    uri = _open(client, "main.tex")
    await _ready(client, uri)
    links = await client.text_document_document_link_async(types.DocumentLinkParams(text_document=_doc(uri)))
    assert [(link.range.start.line, link.range.start.character, link.range.end.character, link.target)
            for link in links] == [
        (5, 7, 17, (project / "sections/a.tex").as_uri()),
        (6, 7, 17, (project / "sections/b.tex").as_uri()),
    ]  # not the commented one, not a missing file, never a file outside the project


async def test_prepare_rename_answers_the_label_under_the_cursor(client: LanguageClient):
    uri = _open(client, "sections/b.tex")
    await _ready(client, uri)
    at = types.Position(line=6, character=len("By \\ref{lem:ga"))
    answer = await client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=_doc(uri), position=at))
    assert answer.placeholder == "lem:gamma"
    assert (answer.range.start.line, answer.range.start.character, answer.range.end.character) == (6, 8, 17)
    nothing = await client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=_doc(uri), position=types.Position(line=6, character=0)))
    assert nothing is None
