"""Rename through the project's own wrappers (audit D2): every place is edited, in the argument that
holds the varying part of the name, or the rename is refused naming the places it cannot edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from server_session import _apply, _find, _open, _write, client, vscode_only  # noqa: F401 (fixtures)

from colosseum.index import ProjectIndex

MAIN = r"""
\documentclass{article}
\usepackage{amsthm}
\newtheorem{lemma}{Lemma}
\newcommand{\Lem}[1]{Lemma~\ref{lem:#1}}
\newcommand{\lemlabel}[1]{\label{lem:#1}}
\newcommand{\SeeG}{see~\ref{lem:g}}
\begin{document}
\begin{lemma}\lemlabel{a} A \end{lemma}
\begin{lemma}\label{lem:b} B uses \Lem{a} and \cref{lem:a}. \end{lemma}
\begin{lemma}\lemlabel{e} E, with \Lem{b}. \end{lemma}
\begin{lemma}\label{lem:f} F after \Lem{e}. \end{lemma}
\begin{lemma}\lemlabel{g} G \end{lemma}
\begin{lemma}\label{lem:h} H after \SeeG and \Lem{g}. \end{lemma}
\end{document}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _write(tmp_path / "ws" / "paper", {"colosseum.toml": 'root = "main.tex"\n', "main.tex": MAIN})


def _position(client, needle: str, offset: int) -> types.Position:
    start = _find((client.project / "main.tex").read_text(), needle, types.PositionEncodingKind.Utf16).start
    return types.Position(line=start.line, character=start.character + offset)


def _apply_all(client, edit: types.WorkspaceEdit) -> str:
    main = client.project / "main.tex"
    edits = [e for change in edit.document_changes for e in change.edits]
    assert {change.text_document.uri for change in edit.document_changes} == {main.as_uri()}
    return _apply(main.read_text(), edits)


def _undefined_and_labels(project: Path, text: str) -> tuple[list[str], set[str]]:
    (project / "main.tex").write_text(text)
    index = ProjectIndex.open(str(project))
    undefined = [d.message for d in index.diagnostics() if d.code == "colosseum/undefined-reference"]
    return undefined, set(index.labels)


@vscode_only
async def test_rename_edits_the_argument_of_every_wrapper(client):
    uri = _open(client, "main.tex")
    pos = _position(client, r"\cref{lem:a}", len(r"\cref{") + 2)
    prepared = await client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos))
    assert prepared.placeholder == "lem:a"
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos, new_name="lem:alpha"))
    after = _apply_all(client, edit)
    assert r"\lemlabel{alpha}" in after and r"\Lem{alpha}" in after and r"\cref{lem:alpha}" in after
    assert r"\lemlabel{e}" in after and r"\Lem{b}" in after and r"\Lem{e}" in after  # others untouched
    undefined, labels = _undefined_and_labels(client.project, after)
    assert undefined == [] and "lem:alpha" in labels and "lem:a" not in labels


@vscode_only
async def test_rename_is_refused_when_a_place_cannot_be_edited(client):
    uri = _open(client, "main.tex")
    # the new name drops the `lem:` that \lemlabel and \Lem add
    pos = _position(client, r"\cref{lem:a}", len(r"\cref{") + 2)
    with pytest.raises(Exception, match=r"drops the text.*\\lemlabel` at main.tex:8.*\\Lem` at main.tex:9"):
        await client.text_document_rename_async(types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=pos, new_name="alpha"))
    # \SeeG makes `lem:g` from its body alone: there is no argument to edit, prepareRename says so
    pos = _position(client, r"\Lem{g}", len(r"\Lem{"))
    with pytest.raises(Exception, match=r"not written out.*\\SeeG` at main.tex:13"):
        await client.text_document_prepare_rename_async(types.PrepareRenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=pos))
    with pytest.raises(Exception, match=r"\\SeeG` at main.tex:13"):
        await client.text_document_rename_async(types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=pos, new_name="lem:gamma"))


@vscode_only
async def test_a_call_whose_argument_occurs_twice_in_the_name(client):
    # `e` occurs twice in `lem:e`: only the reading after `lem:` makes `lem:epsilon`
    uri = _open(client, "main.tex")
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=_position(client, r"\Lem{e}", len(r"\Lem{")),
        new_name="lem:epsilon"))
    after = _apply_all(client, edit)
    assert r"\lemlabel{epsilon}" in after and r"\Lem{epsilon}" in after
    undefined, labels = _undefined_and_labels(client.project, after)
    assert undefined == [] and "lem:epsilon" in labels


def test_the_other_calls_of_a_wrapper_settle_which_part_of_the_name_an_argument_is():
    from colosseum_lsp.features.wrapper_arguments import readings, settled

    own = readings(r"\lemlabel{e}", "lem:e")
    assert {(r.prefix, r.suffix) for r in own} == {("l", "m:e"), ("lem:", "")}
    others = [readings(r"\lemlabel{a}", "lem:a"), readings(r"\lemlabel{m}", "lem:m")]
    assert [(r.prefix, r.suffix, r.new_argument("lem:em:e")) for r in settled(own, others)] == [("lem:", "", "em:e")]
    # a two-argument wrapper: the calls agree on which argument varies
    two = readings(r"\Ref{lem}{a}", "lem:a")
    assert [r.argument for r in settled(two, [readings(r"\Ref{lem}{b}", "lem:b")])] == [1]
    # an argument that is LaTeX, or no argument at all: nothing to edit
    assert readings(r"\SeeG", "lem:g") == [] and readings(r"\Lem{\x}", "lem:\\x") == []


ENTRY = """---
id: a-by-induction
kind: failed-route
title: 'Induction on lem:a fails (lem:ab is a different lemma)'
provenance: {author: A. Author, run: null, model: null, date: 2026-12-03}
links:
  labels: [lem:b, lem:a]
  entries: []
status: active
tags: [induction]
target:
  label: lem:a
approach: Induct on the size.
failure_point: The step for lem:a. Needs lem:a.x, which is not lem:a.
---
Notes on \\cref{lem:a}.
"""


@vscode_only
async def test_rename_carries_the_catalog_entries_about_the_label(client):
    entry = client.project / "knowledge" / "a-by-induction.md"
    entry.parent.mkdir()
    entry.write_text(ENTRY)
    other = ENTRY.replace("a-by-induction", "b-only").replace("lem:b, lem:a]", "lem:b]").replace("label: lem:a", "label: lem:b")
    (entry.parent / "b-only.md").write_text(other)
    uri = _open(client, "main.tex")
    pos = _position(client, r"\cref{lem:a}", len(r"\cref{") + 2)
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos, new_name="lem:alpha"))
    (change,) = [c for c in edit.document_changes if c.text_document.uri == entry.as_uri()]
    after = _apply(ENTRY, change.edits)
    assert after == (ENTRY.replace("on lem:a fails", "on lem:alpha fails").replace("lem:b, lem:a]", "lem:b, lem:alpha]")
                     .replace("label: lem:a\n", "label: lem:alpha\n").replace("step for lem:a.", "step for lem:alpha.")
                     .replace("not lem:a.\n", "not lem:alpha.\n").replace("{lem:a}", "{lem:alpha}"))
    assert "lem:ab" in after and "lem:a.x" in after
    assert entry.read_text() == ENTRY  # written only when the author applies the edit
    # an entry that only mentions the label, linking to another, is not touched
    assert {c.text_document.uri for c in edit.document_changes} == {uri, entry.as_uri()}
