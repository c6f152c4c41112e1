"""The features a LaTeX author expects from any LaTeX server (issue 17): folding ranges, workspace
symbols, document links for includes, prepareRename, and completion of environment names, file
names and citation keys. End to end over stdio, under the VS Code and the Neovim capabilities."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest_lsp
from lsp_session import SERVER, initialize_params
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from server_session import _change, _make_client, _open, _publication, _ready, _uri

from colosseum_lsp.convert import CompletionClient
from colosseum_lsp.features.completion import CompletionRequest
from colosseum_lsp.features.latex_completion import _with_end
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


EXAMPLE_ENTRY = Path(__file__).resolve().parents[1] / "example-project/knowledge/lll-symmetric-erdos-lovasz.md"


async def _complete(client: LanguageClient, name: str, line_text: str) -> types.CompletionList:
    """Completion at the end of ``line_text``, written as a new last line of the open ``name``."""
    path = client.project / name
    text = path.read_text(encoding="utf-8") + line_text + "\n"
    uri = _open(client, name)
    await _ready(client, uri)
    _change(client, uri, text)
    at = types.Position(line=text.count("\n") - 1, character=len(line_text))
    return await client.text_document_completion_async(types.CompletionParams(text_document=_doc(uri), position=at))


def _labels(answer) -> list[str]:
    return [item.label for item in answer.items]


async def test_begin_completes_the_declared_theorem_environments_then_standard_ones(client: LanguageClient):
    answer = await _complete(client, "sections/b.tex", "\\begin{")
    names = sorted(answer.items, key=lambda item: item.sort_text)
    assert [item.label for item in names[:2]] == ["lemma", "theorem"]  # what main.tex declares, first
    assert {"proof", "align*", "itemize"} <= set(_labels(answer))
    assert "conjecture" not in _labels(answer)  # known to the index, but this paper never declares it
    typed = await _complete(client, "sections/b.tex", "\\begin{lem")
    assert _labels(typed) == ["lemma"]
    text, replaced = _edit_of(typed, typed.items[0])
    assert (replaced.start.character, replaced.end.character) == (len("\\begin{"), len("\\begin{lem"))
    assert typed.items[0].insert_text_format == types.InsertTextFormat.Snippet  # both profiles take snippets
    assert _expanded(text) == "lemma}\n\t\n\\end{lemma}"


def _edit_of(answer: types.CompletionList, item: types.CompletionItem) -> tuple[str, types.Range]:
    """(the text an item inserts, the range it replaces), from its own edit or the list's default."""
    edit = item.text_edit
    if edit is None:  # the range is given once for the list (Neovim's profile supports it)
        default = answer.item_defaults.edit_range
        return item.text_edit_text or item.label, getattr(default, "replace", default)
    return edit.new_text, edit.replace if hasattr(edit, "replace") else edit.range


def _expanded(snippet: str) -> str:
    """A snippet as the editor inserts it (tab stops empty, escapes read)."""
    return re.sub(r"\\(.)", r"\1", snippet.replace("$0", ""))


async def test_begin_completion_closes_the_environment_with_its_end(client: LanguageClient):
    """Completing \\begin{theo inserts the name, the brace the editor may have typed already, and
    the matching \\end{theorem} on its own line, indented as the \\begin line."""
    answer = await _complete(client, "sections/b.tex", "  \\begin{theo}")
    # the cursor after `theo`, before the `}` the editor typed: that brace is replaced too
    uri = _uri(client, "sections/b.tex")
    line = (client.project / "sections/b.tex").read_text().count("\n")
    answer = await client.text_document_completion_async(types.CompletionParams(
        text_document=_doc(uri), position=types.Position(line=line, character=len("  \\begin{theo"))))
    item = next(i for i in answer.items if i.label == "theorem")
    text, replaced = _edit_of(answer, item)
    written = "  \\begin{theo}"
    completed = written[:replaced.start.character] + _expanded(text) + written[replaced.end.character:]
    assert completed == "  \\begin{theorem}\n  \t\n  \\end{theorem}"
    # an existing \begin being renamed: the line goes on, no second \end
    renamed = await _complete(client, "sections/b.tex", "\\begin{lem}[Title]")
    uri_line = (client.project / "sections/b.tex").read_text().count("\n")
    renamed = await client.text_document_completion_async(types.CompletionParams(
        text_document=_doc(uri), position=types.Position(line=uri_line, character=len("\\begin{lem"))))
    text, replaced = _edit_of(renamed, renamed.items[0])
    assert (text, replaced.end.character) == ("lemma", len("\\begin{lem"))


