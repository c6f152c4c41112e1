"""Robustness of the language server, end to end over stdio.

Document sync (incremental and full changes, versions, the debounce), files changed outside the
editor (``workspace/didChangeWatchedFiles`` and the watchdog fallback), bad input on the wire
(malformed JSON-RPC, unknown methods, foreign URIs, a document closed mid-request, a file without
closing braces), work-done progress and code actions.

Each test starts its own server on a fresh copy of a small project written below, so that edits on
disk never leak from one test into another.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcMethodNotFound
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

SERVER = [sys.executable, "-m", "colosseum", "serve"]

# --------------------------------------------------------------------------------------------------
# the project

MAIN = r"""
\documentclass{article}
\usepackage{amsthm}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}[theorem]{Lemma}
\begin{document}
\input{sections/a}
\input{sections/b}
\end{document}
"""

# no diagnostic at all in the pristine project: every claim label is referenced
A_TEX = r"""
\section{First}\label{sec:first}

\begin{lemma}[Alpha]
  \label{lem:alpha}
  Alpha holds.
\end{lemma}

  \begin{theorem}\label{thm:beta}
    \uses{lem:alpha}
    Beta holds by \cref{lem:alpha}.
  \end{theorem}
  \begin{proof}
    Apply \ref{lem:alpha}.
  \end{proof}

Théorème de Erdős — voir \cref{lem:alpha}.
"""

B_TEX = r"""
\section{Second}\label{sec:second}

\begin{lemma}\label{lem:gamma}
  Gamma holds, using \cref{thm:beta}.
\end{lemma}

