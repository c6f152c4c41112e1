"""Engine data classes <-> LSP types. The only place that knows both."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from urllib.parse import unquote, urlparse

import attrs
from lsprotocol import types

from colosseum.core import structure

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def uri_to_path(uri: str) -> Path | None:
    """The real path of a client's URI. A URI that reaches its file or folder through a symlink is
    remembered: what the server says about it is said under the client's own spelling (an
    editor keeps the link's path; findings sent under the real one would show on no open file)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    spelled = Path(unquote(parsed.path))
    resolved = spelled.resolve()
    if resolved != spelled and spelled.is_absolute():
        _remember_spelling(resolved, spelled)
    return resolved


_URIS: dict = {}  # path -> uri: resolving a path costs system calls, and every publication asks
_MAX_URIS = 100_000
_SPELLINGS: list[tuple[str, str]] = []  # (real path, the client's spelling), longest real path first


def _remember_spelling(resolved: Path, spelled: Path) -> None:
    pair = (str(resolved), str(spelled))
    if pair not in _SPELLINGS:
        _SPELLINGS.append(pair)
        _SPELLINGS.sort(key=lambda p: -len(p[0]))
        _URIS.clear()


def _client_spelling(real: str) -> str:
    for resolved, spelled in _SPELLINGS:
        if real == resolved or real.startswith(resolved + os.sep):
            return spelled + real[len(resolved):]
    return real


def path_to_uri(path: Path) -> str:
    found = _URIS.get(path)
    if found is None:
        if len(_URIS) >= _MAX_URIS:
            _URIS.clear()
        real = str(Path(path).resolve())
        found = _URIS[path] = Path(_client_spelling(real) if _SPELLINGS else real).as_uri()
    return found


def position(pos: structure.Position) -> types.Position:
    return types.Position(line=pos.line, character=pos.character)


def range_(rng: structure.Range) -> types.Range:
    return types.Range(start=position(rng.start), end=position(rng.end))


def location(loc: structure.Location) -> types.Location:
    return types.Location(uri=path_to_uri(loc.file), range=range_(loc.range))


def engine_position(pos: types.Position) -> structure.Position:
    return structure.Position(pos.line, pos.character)


def engine_range(rng: types.Range) -> structure.Range:
    return structure.Range(engine_position(rng.start), engine_position(rng.end))


@functools.cache
def diagnostic_docs_href() -> str | None:
    """Where the diagnostic codes are explained: the README's "Diagnostic codes" table. The project
    states no web address, so the link is to the README on this machine: the copy an installed
    package carries (colosseum/data/README.md, put there by setup.py), else the repository's
    (an editable install or a checkout). None when neither is there: no link rather than a dead one."""
    import colosseum

    package = Path(colosseum.__file__).resolve().parent
    for readme in (package / "data" / "README.md", package.parent / "README.md"):
        if readme.is_file():
            return readme.as_uri() + "#diagnostic-codes"
    return None


def _code_description(code: str) -> types.CodeDescription | None:
    href = diagnostic_docs_href() if code.startswith("colosseum/") else None
    return types.CodeDescription(href=href) if href else None


def diagnostic(diag: structure.Diagnostic) -> types.Diagnostic:
    tags = [types.DiagnosticTag.Unnecessary] if diag.code.endswith("unused-label") else None
    return types.Diagnostic(
        range=range_(diag.range),
        message=diag.message,
        severity=SEVERITY[diag.severity],
        code=diag.code,
        code_description=_code_description(diag.code),
        source=diag.source,
        tags=tags,
        related_information=[
            types.DiagnosticRelatedInformation(location=location(r.location), message=r.message)
            for r in diag.related
        ] or None,
    )


def _range_json(rng: structure.Range) -> dict:
    start, end = rng
    return {"start": {"line": start[0], "character": start[1]}, "end": {"line": end[0], "character": end[1]}}