def test_begin_completion_without_snippets_inserts_plain_text():
    request = CompletionRequest("text\n\t\\begin{the", "}", (1, 11), client=CompletionClient(snippets=False))
    assert _with_end("theorem", request) == ("theorem}\n\t\n\t\\end{theorem}", False)
    assert _with_end("theorem", replace(request, client=CompletionClient(snippets=True))) \
        == ("theorem\\}\n\t\t$0\n\t\\\\end{theorem\\}", True)


async def test_input_completes_project_files_relative_to_the_root(client: LanguageClient, project):
    (project / "sections/deep").mkdir()
    (project / "sections/deep/c.tex").write_text("C.\n")
    answer = await _complete(client, "main.tex", "\\input{sec")
    assert sorted(_labels(answer)) == ["sections/a", "sections/b", "sections/deep/c"]
    everything = await _complete(client, "main.tex", "\\include{")
    assert "main" not in _labels(everything)  # not the document itself
    assert not any(".." in name or "other" in name for name in _labels(everything))  # never outside


async def test_cite_completes_keys_cited_in_the_project_and_the_catalogs(client: LanguageClient, project):
    (project / "knowledge").mkdir()
    shutil.copy(EXAMPLE_ENTRY, project / "knowledge" / EXAMPLE_ENTRY.name)
    (project / "sections/a.tex").write_text((project / "sections/a.tex").read_text()
                                            + "See \\cite[p.~3]{knuth84, lamport94}.\n% \\cite{commented}\n")
    answer = await _complete(client, "sections/b.tex", "As in \\cite{lamport94, ")
    # (the starter catalog every project reads adds its own keys)
    assert {"ErdosLovasz75", "knuth84", "lamport94"} <= set(_labels(answer))
    assert "commented" not in _labels(answer)
    typed = await _complete(client, "sections/b.tex", "As in \\citep{erdos")
    assert [(item.label, "catalog" in item.detail) for item in typed.items] == [("ErdosLovasz75", True)]


def _undefined_nowhere(params: types.PublishDiagnosticsParams) -> bool:
    return any(d.code == "colosseum/undefined-reference" and "`lem:nowhere`" in d.message for d in params.diagnostics)


def _configure(client: LanguageClient, settings: dict) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"colosseum": settings}))


async def test_ignored_diagnostics_are_not_sent_beside_another_latex_server(client: LanguageClient):
    uri = _open(client, "sections/b.tex")
    text = (client.project / "sections/b.tex").read_text() + "See \\ref{lem:nowhere}.\n"
    since = len(client.published)
    _change(client, uri, text)
    await _publication(client, uri, since, _undefined_nowhere, "the undefined reference")
    since = len(client.published)
    _configure(client, {"ignoredDiagnostics": ["colosseum/undefined-reference"]})
    quiet = await _publication(client, uri, since, lambda p: not _undefined_nowhere(p), "the finding withdrawn")
    assert all(d.code != "colosseum/undefined-reference" for d in quiet.diagnostics)
    since = len(client.published)
    _configure(client, {"ignoredDiagnostics": None})  # unset: every finding again
    await _publication(client, uri, since, _undefined_nowhere, "the undefined reference back")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=_make_client))
async def bare(lsp_client: LanguageClient):
    yield


async def test_the_initialize_result_advertises_the_features(bare: LanguageClient, project):
    result = await bare.initialize_session(initialize_params(project, client_capabilities("visual-studio-code")))
    caps = result.capabilities
    assert caps.folding_range_provider and caps.workspace_symbol_provider and caps.document_link_provider
    assert caps.rename_provider.prepare_provider is True
    assert {"{", ",", "/"} <= set(caps.completion_provider.trigger_characters)
    await bare.shutdown_session()
