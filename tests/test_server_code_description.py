"""Published diagnostics link their code to its documentation (``codeDescription.href``): the
README's "Diagnostic codes" table, on this machine (the project states no web address)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from pytest_lsp import LanguageClient
from server_session import _open, _publication, _undefined, vscode_only
from server_session import client, project  # noqa: F401 - fixtures, requested by name


@vscode_only
async def test_published_diagnostics_link_their_code(client: LanguageClient):
    b_path = client.project / "sections/b.tex"
    b_path.write_text(b_path.read_text(encoding="utf-8") + "See \\ref{lem:nowhere}.\n", encoding="utf-8")
    b = _open(client, "sections/b.tex")
    published = await _publication(client, b, 0, lambda p: _undefined(p, "lem:nowhere"), "the undefined reference")
    found = _undefined(published, "lem:nowhere")[0]
    assert found.code == "colosseum/undefined-reference"
    assert found.code_description is not None
    href = urlparse(found.code_description.href)
    assert href.scheme == "file" and href.fragment == "diagnostic-codes"
    readme = Path(unquote(href.path))
    assert readme.is_file()
    text = readme.read_text(encoding="utf-8")
    assert "### Diagnostic codes" in text and "`colosseum/undefined-reference`" in text
