"""What the end-to-end server tests (tests/test_server_*.py) share: a small project, a client that
records what the server sends, and helpers to edit documents and wait for publications.

A test module imports the fixtures it uses by name (``from server_session import client, project``):
``project`` is a fresh copy of the project below (with a paper of its own next to the workspace, in
``outside``), so that edits on disk never leak from one test into another; ``client`` starts a
server on it, once for each of pytest-lsp's "visual-studio-code" and "neovim" client capabilities
(``vscode_only`` narrows a test to the first; "no-watch" is VS Code's without file watching).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, initialize_params
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

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
\end{lemma}\begin{proof}Clear.\end{proof}

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
    result = await lsp_client.initialize_session(initialize_params(project, _capabilities(request.param)))
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