def diagnostic_json(diag: structure.Diagnostic) -> dict:
    """``diagnostic(diag)`` in its JSON form, built directly (what the protocol's serializer makes
    of it, at a fraction of the cost: a publication sends every finding of the file)."""
    out = {"range": _range_json(diag.range), "message": diag.message, "severity": SEVERITY[diag.severity].value,
           "code": diag.code, "source": diag.source}
    described = _code_description(diag.code)
    if described is not None:
        out["codeDescription"] = {"href": described.href}
    if diag.code.endswith("unused-label"):
        out["tags"] = [types.DiagnosticTag.Unnecessary.value]
    if diag.related:
        out["relatedInformation"] = [{"location": {"uri": path_to_uri(r.location.file),
                                                   "range": _range_json(r.location.range)},
                                      "message": r.message} for r in diag.related]
    return out


def utf16_to_index(line: str, units: int) -> int:
    """The string index in ``line`` of an LSP column counted in UTF-16 code units."""
    count = 0
    for i, ch in enumerate(line):
        if count >= units:
            return i
        count += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


# ---- answers to requests: the features describe them with engine values, these build them ----

def markdown_hover(value: str, rng: structure.Range | None = None) -> types.Hover:
    """Markdown to show; without ``rng`` the client decides what the hover covers."""
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value),
                       range=range_(rng) if rng is not None else None)


SYMBOL_KIND = {"section": types.SymbolKind.Namespace, "definition": types.SymbolKind.Interface,
               "claim": types.SymbolKind.Function}


def document_symbol(name: str, detail: str, kind: str, rng: structure.Range, selection: structure.Range,
                    children: list | None = None) -> types.DocumentSymbol:
    """An outline entry; ``kind``: "section", "definition" or "claim"."""
    return types.DocumentSymbol(name=name, detail=detail, kind=SYMBOL_KIND[kind], range=range_(rng),
                                selection_range=range_(selection), children=children)


def code_lens(rng: structure.Range, title: str, command: str, arguments: list) -> types.CodeLens:
    return types.CodeLens(range=range_(rng), command=command_call(title, command, arguments))


def command_call(title: str, command: str, arguments: list) -> types.Command:
    """A command the client runs (on the server) when the author picks what carries it."""
    return types.Command(title=title, command=command, arguments=arguments)


ACTION_KIND = {"quickfix": types.CodeActionKind.QuickFix, "rewrite": types.CodeActionKind.RefactorRewrite,
               "empty": types.CodeActionKind.Empty}


def code_action(title: str, kind: str, *, command: types.Command | None = None,
                edit: types.WorkspaceEdit | None = None, diagnostic: types.Diagnostic | None = None,
                preferred: bool | None = None) -> types.CodeAction:
    """A code action; ``kind``: "quickfix", "rewrite" (refactor.rewrite) or "empty" (no kind, for
    commands on a claim). ``diagnostic`` is the client's own diagnostic the action fixes, sent back
    as it came; ``preferred`` is sent when given, false included."""
    return types.CodeAction(title=title, kind=ACTION_KIND[kind],
                            diagnostics=[diagnostic] if diagnostic is not None else None,
                            is_preferred=preferred, edit=edit, command=command)


def text_edit(rng: structure.Range, new_text: str) -> types.TextEdit:
    return types.TextEdit(range=range_(rng), new_text=new_text)


def document_edits(changes: list[tuple[str, int | None, list[types.TextEdit]]]) -> types.WorkspaceEdit:
    """One workspace edit of several documents: (uri, the open document's version or None, edits)."""
    return types.WorkspaceEdit(document_changes=[
        types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                               edits=edits) for uri, version, edits in changes])


def document_edit(uri: str, version: int | None, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    """A workspace edit of one document (``version``: the open document's, or None)."""
    return document_edits([(uri, version, edits)])


def new_file_edit(new_uri: str, text: str, changes: list[tuple[str, int | None, list[types.TextEdit]]]) -> \
        types.WorkspaceEdit:
    """One workspace edit: create ``new_uri`` (never over an existing file) holding ``text``, then
    the ``changes`` of other documents as in ``document_edits``."""
    start = structure.Range(structure.Position(0, 0), structure.Position(0, 0))
    create = types.CreateFile(uri=new_uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False))
    return types.WorkspaceEdit(document_changes=[create] + document_edits(
        [(new_uri, None, [text_edit(start, text)])] + changes).document_changes)


