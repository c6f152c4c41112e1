"""Publishing findings after an edit: only the files whose findings changed are sent, in the JSON
the protocol's own serializer would make of them."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from colosseum.index import ProjectIndex

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "example-project"
sys.path.insert(0, str(REPO / "server"))

from pygls.protocol import default_converter  # noqa: E402

from colosseum_lsp.context import Project, ServerContext  # noqa: E402
from colosseum_lsp.convert import diagnostic, diagnostic_json  # noqa: E402
from colosseum_lsp.features.diagnostics import publish_project  # noqa: E402


class _Protocol:
    def __init__(self):
        self.sent: list[dict] = []

    def _send_data(self, message: dict) -> None:
        self.sent.append(message)

    def notify(self, method, params) -> None:
        self.sent.append({"method": method, "params": params})


class _Server:
    def __init__(self):
        self.protocol = _Protocol()

        class workspace:
            text_documents: dict = {}
        self.workspace = workspace


def test_json_form_is_what_the_protocol_serializer_makes(tmp_path, make_project):
    root = make_project(tmp_path / "p", {
        "main.tex": "\\documentclass{article}\n\\begin{document}\n\\input{a}\n\\end{document}\n",
        "a.tex": "\\section{S}\\label{s}\n\\begin{lemma}\\label{lem:a}\\lean{A.b}\n\\cref{lem:b}.\n\\end{lemma}\n"
                 "\\begin{proof}\n\\cref{lem:c}\n\\end{proof}\n% colosseum: obligation\n"
                 "\\begin{lemma}\\label{lem:c}\nü 𝔽 open\n\\end{lemma}\n\\begin{theorem}\\label{lem:a}\n\\end{theorem}\n"
                 "\\begin{proof}\n\\cref{lem:a}\n\\end{proof}\n",
    })
    converter = default_converter()
    found = ProjectIndex.open(root).diagnostics() + ProjectIndex.open(EXAMPLE).diagnostics()
    assert {d.code for d in found} >= {"colosseum/undefined-reference", "colosseum/duplicate-label",
                                       "colosseum/unused-label", "colosseum/depends-on-open-obligation"}
    assert any(d.related for d in found)
    for diag in found:
        assert diagnostic_json(diag) == converter.unstructure(diagnostic(diag))


def test_an_edit_publishes_only_the_files_whose_findings_changed(tmp_path):
    shutil.copytree(EXAMPLE, tmp_path / "p")
    index = ProjectIndex.open(tmp_path / "p")
    server = _Server()
    ctx = ServerContext(server)
    project = Project(index.root_dir, index=index)
    ctx.projects[index.root_dir] = project
    publish_project(ctx, project)
    first = {m["params"]["uri"] for m in server.protocol.sent}
    assert first == {d.file.as_uri() for d in index.diagnostics()}
    server.protocol.sent.clear()

    path = tmp_path / "p" / "sections" / "discussion.tex"
    index.update_document(path, path.read_text() + "\nSee \\cref{lem:nowhere}.\n")
    publish_project(ctx, project, [path.resolve().as_uri()])
    assert [m["params"]["uri"] for m in server.protocol.sent] == [path.resolve().as_uri()]
    (sent,) = server.protocol.sent
    assert any(d["code"] == "colosseum/undefined-reference" for d in sent["params"]["diagnostics"])
    server.protocol.sent.clear()

    publish_project(ctx, project)  # nothing changed since: nothing is sent
    assert server.protocol.sent == []
