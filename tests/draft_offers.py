"""What a client does with a draft offer, for the server tests: ask for the code actions on a
claim, pick the "Insert draft …" ones, and apply one edit to a text (as an editor would)."""

from __future__ import annotations

from lsprotocol import types

DRAFT_TITLE = "Insert draft "


async def code_actions(client, params: types.CodeActionParams) -> list:
    """The code actions as the server sent them, each a CodeAction or a Command. (lsprotocol's
    client reads a CodeAction that carries both an edit and a command as a bare Command, dropping
    the edit: the union is ambiguous to it. VS Code and Neovim tell them apart by ``command``
    being a string, and so does this.)"""
    protocol = client.protocol
    original = protocol.get_result_type
    protocol.get_result_type = lambda method: None if method == types.TEXT_DOCUMENT_CODE_ACTION else original(method)
    try:
        raw = await protocol.send_request_async(types.TEXT_DOCUMENT_CODE_ACTION, params)
    finally:
        del protocol.get_result_type  # the class's own again
    return [protocol._converter.structure(item, types.Command if isinstance(item.get("command"), str)
                                          else types.CodeAction) for item in raw or []]


async def draft_offers(client, uri: str, line: int, character: int = 0) -> list[types.CodeAction]:
    """The "Insert draft …" code actions at a position (a claim's first line)."""
    at = types.Position(line=line, character=character)
    actions = await code_actions(client, types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=at, end=at),
        context=types.CodeActionContext(diagnostics=[])))
    return [a for a in actions if isinstance(a, types.CodeAction) and a.title.startswith(DRAFT_TITLE)]


def text_edits(edit: types.WorkspaceEdit, uri: str) -> list:
    """The text edits of ``edit`` for ``uri`` (plain or annotated)."""
    return [e for change in edit.document_changes or [] if isinstance(change, types.TextDocumentEdit)
            and change.text_document.uri == uri for e in change.edits]


def _offset(text: str, pos: types.Position) -> int:
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:pos.line]) + pos.character  # ASCII test texts


def applied_to(text: str, edits: list) -> str:
    """``text`` with ``edits`` applied, last first (as an editor applies one edit's changes)."""
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:_offset(text, e.range.start)] + e.new_text + text[_offset(text, e.range.end):]
    return text