def supports_change_annotations(capabilities: types.ClientCapabilities | None) -> bool:
    """Whether the client advertises ``workspace.workspaceEdit.changeAnnotationSupport``: only such
    a client may be sent annotated edits (another would apply them as plain ones, or refuse them)."""
    workspace = capabilities.workspace if capabilities is not None else None
    edits = workspace.workspace_edit if workspace is not None else None
    return bool(edits is not None and edits.change_annotation_support is not None)


DRAFT_ANNOTATION = "colosseum-draft"  # the one change annotation a confirmed edit carries


def confirmed_edit(edit: types.WorkspaceEdit, label: str, description: str,
                   capabilities: types.ClientCapabilities | None) -> types.WorkspaceEdit:
    """``edit`` as a change the author confirms: each text edit and file creation of it carries a
    ChangeAnnotation with ``needsConfirmation`` (the editor shows a preview and applies only on
    the author's yes), when the client advertises ``changeAnnotationSupport``; otherwise ``edit``
    as it is (it still reaches the paper only as a code action the author picks)."""
    if not supports_change_annotations(capabilities):
        return edit
    changes = []
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            change = attrs.evolve(change, edits=[types.AnnotatedTextEdit(
                range=e.range, new_text=e.new_text, annotation_id=DRAFT_ANNOTATION) for e in change.edits])
        elif isinstance(change, (types.CreateFile, types.RenameFile, types.DeleteFile)):
            change = attrs.evolve(change, annotation_id=DRAFT_ANNOTATION)
        changes.append(change)
    annotation = types.ChangeAnnotation(label=label, needs_confirmation=True, description=description)
    return attrs.evolve(edit, document_changes=changes, change_annotations={DRAFT_ANNOTATION: annotation})


def confirmed_document_edit(uri: str, version: int | None, edits: list[types.TextEdit], label: str,
                            description: str, capabilities: types.ClientCapabilities | None) -> types.WorkspaceEdit:
    """``document_edit`` of one document as a change the author confirms (see ``confirmed_edit``)."""
    return confirmed_edit(document_edit(uri, version, edits), label, description, capabilities)


def show_document(uri: str, focus: bool = True) -> types.ShowDocumentParams:
    """The request that opens ``uri`` in the editor (focused unless ``focus`` is False)."""
    return types.ShowDocumentParams(uri=uri, take_focus=focus)


def warning_message(message: str) -> types.ShowMessageParams:
    return types.ShowMessageParams(type=types.MessageType.Warning, message=message)


def rename_placeholder(rng: structure.Range, placeholder: str) -> types.PrepareRenamePlaceholder:
    return types.PrepareRenamePlaceholder(range=range_(rng), placeholder=placeholder)


COMPLETION_KIND = {"claim": types.CompletionItemKind.Function, "section": types.CompletionItemKind.Module,
                   "label": types.CompletionItemKind.Reference, "environment": types.CompletionItemKind.Struct,
                   "file": types.CompletionItemKind.File, "citation": types.CompletionItemKind.Text}


class JsonAnswer(dict):
    """A request's answer already in its JSON form: sent as it is (protocol.ColosseumProtocol),
    not walked again by the protocol's serializer (a completion list of a hundred items took
    longer to serialize than to find)."""


@attrs.frozen
class CompletionClient:
    """What the client says it can do with a completion list: an insert/replace pair for an item's
    range, one range for all items (``itemDefaults.editRange``: items then carry no edit of their
    own) and snippets."""

    insert_replace: bool = False
    default_edit_range: bool = False
    snippets: bool = False

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities | None) -> "CompletionClient":
        text = capabilities.text_document if capabilities else None
        completion = text.completion if text else None
        if completion is None:
            return cls()
        item = completion.completion_item
        defaults = completion.completion_list.item_defaults if completion.completion_list else None
        return cls(insert_replace=bool(item and item.insert_replace_support),
                   default_edit_range=bool(defaults and "editRange" in defaults),
                   snippets=bool(item and item.snippet_support))


