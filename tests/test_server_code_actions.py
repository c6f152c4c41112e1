"""Code actions of the language server, end to end over stdio: the quick fix for a misspelt
reference, and marking or unmarking a claim as an obligation."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient
from server_session import _apply, _change, _codes, _find, _open, _publication, _ready, _undefined, vscode_only
from server_session import client, project  # noqa: F401 - fixtures, requested by name


@vscode_only
async def test_code_actions(client: LanguageClient):
    enc = client.encoding
    a = _open(client, "sections/a.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    await _ready(client, a)

    # a reference one letter away from an existing label: the quick fix restores the label
    mark = len(client.published)
    version = _change(client, a, (_find(text, "lem:alpha", enc, after="Beta holds by \\cref{"), "lem:alphx"))
    text = text.replace("Beta holds by \\cref{lem:alpha}", "Beta holds by \\cref{lem:alphx}")
    published = await _publication(client, a, mark, lambda p: _undefined(p, "lem:alphx"), "lem:alphx undefined")
    [diag] = _undefined(published, "lem:alphx")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=a), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    # actions that carry only a command (Add to catalog) come back as Command from lsprotocol's client
    fixes = [x for x in actions or [] if isinstance(x, types.CodeAction) and x.kind == types.CodeActionKind.QuickFix]
    assert len(fixes) == 1, [x.title for x in actions or []]
    fix = fixes[0]
    assert fix.is_preferred and list(fix.diagnostics) == [diag]
    [change] = fix.edit.document_changes
    assert change.text_document.uri == a and change.text_document.version == version
    fixed = _apply(text, change.edits, enc)
    assert fixed == text.replace("lem:alphx", "lem:alpha")

    # apply it: the diagnostic goes away
    mark = len(client.published)
    version = _change(client, a, *[(e.range, e.new_text) for e in change.edits])
    published = await _publication(client, a, mark, lambda p: p.version == version, "the fixed file")
    assert len(published.diagnostics) == 0
    text = fixed

    # "Mark as obligation" on the lemma (its \label on the next line) and on the indented theorem
    for claim, inside in (("lem:alpha", "Alpha holds."), ("thm:beta", "Beta holds by")):
        cursor = _find(text, inside, enc).start
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=a), range=types.Range(start=cursor, end=cursor),
            context=types.CodeActionContext(diagnostics=[])))
        marks = [x for x in actions or [] if x.title.startswith("Mark") and claim in x.title]
        assert len(marks) == 1, [x.title for x in actions or []]
        [change] = marks[0].edit.document_changes
        assert change.text_document.uri == a and change.text_document.version == version
        marked = _apply(text, change.edits, enc).split("\n")
        begin = next(i for i, line in enumerate(marked) if inside in line)
        while "\\begin{" not in marked[begin]:
            begin -= 1
        assert marked[begin - 1].strip() == "% colosseum: obligation", marked[begin - 2:begin + 1]
        indent = marked[begin][: len(marked[begin]) - len(marked[begin].lstrip())]
        assert marked[begin - 1].startswith(indent + "%")
        assert len(marked) == len(text.split("\n")) + 1

    # applied, with the lemma's proof taken out, the lemma is an open obligation: the theorem
    # that uses it is now conditional, and the lemma's code action offers to unmark it
    mark = len(client.published)
    cursor = _find(text, "Alpha holds.", enc).start
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=a), range=types.Range(start=cursor, end=cursor),
        context=types.CodeActionContext(diagnostics=[])))
    [change] = next(x for x in actions if x.title.startswith("Mark")).edit.document_changes
    proof = "\\begin{proof}Clear.\\end{proof}"
    text = _apply(text, change.edits, enc).replace(proof, "", 1)
    fixed = fixed.replace(proof, "", 1)
    version = _change(client, a, text)
    await _publication(client, a, mark, lambda p: p.version == version and _codes(
        p, "colosseum/depends-on-open-obligation"), "the theorem to depend on an open obligation")
    cursor = _find(text, "Alpha holds.", enc).start
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=a), range=types.Range(start=cursor, end=cursor),
        context=types.CodeActionContext(diagnostics=[])))
    unmark = [x for x in actions or [] if x.title.startswith("Unmark")]
    assert len(unmark) == 1, [x.title for x in actions or []]
    [change] = unmark[0].edit.document_changes
    assert change.text_document.version == version
    assert _apply(text, change.edits, enc) == fixed
