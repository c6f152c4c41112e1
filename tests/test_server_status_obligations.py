"""The editor's status bar count (``colosseum/status``'s ``obligations``) is the number of
obligations ``colosseum obligations`` lists: a section holding an obligation has the status
"obligation" in the graph but is not one, and is not counted."""

from __future__ import annotations

from pytest_lsp import LanguageClient
from server_session import _open, _ready, _until, vscode_only
from server_session import client, project  # noqa: F401 - fixtures, requested by name

from colosseum.graph import export
from colosseum.index import ProjectIndex


@vscode_only
async def test_status_counts_the_obligations_the_cli_lists(client: LanguageClient):
    b_path = client.project / "sections/b.tex"
    b_path.write_text(b_path.read_text(encoding="utf-8").replace(
        "Gamma holds", "\\obligation Gamma holds"), encoding="utf-8")
    index = ProjectIndex.open(client.project)
    listed = [item["id"] for item in export.obligation_plan(index)]
    assert listed == ["lem:gamma"]
    # the section holding it has the status too: counting statuses would say 2
    assert index.graph.status.get("sec:second") == "obligation"

    b = _open(client, "sections/b.tex")
    await _ready(client, b)
    await _until(lambda: any(isinstance(_obligations(s), int) for s in client.statuses), "a status with a count")
    counts = [_obligations(s) for s in client.statuses if isinstance(_obligations(s), int)]
    assert counts[-1] == len(listed) == 1


def _obligations(status) -> object:
    if isinstance(status, dict):
        return status.get("obligations")
    return getattr(status, "obligations", None)