def completion_item(label: str, kind: str, detail: str, documentation: str = "") -> dict:
    """A name to complete, in its JSON form (built once per index snapshot and reused by every
    request: the protocol's serializer would walk each item again); ``kind``: "claim",
    "section", "label", "environment", "file" or "citation"."""
    item = {"label": label, "kind": COMPLETION_KIND[kind].value, "detail": detail}
    if documentation:
        item["documentation"] = documentation
    return item


def _range_of(line: int, start: int, end: int) -> dict:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def completion_list(items: list[dict], incomplete: bool, replaced: tuple | None = None,
                    client: CompletionClient = CompletionClient(), edited: dict | None = None) -> JsonAnswer:
    """The ranked items (their order is kept: ``sortText`` is their rank), each saying which text it
    replaces when ``replaced`` is given: (line, start, cursor, end) in the client's columns; the
    typed part is start..cursor, the whole label start..end. A client that takes one range for all
    items gets it once in ``itemDefaults``; one that supports it gets an insert/replace pair,
    others texlab's edit of the whole label. (No filterText: the label is the default, and Neovim
    0.7 trusts a textEdit's start only without one.) ``edited``: label -> (new text, is a
    snippet) for items whose text is more than their label (an environment with its \\end)."""
    answer = JsonAnswer(isIncomplete=incomplete)
    edit = None
    if replaced is not None:
        line, start, cursor, end = replaced
        word = _range_of(line, start, end)
        edit_range = {"insert": _range_of(line, start, cursor), "replace": word} if client.insert_replace else word
        if client.default_edit_range:
            answer["itemDefaults"] = {"editRange": edit_range}
        else:  # an InsertReplaceEdit, or a TextEdit
            edit = edit_range if client.insert_replace else {"range": word}
    out = []
    for rank, item in enumerate(items):
        item = dict(item, sortText=f"{rank:04d}")
        special = edited.get(item["label"]) if edited else None
        new_text = item["label"]
        if special is not None:
            new_text, snippet = special
            if snippet:
                item["insertTextFormat"] = types.InsertTextFormat.Snippet.value
            item["insertTextMode"] = types.InsertTextMode.AsIs.value
        if edit is not None:
            item["textEdit"] = dict(edit, newText=new_text)
        elif replaced is not None and special is not None:
            item["textEditText"] = new_text
        elif special is not None:
            item["insertText"] = new_text
        out.append(item)
    answer["items"] = out
    return answer


def folding_range(start_line: int, end_line: int) -> types.FoldingRange:
    """A region the editor may fold: lines ``start_line`` to ``end_line`` (both shown folded as one)."""
    return types.FoldingRange(start_line=start_line, end_line=end_line, kind=types.FoldingRangeKind.Region)


def symbol_information(name: str, kind: str, loc: structure.Location, container: str | None) -> types.SymbolInformation:
    """A workspace symbol; ``kind`` as in ``document_symbol``."""
    return types.SymbolInformation(name=name, kind=SYMBOL_KIND[kind], location=location(loc),
                                   container_name=container)


def document_link(rng: structure.Range, target: Path) -> types.DocumentLink:
    """A link to a file (no tooltip: not every client supports one, and the editor shows the path)."""
    return types.DocumentLink(range=range_(rng), target=path_to_uri(target))


def message_request(message: str, titles: tuple[str, ...]) -> types.ShowMessageRequestParams:
    """A question with buttons (window/showMessageRequest), e.g. the consent to send a paper."""
    return types.ShowMessageRequestParams(type=types.MessageType.Info, message=message,
                                          actions=[types.MessageActionItem(title=t) for t in titles])


def chosen_title(answer) -> str | None:
    """The button picked, or None when the question was dismissed."""
    return getattr(answer, "title", None) if answer is not None else None
