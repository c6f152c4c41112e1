"""End to end over stdio with pytest-lsp, under the VS Code and the Neovim client capabilities."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("ws") / "example-project"
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns(".colosseum"))
    return target


@pytest_lsp.fixture(
    # no model API in these tests, whatever the machine has configured
    config=ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                              server_env={k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}),
    params=["visual-studio-code", "neovim"],
)
async def client(request, lsp_client: LanguageClient, project: Path):
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        lsp_client.registrations = [r.method for r in params.registrations]

    params = types.InitializeParams(
        capabilities=client_capabilities(request.param),
        root_uri=project.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="example")],
    )
    await lsp_client.initialize_session(params)
    lsp_client.project = project
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, path: Path) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="latex", version=1, text=path.read_text())))
    return uri


def _position_of(path: Path, needle: str, offset: int = 0) -> types.Position:
    for number, line in enumerate(path.read_text().splitlines()):
        col = line.find(needle)
        if col != -1:
            return types.Position(line=number, character=col + offset)
    raise AssertionError(f"{needle!r} not in {path}")


async def _diagnostics_for(client: LanguageClient, uri: str, code: str, timeout: float = 30.0):
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        found = [d for d in client.diagnostics.get(uri, []) if d.code == code]
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"no {code} diagnostics for {uri}: {client.diagnostics.get(uri)}")


async def test_diagnostics_definition_references_hover(client: LanguageClient):
    main_result = client.project / "sections" / "main-result.tex"
    uri = _open(client, main_result)
    found = await _diagnostics_for(client, uri, "colosseum/depends-on-open-obligation")
    # the three conditional results of the paper, each naming the open obligation it rests on
    conditional = sorted((d.range.start.line + 1, d.message.split("`")[1], d.message.split("`")[3])
                         for d in found if d.code == "colosseum/depends-on-open-obligation")
    assert conditional == [(19, "thm:main", "lem:resampling"), (58, "cor:simple", "lem:resampling"),
                           (77, "cor:regular", "lem:regular-numeric")]
    assert all(d.source == "colosseum" for d in found)

    pos = _position_of(main_result, "\\cref{lem:resampling}", len("\\cref{") + 2)
    locations = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos))
    assert locations and len(locations) == 1
    target = Path(locations[0].uri.removeprefix("file://"))
    line = target.read_text().splitlines()[locations[0].range.start.line]
    assert "\\label{lem:resampling}" in line

    refs = await client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos,
        context=types.ReferenceContext(include_declaration=False)))
    # every use of lem:resampling in example-project, read from its files: a \\uses and a \\cref in
    # the main result's proof, and a \\cref in the discussion
    expected = set()
    for name, line in (("sections/main-result.tex", 35), ("sections/main-result.tex", 48),
                       ("sections/discussion.tex", 13)):
        text = (client.project / name).read_text().splitlines()[line]
        col = text.index("lem:resampling")
        expected.add(((client.project / name).as_uri(), line, col, col + len("lem:resampling")))
    found = {(r.uri, r.range.start.line, r.range.start.character, r.range.end.character) for r in refs}
    assert found == expected and len(refs) == 3

    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos))
    value = hover.contents.value
    assert value.startswith("**Lemma** `lem:resampling` — Expected number of resamplings\n")
    assert "status: **obligation**" in value
    # the statement as text: no title, \\label or \\obligation; a \\cref names the claim it refers to
    assert "Let $k \\ge 2$ and $\\Delta \\ge 1$ be integers" in value
    assert "the algorithm of Theorem thm:moser-tardos, run with the variables" in value
    assert "<ref>" not in value and "\\label" not in value and "\\obligation" not in value
    assert "[Expected number of resamplings]" not in value

    # a titled claim with citations: title and statement as text, citations as [key]
    prelim = client.project / "sections" / "preliminaries.tex"
    prelim_uri = _open(client, prelim)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=prelim_uri),
        position=_position_of(prelim, "\\label{thm:lll}", len("\\label{") + 2)))
    value = hover.contents.value
    assert value.startswith("**Theorem** `thm:lll` — Lovász Local Lemma, symmetric form [ErdosLovasz75, Spencer77]")
    assert "dependency graph (Definition def:dependency) of" in value
    assert "<cit.>" not in value and "<ref>" not in value and "\\'" not in value


async def test_symbols_lenses_completion_rename(client: LanguageClient):
    main_result = client.project / "sections" / "main-result.tex"
    uri = _open(client, main_result)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    names = []

    def walk(items):
        for item in items:
            names.append((item.name, item.detail))
            walk(item.children or [])
    walk(symbols)
    assert any("thm:main" in name and "conditional" in (detail or "") for name, detail in names)

    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert any("used by" in lens.command.title for lens in lenses)

    completion_line = "\\cref{lem:res"
    edited = main_result.read_text() + "\n" + completion_line + "\n"
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)]))
    line_no = len(edited.splitlines()) - 1
    items = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line_no, character=len(completion_line))))
    items = items.items if hasattr(items, "items") else items
    assert "lem:resampling" in [i.label for i in items]
    # the documentation is the statement's first line, not its title and \\label
    resampling = next(i for i in items if i.label == "lem:resampling")
    assert resampling.documentation.startswith(
        "Let $k \\ge 2$ and $\\Delta \\ge 1$ be integers, and let $H=(V,E)$ be a $k$-uniform hypergraph\n")

    # on the continuation line of a \\uses list begun on an earlier line
    continued = ["\\uses{lem:mono-prob,", "  thm:ll"]
    edited += "\n".join(continued) + "\n"
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)]))
    items = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=len(edited.splitlines()) - 1, character=len(continued[1]))))
    assert items is not None and "thm:lll" in [i.label for i in items.items]

    pos = _position_of(main_result, "\\label{thm:main}", len("\\label{") + 1)
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos, new_name="thm:main-result"))
    edited = sorted((change.text_document.uri.rsplit("/", 1)[1], e.range.start.line + 1)
                    for change in edit.document_changes for e in change.edits)
    # the \label and every \cref and \uses of it, across the paper's files (read from the sources)
    assert edited == [("codegree.tex", 5), ("discussion.tex", 14), ("introduction.tex", 27),
                      ("main-result.tex", 19), ("main-result.tex", 64), ("main-result.tex", 66),
                      ("main-result.tex", 84), ("main-result.tex", 85),
                      ("smallest-uniformity-per-degree.md", 11)]  # and the catalog entry that links to it
    assert all(e.new_text == "thm:main-result" for change in edit.document_changes for e in change.edits)


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _apply(line: str, rng: types.Range, new_text: str) -> str:
    """``line`` with the UTF-16 columns of ``rng`` replaced by ``new_text``."""
    units = line.encode("utf-16-le")
    return (units[:2 * rng.start.character].decode("utf-16-le") + new_text
            + units[2 * rng.end.character:].decode("utf-16-le"))


async def test_completion_says_which_text_the_label_replaces(client: LanguageClient):
    """A label is typed with ':' and '-', which end an editor's own word: each item carries the
    range of the label typed so far (and the rest of it after the cursor) inside the braces."""
    main_result = client.project / "sections" / "main-result.tex"
    uri = _open(client, main_result)
    base = main_result.read_text()
    completion = client.capabilities.text_document.completion
    vscode = completion.completion_item.insert_replace_support
    defaults = completion.completion_list is not None and "editRange" in completion.completion_list.item_defaults
    cases = [  # (lines added at the end, cursor line among them, cursor column, the line once completed)
        (["\U0001d53d sets \\cref{thm:main, lem:degree-ar}"], 0, "\U0001d53d sets \\cref{thm:main, lem:degree-ar",
         "\U0001d53d sets \\cref{thm:main, lem:degree-arith}"),
        (["See \\cref{lem:degree-arXY} too."], 0, "See \\cref{lem:degree-ar", "See \\cref{lem:degree-arith} too."),
        (["\\uses{lem:mono-prob,", "  lem:edge-de"], 1, "  lem:edge-de", "  lem:edge-degree"),
    ]
    for version, (added, at, before_cursor, completed) in enumerate(cases, start=2):
        text = base + "\n" + "\n".join(added) + "\n"
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        line_no = len(base.splitlines()) + 1 + at
        line = added[at]
        cursor = types.Position(line=line_no, character=_utf16(before_cursor))
        result = await client.text_document_completion_async(types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=cursor))
        wanted = completed.split("{")[-1].split(",")[-1].split("}")[0].strip()
        item = next(i for i in result.items if i.label == wanted)
        start = types.Position(line=line_no, character=_utf16(before_cursor) - _utf16(before_cursor.split("{")[-1]
                                                                                     .split(",")[-1].lstrip()))
        word_end = types.Position(line=line_no, character=cursor.character + (2 if "arXY" in line else 0))
        if vscode:  # an InsertReplaceEdit: typing goes to the cursor, replacing to the label's end
            assert isinstance(item.text_edit, types.InsertReplaceEdit), item
            assert item.text_edit.insert == types.Range(start=start, end=cursor)
            assert item.text_edit.replace == types.Range(start=start, end=word_end)
            replaced = item.text_edit.replace
        elif defaults:  # one range for the whole list, the items carry no edit (lighter answers)
            assert item.text_edit is None and result.item_defaults.edit_range == types.Range(start=start, end=word_end)
            replaced = result.item_defaults.edit_range
        else:  # older Neovim: a TextEdit over the whole label, as texlab sends
            assert isinstance(item.text_edit, types.TextEdit), item
            assert item.text_edit.range == types.Range(start=start, end=word_end)
            replaced = item.text_edit.range
        new_text = item.text_edit.new_text if item.text_edit else item.text_edit_text or item.label
        assert new_text == wanted and item.filter_text is None
        assert _apply(line, replaced, new_text) == completed, (line, item.text_edit)


async def test_commands(client: LanguageClient):
    uri = _open(client, client.project / "main.tex")
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.showDependencyGraph", arguments=[uri]))
    page = Path(result["path"]).read_text()
    assert "<svg" in page and "thm:main" in page
    assert '<script id="dagre-lib">/*! dagre ' in page  # the same page as `dag --format html`: dagre inlined
    assert (Path(result["path"]).parent / ".gitignore").read_text().rstrip().endswith("*")  # the state folder's
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.reindex", arguments=[uri]))
    assert result["claims"] >= 10
    # the global review is registered; without an API key it says what is missing
    with pytest.raises(Exception, match="no API key"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="colosseum.globalReview", arguments=[uri]))


async def test_hover_shows_the_catalog_behind_a_cite_and_a_claims_failed_routes(client: LanguageClient):
    prelim = client.project / "sections" / "preliminaries.tex"
    uri = _open(client, prelim)
    pos = _position_of(prelim, "\\cite{ErdosLovasz75", len("\\cite{") + 3)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos))
    assert hover is not None and "lll-symmetric-erdos-lovasz" in hover.contents.value
    assert "Hypotheses" in hover.contents.value
    main_result = client.project / "sections" / "main-result.tex"
    uri = _open(client, main_result)
    pos = _position_of(main_result, "\\label{lem:resampling}", len("\\label{") + 2)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos))
    assert "failed-route `resampling-by-direct-count`" in hover.contents.value
