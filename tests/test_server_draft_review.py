"""A model's draft in the editor (issue 14), end to end over stdio: on a proof whose first line
carries ``% colosseum: draft <run-id>`` the server finds ``colosseum/draft-proof``, says "draft"
in the outline, the lenses and the hover, and offers "Accept draft" and "Reject draft" as code
actions: nothing is applied, and nothing is written to the catalog, until the author picks one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Union

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from server_session import _apply, _change, _codes, _find, _open, _publication, _write, vscode_only
from server_session import client  # noqa: F401 - a fixture, requested by name

RUN = "20261204-solve-lem-a"
MAIN = (
    "\\documentclass{article}\n\\newtheorem{lemma}{Lemma}\n\\newtheorem{theorem}{Theorem}\n\\begin{document}\n"
    "\\begin{lemma}\\label{lem:a}\n\\obligation A holds.\n\\end{lemma}\n"
    f"\\begin{{proof}} % colosseum: draft {RUN}\nBecause of B.\n\\end{{proof}}\n"
    "\\begin{theorem}\\label{thm:b}\nB holds.\n\\end{theorem}\n\\begin{proof}\nBy \\cref{lem:a}.\n\\end{proof}\n"
    "\\end{document}\n"
)
MARKER = f"% colosseum: draft {RUN}"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The project the ``client`` fixture opens: one paper with a draft (overrides server_session's)."""
    root = _write(tmp_path / "paper", {"colosseum.toml": 'root = "main.tex"\n', "main.tex": MAIN})
    run = root / ".colosseum" / "runs" / RUN
    run.mkdir(parents=True)
    critique = {"severity": "major", "kind": "gap", "quote": "Because of B.", "explanation": "B is not shown"}
    (run / "run.json").write_text(json.dumps({"label": "lem:a", "status": "done", "bundles": {
        "R": {"level": 1, "strategy": "from B", "critiques": [critique]}}}), encoding="utf-8")
    return root


def _read_actions_as_editors_do(client: LanguageClient) -> None:
    """lsprotocol's client reads any code action with a ``command`` as a bare Command (its edit
    lost); VS Code and Neovim tell them apart by the type of ``command`` (a string in a Command,
    an object in a CodeAction). Read them the editors' way."""
    converter = client.protocol._converter

    def structure(obj, _type):
        kind = types.Command if isinstance(obj.get("command"), str) else types.CodeAction
        return converter.structure(obj, kind)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)


def _record_applied_edits(client: LanguageClient) -> list:
    """Every workspace/applyEdit the server sends (it must send none: the author applies)."""
    applied: list = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams):
        applied.append(params)
        return types.ApplyWorkspaceEditResult(applied=False)

    return applied


async def _draft_actions(client: LanguageClient, uri: str) -> tuple[types.Diagnostic, dict[str, types.CodeAction]]:
    _read_actions_as_editors_do(client)
    published = await _publication(client, uri, 0, lambda p: _codes(p, "colosseum/draft-proof"), "the draft finding")
    [diag] = _codes(published, "colosseum/draft-proof")
    assert diag.range == _find(MAIN, MARKER, client.encoding)
    assert diag.severity == types.DiagnosticSeverity.Information and RUN in diag.message
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    offered = {a.title: a for a in actions or [] if isinstance(a, types.CodeAction) and "draft" in a.title}
    assert set(offered) == {"Accept draft", "Reject draft"}, [a.title for a in actions or []]
    return diag, offered


async def test_the_draft_is_offered_for_a_decision_and_nothing_is_applied_unasked(client: LanguageClient):
    applied = _record_applied_edits(client)
    uri = _open(client, "main.tex")
    diag, offered = await _draft_actions(client, uri)
    accept, reject = offered["Accept draft"], offered["Reject draft"]
    for action in (accept, reject):
        assert action.kind == types.CodeActionKind.QuickFix and list(action.diagnostics) == [diag]
    [change] = accept.edit.document_changes
    assert change.text_document.uri == uri
    assert _apply(MAIN, change.edits, client.encoding) == MAIN.replace(" " + MARKER, "")
    [change] = reject.edit.document_changes
    assert _apply(MAIN, change.edits, client.encoding) == MAIN.replace(f"\\begin{{proof}} {MARKER}\nBecause of B.\n"
                                                                       "\\end{proof}\n", "")
    assert (accept.command.command, reject.command.command) == ("colosseum.acceptDraft", "colosseum.rejectDraft")

    # the outline, the lenses and the hover say "draft"
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    details = {s.name: s.detail for s in symbols}
    assert "draft" in details["Lemma lem:a"] and RUN in details["Lemma lem:a"]
    assert "conditional" in details["Theorem thm:b"]
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert any("draft" in (lens.command.title if lens.command else "") for lens in lenses)
    assert not any(lens.command and lens.command.command == "colosseum.solveObligation" for lens in lenses)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=_find(MAIN, "lem:a", client.encoding,
                                                                            after="\\cref{").start))
    assert "status: **draft**" in hover.contents.value and RUN in hover.contents.value

    # asking changed nothing: no edit sent, the file and the catalog untouched
    assert not applied
    assert (client.project / "main.tex").read_text(encoding="utf-8") == MAIN
    assert not (client.project / "knowledge").exists()


@vscode_only
async def test_accepting_records_a_persons_review_once_the_author_picked_it(client: LanguageClient):
    uri = _open(client, "main.tex")
    _diag, offered = await _draft_actions(client, uri)
    accept = offered["Accept draft"]
    # the client applies the edit, then runs the command (LSP's order for an action with both)
    [change] = accept.edit.document_changes
    mark = len(client.published)
    version = _change(client, uri, *[(e.range, e.new_text) for e in change.edits])
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=accept.command.command, arguments=accept.command.arguments))
    published = await _publication(client, uri, mark, lambda p: p.version == version, "the accepted draft")
    assert not _codes(published, "colosseum/draft-proof")
    assert not _codes(published, "colosseum/depends-on-open-obligation")  # thm:b rests on a proof now
    [entry] = (client.project / "knowledge").glob("*.md")
    text = entry.read_text(encoding="utf-8")
    assert "reviewed_by: person" in text and f"run: {RUN}" in text


@vscode_only
async def test_rejecting_records_a_failed_route_with_the_runs_critiques(client: LanguageClient):
    uri = _open(client, "main.tex")
    _diag, offered = await _draft_actions(client, uri)
    reject = offered["Reject draft"]
    [change] = reject.edit.document_changes
    _change(client, uri, *[(e.range, e.new_text) for e in change.edits])
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=reject.command.command, arguments=reject.command.arguments))
    [entry] = (client.project / "knowledge").glob("*.md")
    text = entry.read_text(encoding="utf-8")
    assert "kind: failed-route" in text and "B is not shown" in text and "Because of B." in text
    assert (client.project / "main.tex").read_text(encoding="utf-8") == MAIN  # the buffer changed, not the disk