By \ref{lem:gamma} and \cref{lem:alpha}.
"""

FILES = {
    "colosseum.toml": 'root = "main.tex"\n',
    "main.tex": MAIN,
    "sections/a.tex": A_TEX,
    "sections/b.tex": B_TEX,
}

# a directory next to the workspace, with a paper of its own (and a broken reference in it)
OUTSIDE = {
    "other.tex": "\\documentclass{article}\n\\begin{document}\nSee \\ref{sec:nowhere}.\n\\end{document}\n",
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    _write(tmp_path / "outside", OUTSIDE)
    return _write(tmp_path / "ws" / "paper", FILES)


# --------------------------------------------------------------------------------------------------
# the client: records every publishDiagnostics (with its version) and every registration

def _make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(client, {method: handler for method, handler in DEFAULT_CLIENT_FEATURES.items()
                                   if method != types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS})
    client.published = []  # every PublishDiagnosticsParams, in order of arrival
    client.registrations = []
    client.statuses = []

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    @client.feature(types.CLIENT_UNREGISTER_CAPABILITY)
    def unregister(params: types.UnregistrationParams) -> None:
        pass

    @client.feature("colosseum/status")
    def status(params) -> None:
        client.statuses.append(params)

    return client


def _capabilities(spec: str) -> types.ClientCapabilities:
    """A client of pytest-lsp's collection, or "no-watch": VS Code's, minus file watching."""
    if spec == "no-watch":
        caps = client_capabilities("visual-studio-code")
        caps.workspace.did_change_watched_files = None
        return caps
    return client_capabilities(spec)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, client_factory=_make_client),
    params=["visual-studio-code", "neovim"],
)
async def client(request, lsp_client: LanguageClient, project: Path):
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=_capabilities(request.param),
        root_uri=project.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="paper")],
    ))
    lsp_client.project = project
    lsp_client.encoding = result.capabilities.position_encoding or types.PositionEncodingKind.Utf16
    lsp_client.versions = {}
    yield
    await lsp_client.shutdown_session()


vscode_only = pytest.mark.parametrize("client", ["visual-studio-code"], indirect=True)


# --------------------------------------------------------------------------------------------------
# helpers

def _uri(client: LanguageClient, name: str) -> str:
    return (client.project / name).as_uri()


def _open(client: LanguageClient, name: str) -> str:
    path = client.project / name
    uri = path.as_uri()
    client.versions[uri] = 1
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="latex", version=1, text=path.read_text(encoding="utf-8"))))
    return uri


def _units(text: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def _find(text: str, needle: str, encoding: str, after: str = "", occurrence: int = 0) -> types.Range:
    """The LSP range (in ``encoding``) of ``needle`` in ``text``, searched after ``after``."""
    start = text.index(after) + len(after) if after else 0
    for _ in range(occurrence + 1):
        index = text.index(needle, start)
        start = index + 1
    line = text.count("\n", 0, index)
    line_start = text.rfind("\n", 0, index) + 1
    col = _units(text[line_start:index], encoding)
    return types.Range(start=types.Position(line=line, character=col),
                       end=types.Position(line=line, character=col + _units(needle, encoding)))


def _apply(text: str, edits: list[types.TextEdit], encoding: str = types.PositionEncodingKind.Utf16) -> str:
    """Apply non-overlapping edits (as an editor does: all against the original text)."""
    lines = text.split("\n")

    def offset(pos: types.Position) -> int:
        base = sum(len(line) + 1 for line in lines[:pos.line])
        line = lines[pos.line] if pos.line < len(lines) else ""
        units = 0
        for i, ch in enumerate(line):
            if units >= pos.character:
                return base + i
            units += _units(ch, encoding)
        return base + len(line)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def _change(client: LanguageClient, uri: str, *changes) -> int:
    """One didChange with the next version; ``changes`` are (range, text) pairs or whole texts."""
    version = client.versions[uri] = client.versions[uri] + 1
    content = [types.TextDocumentContentChangeWholeDocument(text=c) if isinstance(c, str)
               else types.TextDocumentContentChangePartial(range=c[0], text=c[1]) for c in changes]
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=content))
    return version


async def _until(predicate, what: str, timeout: float = 10.0):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = predicate()
        if found:
            return found
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.05)


async def _publication(client: LanguageClient, uri: str, since: int, check, what: str,
                       timeout: float = 10.0) -> types.PublishDiagnosticsParams:
    """The first diagnostics published for ``uri`` after the ``since``-th publication that passes ``check``."""
    def find():
        for params in client.published[since:]:
            if params.uri == uri and check(params):
                return params
        return None

    try:
        return await _until(find, what, timeout)
    except AssertionError as exc:
        mine = [(p.version, [(d.code, d.message) for d in p.diagnostics]) for p in client.published[since:]
                if p.uri == uri]
        raise AssertionError(f"{exc}; published for {uri} meanwhile: {mine}") from None


def _codes(params: types.PublishDiagnosticsParams, code: str) -> list[types.Diagnostic]:
    return [d for d in params.diagnostics if d.code == code]


def _undefined(params: types.PublishDiagnosticsParams, label: str) -> list[types.Diagnostic]:
    return [d for d in _codes(params, "colosseum/undefined-reference") if f"`{label}`" in d.message]


async def _ready(client: LanguageClient, uri: str) -> None:
    """A round trip that waits until the project is indexed (every feature does)."""
    await asyncio.wait_for(client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=uri))), 15)


# --------------------------------------------------------------------------------------------------
# 1. document sync

async def test_incremental_and_full_changes(client: LanguageClient):
    enc = client.encoding
    a = _open(client, "sections/a.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    await _ready(client, a)

    # an incremental edit breaks the reference of the theorem's body
    mark = len(client.published)
    rng = _find(text, "alpha", enc, after="Beta holds by \\cref{lem:")
    version = _change(client, a, (rng, "alpah"))
    text = _apply(text, [types.TextEdit(range=rng, new_text="alpah")], enc)
    published = await _publication(client, a, mark, lambda p: _undefined(p, "lem:alpah"),
                                   "undefined-reference for lem:alpah")
    [diag] = _undefined(published, "lem:alpah")
    assert diag.range == _find(text, "lem:alpah", enc)
    assert diag.severity == types.DiagnosticSeverity.Error
    assert "lem:alpha" in diag.message  # the one-letter neighbour is suggested
    assert published.version == version == 2

    # fixing it clears the file: an empty list is published, for the latest version
    mark = len(client.published)
    rng = _find(text, "alpah", enc)
    version = _change(client, a, (rng, "alpha"))
    text = _apply(text, [types.TextEdit(range=rng, new_text="alpha")], enc)
    published = await _publication(client, a, mark, lambda p: True, "the cleared diagnostics")
    assert len(published.diagnostics) == 0 and published.version == version == 3

    # a full change, then two partial changes in one notification, the second relative to the first
    mark = len(client.published)
    broken = text.replace("\\cref{lem:alpha}.\n  \\end{theorem}", "\\cref{lem:nowhere}.\n  \\end{theorem}")
    assert broken != text
    version = _change(client, a, broken)
    published = await _publication(client, a, mark, lambda p: _undefined(p, "lem:nowhere"),
                                   "undefined-reference after a full change")
    assert published.version == version == 4
    assert [d.range for d in _undefined(published, "lem:nowhere")] == [_find(broken, "lem:nowhere", enc)]

    mark = len(client.published)
    first = _find(broken, "nowhere", enc)
    inserted = "\\ref{sec:first}\n"
    second = types.Range(start=types.Position(line=first.start.line + 1, character=first.start.character),
                         end=types.Position(line=first.end.line + 1, character=first.start.character + len("nowhere")))
    version = _change(client, a, (types.Range(start=types.Position(line=0, character=0),
                                              end=types.Position(line=0, character=0)), inserted),
                      (second, "alpha"))
    published = await _publication(client, a, mark, lambda p: p.version == version, "diagnostics of version 5")
    assert len(published.diagnostics) == 0, [(d.code, d.message) for d in published.diagnostics]
    text = inserted + text

    # the server now holds the same text as this client: a hover on the moved reference resolves
    pos = _find(text, "lem:alpha", enc, after="Beta holds by \\cref{").start
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=a), position=pos))
    assert hover is not None and "lem:alpha" in str(hover.contents)


async def test_edits_below_a_form_feed_land_on_their_line(client: LanguageClient):
    """A form feed (TeX's ^^L page break) or U+2028 does not end a line for the protocol: an
    incremental edit below one is applied where the client means it (pygls's own document
    splits lines there too, and put such an edit a line too low)."""
    enc = client.encoding
    path = client.project / "sections/a.tex"
    text = path.read_text(encoding="utf-8").replace("\\section{First}", "% page\x0cbreak \u2028 here\n\\section{First}")
    path.write_text(text, encoding="utf-8")
    a = _open(client, "sections/a.tex")
    await _ready(client, a)

    mark = len(client.published)
    rng = _find(text, "alpha", enc, after="Beta holds by \\cref{lem:")
    version = _change(client, a, (rng, "alpah"))
    text = _apply(text, [types.TextEdit(range=rng, new_text="alpah")], enc)
    published = await _publication(client, a, mark, lambda p: p.version == version, f"diagnostics of version {version}")
    assert [d.range for d in _undefined(published, "lem:alpah")] == [_find(text, "lem:alpah", enc)]

    # the server holds the client's text: every reference but the broken one still resolves
    assert [d.code for d in published.diagnostics] == ["colosseum/undefined-reference"]


async def test_ranges_in_the_negotiated_position_encoding(client: LanguageClient):
    """On a line with non-ASCII text before the reference, edits and diagnostics use the position
    encoding the server announced in its capabilities (UTF-16, or UTF-8 for Neovim >= 0.10)."""
    enc = client.encoding
    a = _open(client, "sections/a.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    await _ready(client, a)
    mark = len(client.published)
    rng = _find(text, "alpha", enc, after="voir \\cref{lem:")
    version = _change(client, a, (rng, "omega"))
    text = _apply(text, [types.TextEdit(range=rng, new_text="omega")], enc)
    assert "Erdős — voir \\cref{lem:omega}." in text
    published = await _publication(client, a, mark, lambda p: p.version == version and _codes(
        p, "colosseum/undefined-reference"), "undefined-reference after the edit")
    assert [d.range for d in _codes(published, "colosseum/undefined-reference")] == \
        [_find(text, "lem:omega", enc)], f"position encoding {enc}"
    assert _undefined(published, "lem:omega"), "the edit was applied at the wrong place"

    # a position in the same encoding finds the reference after the non-ASCII text
    pos = _find(text, "lem:alpha", enc, after="Beta holds by \\cref{").start
    refs = await client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=a), position=pos,
        context=types.ReferenceContext(include_declaration=True)))
    assert refs and _find(text, "lem:alpha", enc, after="\\label{").start in [r.range.start for r in refs]


async def test_quick_edits_to_two_files_are_all_applied(client: LanguageClient):
    enc = client.encoding
    a, b = _open(client, "sections/a.tex"), _open(client, "sections/b.tex")
    text_a = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    text_b = (client.project / "sections/b.tex").read_text(encoding="utf-8")
    await _ready(client, a)
    mark = len(client.published)

    # six edits back to back, well within the debounce, alternating between the files
    end_a = types.Position(line=text_a.count("\n"), character=0)
    end_b = types.Position(line=text_b.count("\n"), character=0)
    _change(client, a, (_find(text_a, "lem:alpha", enc, after="Beta holds by \\cref{"), "lem:zzz1"))
    _change(client, b, (_find(text_b, "lem:gamma", enc, after="By \\ref{"), "lem:zzz2"))
    _change(client, a, (types.Range(start=end_a, end=end_a), "\\ref{lem:zzz3}\n"))
    _change(client, b, (types.Range(start=end_b, end=end_b), "\\ref{lem:zzz4}\n"))
    end_a = types.Position(line=end_a.line + 1, character=0)
    _change(client, a, (types.Range(start=end_a, end=end_a), "\\ref{lem:zzz5}\n"))
    version_b = _change(client, b, (types.Range(start=end_b, end=end_b), "\\ref{lem:zzz6}\n"))
    version_a = client.versions[a]

    def complete(uri, version, labels):
        return lambda p: p.version == version and all(_undefined(p, label) for label in labels)

    got_a = await _publication(client, a, mark, complete(a, version_a, ["lem:zzz1", "lem:zzz3", "lem:zzz5"]),
                               f"a.tex v{version_a} with zzz1, zzz3 and zzz5")
    got_b = await _publication(client, b, mark, complete(b, version_b, ["lem:zzz2", "lem:zzz4", "lem:zzz6"]),
                               f"b.tex v{version_b} with zzz2, zzz4 and zzz6")
    assert len(_codes(got_a, "colosseum/undefined-reference")) == 3
    assert len(_codes(got_b, "colosseum/undefined-reference")) == 3
    # the last publication of each file is the latest version (nothing older arrives afterwards)
    await asyncio.sleep(0.5)
    for uri, version in ((a, version_a), (b, version_b)):
        assert [p.version for p in client.published if p.uri == uri][-1] == version


@vscode_only
async def test_published_version_matches_the_findings(client: LanguageClient):
    """Edits that arrive while the index is being rebuilt: a publication labelled with version V
    holds the findings of the text of version V (never those of an older text)."""
    uri = (client.project / "sections/a.tex").as_uri()
    # a long buffer (unsaved), so that each rebuild takes a while
    filler = "".join(f"See \\cref{{lem:alpha}} and {{\\bf {k}}} \\textit{{x}}.\n" for k in range(20000))
    text = filler + (client.project / "sections/a.tex").read_text(encoding="utf-8")
    client.versions[uri] = 1
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="latex", version=1, text=text)))
    await _ready(client, uri)
    mark = len(client.published)
    end = types.Position(line=text.count("\n"), character=0)
    expected: dict[int, set[str]] = {}
    labels: set[str] = set()
    for step in range(6):
        label = f"lem:v{step}"
        version = _change(client, uri, (types.Range(start=end, end=end), f"\\ref{{{label}}}\n"))
        end = types.Position(line=end.line + 1, character=0)
        labels.add(label)
        expected[version] = set(labels)
        await asyncio.sleep(0.17)  # just past the debounce: the next edit lands during the rebuild
    await _publication(client, uri, mark, lambda p: p.version == version and len(_codes(
        p, "colosseum/undefined-reference")) == len(labels), f"the findings of version {version}")
    await asyncio.sleep(0.3)
    wrong = []
    for p in client.published[mark:]:
        if p.uri != uri:
            continue
        found = {d.message.split("`")[1] for d in _codes(p, "colosseum/undefined-reference")}
        if found != expected.get(p.version):
            wrong.append(f"labelled version {p.version}: {sorted(found)} (expected {sorted(expected.get(p.version, []))})")
    assert not wrong, "publications whose version does not match their findings:\n" + "\n".join(wrong)
    assert [p.version for p in client.published if p.uri == uri][-1] == version


@vscode_only
async def test_edits_in_one_project_keep_the_diagnostics_of_another(client: LanguageClient):
    """Two projects side by side whose directory names share a prefix (paper, paper-v2): publishing
    the findings of one never clears those of the other."""
    other = _write(client.project.parent / "paper-v2", {**FILES, "sections/b.tex": B_TEX + "\\ref{lem:v2only}\n"})
    other_b = (other / "sections/b.tex").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=other_b, language_id="latex", version=1, text=(other / "sections/b.tex").read_text(encoding="utf-8"))))
    await _publication(client, other_b, 0, lambda p: _undefined(p, "lem:v2only"), "paper-v2's diagnostics")

    a = _open(client, "sections/a.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    await _ready(client, a)
    mark = len(client.published)
    for label in ("lem:broken", "lem:alpha"):  # break, then fix a reference in paper
        version = _change(client, a, text.replace("Beta holds by \\cref{lem:alpha}", f"Beta holds by \\cref{{{label}}}"))
        await _publication(client, a, mark, lambda p, v=version: p.version == v, f"paper's diagnostics of v{version}")
    await asyncio.sleep(0.3)
    cleared = [p for p in client.published[mark:] if p.uri == other_b and not p.diagnostics]
    assert not cleared, f"paper-v2's b.tex was published an empty list {len(cleared)} time(s) " \
                        "when paper's findings were published"
    assert [d for d in client.diagnostics[other_b] if "`lem:v2only`" in d.message], client.diagnostics[other_b]


@vscode_only
async def test_edit_right_after_open_is_kept(client: LanguageClient):
    """The first edit can come before the project is indexed (didOpen, then didChange at once):
    it is indexed, and not replaced by the text of the didOpen."""
    a = _open(client, "sections/a.tex")
    text = (client.project / "sections/a.tex").read_text(encoding="utf-8")
    version = _change(client, a, (_find(text, "lem:alpha", client.encoding, after="Beta holds by \\cref{"),
                                  "lem:typo"))
    await _publication(client, a, 0, lambda p: p.version == version and _undefined(p, "lem:typo"),
                       "the diagnostics of the edit made right after didOpen", timeout=5)
    await asyncio.sleep(0.3)
    last = [p for p in client.published if p.uri == a][-1]
    assert _undefined(last, "lem:typo"), f"the edit was undone afterwards: {last!r}"


# --------------------------------------------------------------------------------------------------
# 2. files changed outside the editor

@vscode_only
async def test_watched_files_notification(client: LanguageClient):
    a, b = _uri(client, "sections/a.tex"), _uri(client, "sections/b.tex")
    await _ready(client, b)
    assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations)
    _open(client, "sections/a.tex")

    # b.tex (closed) and a.tex (open in the editor: its copy wins) both change on disk
    mark = len(client.published)
    b_path, a_path = client.project / "sections/b.tex", client.project / "sections/a.tex"
    b_path.write_text(b_path.read_text() + "\\ref{lem:ondisk}\n", encoding="utf-8")
    a_path.write_text(a_path.read_text() + "\\ref{lem:ignored}\n", encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=b, type=types.FileChangeType.Changed),
        types.FileEvent(uri=a, type=types.FileChangeType.Changed)]))
    published = await _publication(client, b, mark, lambda p: _undefined(p, "lem:ondisk"),
                                   "diagnostics for the file changed on disk")
    assert published.version is None  # not open in the editor
    assert not any(_undefined(p, "lem:ignored") for p in client.published if p.uri == a)

    # a new file on disk, \input by b.tex: created, then reported
    mark = len(client.published)
    c_path = client.project / "sections/c.tex"
    c_path.write_text("\\ref{lem:inC}\n", encoding="utf-8")
    b_path.write_text(b_path.read_text() + "\\input{sections/c}\n", encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=c_path.as_uri(), type=types.FileChangeType.Created),
        types.FileEvent(uri=b, type=types.FileChangeType.Changed)]))
    await _publication(client, c_path.as_uri(), mark, lambda p: _undefined(p, "lem:inC"),
                       "diagnostics for the new file")

    # deleted: its findings go away (an empty list), b.tex reports the missing input instead
    mark = len(client.published)
    c_path.unlink()
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=c_path.as_uri(), type=types.FileChangeType.Deleted)]))
    await _publication(client, c_path.as_uri(), mark, lambda p: len(p.diagnostics) == 0,
                       "the deleted file's diagnostics cleared")


@pytest.mark.parametrize("client", ["no-watch"], indirect=True)
async def test_watchdog_without_client_watching(client: LanguageClient):
    b = _uri(client, "sections/b.tex")
    await _ready(client, b)
    assert not any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations)
    await asyncio.sleep(0.3)  # the observer thread sets its inotify watches

    mark = len(client.published)
    b_path = client.project / "sections/b.tex"
    b_path.write_text(b_path.read_text() + "\\ref{lem:watchdog}\n", encoding="utf-8")
    await _publication(client, b, mark, lambda p: _undefined(p, "lem:watchdog"),
                       "the watchdog to pick up the file written on disk", timeout=10)

    # written by another program through a rename (as many editors and git do)
    mark = len(client.published)
    tmp = b_path.with_suffix(".tex.tmp~")
    tmp.write_text(B_TEX.lstrip("\n"), encoding="utf-8")
    tmp.replace(b_path)
    await _publication(client, b, mark, lambda p: len(p.diagnostics) == 0,
                       "the watchdog to pick up a file replaced by a rename", timeout=10)


# --------------------------------------------------------------------------------------------------
# 3. bad input on the wire

class RawServer:
    """The server on stdio, spoken to byte by byte."""

    def __init__(self, proc: asyncio.subprocess.Process):
        self.proc = proc
        self.messages: list[dict] = []
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls) -> RawServer:
        proc = await asyncio.create_subprocess_exec(*SERVER, stdin=asyncio.subprocess.PIPE,
                                                    stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.DEVNULL)
        return cls(proc)

    async def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = await out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                key, _, value = line.decode("ascii").partition(":")
                headers[key.strip().lower()] = value.strip()
            body = await out.readexactly(int(headers["content-length"]))
            self.messages.append(json.loads(body))

    def send_bytes(self, body: bytes, header: bytes | None = None) -> None:
        header = header if header is not None else b"Content-Length: %d\r\n\r\n" % len(body)
        self.proc.stdin.write(header + body)

    def send(self, message: dict) -> None:
        self.send_bytes(json.dumps(message).encode("utf-8"))

    async def response(self, id_, timeout: float = 15.0) -> dict:
        return await _until(lambda: next((m for m in self.messages if m.get("id") == id_ and "method" not in m),
                                         None), f"the response to request {id_!r}", timeout)

    async def close(self) -> int | None:
        with contextlib.suppress(Exception):
            self.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
            await self.response("bye", 5)
            self.send({"jsonrpc": "2.0", "method": "exit"})
        try:
            return await asyncio.wait_for(self.proc.wait(), 5)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
            return None
        finally:
            self.reader.cancel()


async def test_malformed_json_rpc(project: Path):
    server = await RawServer.start()
    try:
        a_uri = (project / "sections/a.tex").as_uri()
        # broken JSON, before anything else
        server.send_bytes(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {')
        server.send_bytes(b"\xff\xfe not even utf-8 \x80")
        # valid JSON, not JSON-RPC
        for junk in ([1, 2, 3], "hello", 42, None, {"hello": "world"}, {"jsonrpc": "2.0"},
                     {"jsonrpc": "2.0", "id": 2}, {"jsonrpc": "2.0", "id": 3, "method": 42},
                     {"jsonrpc": "2.0", "id": 4, "result": "a response to nothing"},
                     {"jsonrpc": "2.0", "id": 5, "error": {"code": 1, "message": "an error for nothing"}}):
            server.send(junk)
        server.send({"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {
            "processId": None, "rootUri": project.as_uri(), "capabilities": {},
            "workspaceFolders": [{"uri": project.as_uri(), "name": "paper"}]}})
        answer = await server.response(10)
        assert "result" in answer and "capabilities" in answer["result"], answer
        assert answer["result"]["capabilities"].get("hoverProvider"), answer
        server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

        # more junk once initialized, then a real request
        server.send_bytes(b'{"jsonrpc": "2.0", "id": 11, "method": "textDocument/hover", "params": ')
        server.send({"jsonrpc": "2.0", "id": 12, "method": "textDocument/hover", "params": {"textDocument": 7}})
        pos = _find(A_TEX.lstrip("\n"), "lem:alpha", "utf-16", after="Beta holds by \\cref{").start
        server.send({"jsonrpc": "2.0", "id": 13, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": a_uri}, "position": {"line": pos.line, "character": pos.character + 2}}})
        hover = await server.response(13)
        assert "error" not in hover, hover
        assert hover["result"] and "lem:alpha" in json.dumps(hover["result"]), hover

        # what arrived for the junk: only well-formed JSON-RPC messages, never a crash
        await asyncio.sleep(0.5)
        for message in server.messages:
            assert message.get("jsonrpc") == "2.0", message
            if "error" in message:
                assert isinstance(message["error"].get("code"), int), message
        assert server.proc.returncode is None
        bad = [m for m in server.messages if m.get("id") == 12 and "method" not in m]
    finally:
        code = await server.close()
    assert code == 0, f"the server exited with {code} after shutdown/exit"
    # every request is answered: the one whose params do not fit with InvalidParams (it came
    # before the hover, so its answer, if any, has arrived)
    assert bad, "no response to a hover request whose params do not fit (id 12)"
    assert bad[0].get("error", {}).get("code") == types.ErrorCodes.InvalidParams, bad


async def test_unknown_methods_and_positions_out_of_range(client: LanguageClient):
    uri = _open(client, "sections/b.tex")
    for method in ("colosseum/doesNotExist", "$/colosseum.unknownRequest", "textDocument/notAThing"):
        with pytest.raises(JsonRpcMethodNotFound):
            await asyncio.wait_for(client.protocol.send_request_async(method, {"x": 1}), 10)
    # an unknown notification is ignored ($/ ones in particular), and the server goes on
    client.protocol.notify("$/colosseum.unknownNotification", {"x": 1})
    client.protocol.notify("colosseum/unknownNotification", None)

    # positions past the end of a line and of the file: nothing, not an error
    doc = types.TextDocumentIdentifier(uri=uri)
    for pos in (types.Position(line=0, character=10_000), types.Position(line=10_000, character=0),
                types.Position(line=2**31 - 1, character=2**31 - 1)):
        assert await client.text_document_hover_async(types.HoverParams(text_document=doc, position=pos)) is None
        assert not await client.text_document_definition_async(types.DefinitionParams(
            text_document=doc, position=pos))
        items = await client.text_document_completion_async(types.CompletionParams(
            text_document=doc, position=pos))
        assert items is None or isinstance(items, (list, types.CompletionList))
        assert not await client.text_document_prepare_rename_async(types.PrepareRenameParams(
            text_document=doc, position=pos))

    locations = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=_find(B_TEX.lstrip("\n"), "lem:gamma", client.encoding, after="By \\ref{").start))
    assert locations and locations[0].uri == uri


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


# --------------------------------------------------------------------------------------------------
# 4. work-done progress

def _progress_problems(client: LanguageClient) -> list[str]:
    problems = []
    for token, reports in client.progress_reports.items():
        kinds = [type(r).__name__ for r in reports]
        if not reports or not isinstance(reports[0], types.WorkDoneProgressBegin):
            problems.append(f"{token}: does not begin: {kinds}")
        if not reports or not isinstance(reports[-1], types.WorkDoneProgressEnd):
            problems.append(f"{token}: does not end: {kinds}")
        if sum(isinstance(r, types.WorkDoneProgressBegin) for r in reports) > 1 or \
                sum(isinstance(r, types.WorkDoneProgressEnd) for r in reports) > 1:
            problems.append(f"{token}: begins or ends twice: {kinds}")
    return problems


async def test_reindex_progress(client: LanguageClient):
    uri = _open(client, "sections/a.tex")
    result = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.reindex", arguments=[uri])), 15)
    assert result["claims"] == 3 and result["files"] == 3
    await _until(lambda: not _progress_problems(client), "every progress to end", 5)
    titles = {token: reports[0].title for token, reports in client.progress_reports.items()}
    reindex = [token for token, title in titles.items() if title.startswith("Re-indexing")]
    assert len(reindex) == 1, titles
    reports = client.progress_reports[reindex[0]]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and isinstance(reports[-1], types.WorkDoneProgressEnd)

    # a reindex that fails (no root file there) answers an error, and its progress still ends
    empty = client.project.parent.parent / "no-paper"
    empty.mkdir()
    (empty / "notes.tex").write_text("Just notes, no \\verb|\\documentclass|.\n", encoding="utf-8")
    before = set(client.progress_reports)
    with pytest.raises(JsonRpcException):
        await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="colosseum.reindex", arguments=[(empty / "notes.tex").as_uri()])), 15)
    await _until(lambda: not _progress_problems(client), "every progress to end after a failure", 5)
    assert set(client.progress_reports) - before, "the failing index reported no progress at all"

    # a reindex from a document that is not a file (the first project) or without arguments
    for arguments in (["untitled:Untitled-1"], None):
        result = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="colosseum.reindex", arguments=arguments)), 15)
        assert result["claims"] == 3
    await _until(lambda: not _progress_problems(client), "every progress to end", 5)


# --------------------------------------------------------------------------------------------------
# 5. code actions

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

    # applied, the lemma is an obligation: the theorem that uses it is now conditional,
    # and the lemma's code action offers to unmark it
    mark = len(client.published)
    cursor = _find(text, "Alpha holds.", enc).start
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=a), range=types.Range(start=cursor, end=cursor),
        context=types.CodeActionContext(diagnostics=[])))
    [change] = next(x for x in actions if x.title.startswith("Mark")).edit.document_changes
    version = _change(client, a, *[(e.range, e.new_text) for e in change.edits])
    text = _apply(text, change.edits, enc)
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
