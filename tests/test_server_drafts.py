"""A model's proof reaches the paper only as a draft the author picks (#14, hand-off 4): after
"Solve obligation" the server sends no ``workspace/applyEdit``; the proof is a code action on the
claim whose edit carries the draft marker, annotated ``needsConfirmation`` only for a client that
advertises ``changeAnnotationSupport``. The real server, the real Anthropic SDK, a local
Messages-API double (the scripted solve of test_solve_cli)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from draft_offers import applied_to, draft_offers, text_edits
from lsp_session import answer_consent, initialize_params
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from colosseum.latex.draft_marker import draft_run
from doubles.messages_api import MessagesAPIDouble
from test_solve_cli import answer_by_role

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "example-project"
API = MessagesAPIDouble([], responder=answer_by_role)
API.__enter__()  # one double for the module; the server reads its address from the environment
# a checkout run with PYTHONPATH (a worktree, not the installed copy) serves its own code
PASSED_ON = {k: os.environ[k] for k in ("PYTHONPATH", "XDG_CONFIG_HOME") if k in os.environ}
LABEL = "lem:resampling"


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                              server_env={**PASSED_ON, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": API.url}),
    params=["visual-studio-code", "neovim"])
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    project = tmp_path_factory.mktemp("ws") / "paper"
    shutil.copytree(EXAMPLE, project)
    lsp_client.apply_edit_requests = []

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams):  # recorded, never expected
        lsp_client.apply_edit_requests.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params):
        return None

    answer_consent(lsp_client)
    await lsp_client.initialize_session(initialize_params(project, client_capabilities(request.param)))
    lsp_client.project, lsp_client.profile = project, request.param
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, path: Path) -> str:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="latex", version=1, text=path.read_text())))
    return path.as_uri()


async def _solve(client: LanguageClient) -> tuple[Path, str, dict]:
    path = client.project / "sections" / "main-result.tex"
    uri = _open(client, path)
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.solveObligation", arguments=[uri, LABEL]))
    return path, uri, result


async def test_a_solve_offers_its_proof_as_a_code_action_and_applies_nothing(client: LanguageClient):
    path, uri, result = await _solve(client)
    text_before = path.read_text()
    # nothing was applied unasked, in any client: no applyEdit request, the file untouched
    assert client.apply_edit_requests == []
    assert path.read_text() == text_before
    # the answer says what the run concluded and where the offer is
    run_id = Path(result["report"]).parent.name
    assert result["status"] == "done" and result["verdict"] == "unrefuted" and result["offered"] is True
    claim_line = next(i for i, line in enumerate(text_before.splitlines()) if "\\label{lem:resampling}" in line)
    assert result["offer_at"] == {"uri": uri, "line": claim_line, "character": 0}
    # the offer: a code action on the claim, its title saying the run, its verdict and what survives
    (action,) = await draft_offers(client, uri, claim_line, 5)
    survivors = result["critiques"]
    assert survivors >= 1
    assert action.title == f"Insert draft proof of {LABEL} (run {run_id}: unrefuted, {survivors} critiques survive)"
    (edit,) = text_edits(action.edit, uri)
    # the inserted proof carries the draft marker on its first line, naming the run
    first = edit.new_text.strip("\n").split("\n")[0]
    assert first.startswith("\\begin{proof}") and draft_run(first) == run_id
    assert "witness-tree" in edit.new_text
    inserted = applied_to(text_before, [edit])
    assert "\\end{lemma}\n\\begin{proof} % colosseum: draft " + run_id in inserted
    # picking it runs the command that drops the offer: it is offered once
    assert action.command is not None and action.command.command == "colosseum.draftInserted"
    done = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=action.command.command, arguments=action.command.arguments))
    assert done["run"] == run_id
    assert await draft_offers(client, uri, claim_line, 5) == []
    assert client.apply_edit_requests == []


async def test_the_offer_asks_for_confirmation_only_from_a_client_that_supports_it(client: LanguageClient):
    path, uri, result = await _solve(client)
    (action,) = await draft_offers(client, uri, result["offer_at"]["line"])
    (change,) = action.edit.document_changes
    (edit,) = change.edits
    if client.profile == "visual-studio-code":  # advertises changeAnnotationSupport
        assert isinstance(edit, types.AnnotatedTextEdit)
        annotation = action.edit.change_annotations[edit.annotation_id]
        assert annotation.needs_confirmation is True and LABEL in annotation.label
    else:  # Neovim advertises none: a plain edit, which it applies when the author picks the action
        assert not isinstance(edit, types.AnnotatedTextEdit) and not action.edit.change_annotations
    assert client.apply_edit_requests == []


@pytest.mark.parametrize("client", ["neovim"], indirect=True)  # the offers are the server's: one profile
async def test_only_the_last_three_offers_of_a_claim_are_kept(client: LanguageClient):
    runs = []
    for _ in range(4):
        path, uri, result = await _solve(client)
        runs.append(Path(result["report"]).parent.name)
    actions = await draft_offers(client, uri, result["offer_at"]["line"])
    assert len(set(runs)) == 4
    assert [a.command.arguments[2] for a in actions] == runs[::-1][:3]  # newest first
    assert client.apply_edit_requests == []


def test_no_feature_of_the_server_sends_apply_edit():
    """A proof reaches the paper only through a code action: no module of the server asks the
    client to apply an edit (the one way an edit could land unasked)."""
    sources = sorted((REPO / "server" / "colosseum_lsp").rglob("*.py"))
    assert sources
    offenders = [p.name for p in sources if "apply_edit" in p.read_text().replace("apply_edit_requests", "")]
    assert offenders == []


def test_a_confirmed_edit_annotates_every_change_only_for_a_client_that_supports_it():
    from colosseum.core.structure import Position, Range
    from colosseum_lsp import convert

    at = Range(Position(3, 0), Position(3, 0))
    edit = convert.new_file_edit("file:///p/new.tex", "skeleton", [("file:///p/main.tex", 2, [convert.text_edit(at, "x")])])
    with_support = client_capabilities("visual-studio-code")
    annotated = convert.confirmed_edit(edit, "Draft skeleton of thm:a", "a model's draft", with_support)
    create, fill, link = annotated.document_changes
    assert create.annotation_id == convert.DRAFT_ANNOTATION
    assert all(isinstance(e, types.AnnotatedTextEdit) and e.annotation_id == convert.DRAFT_ANNOTATION
               for change in (fill, link) for e in change.edits)
    (annotation,) = annotated.change_annotations.values()
    assert annotation.needs_confirmation is True and annotation.label == "Draft skeleton of thm:a"
    assert link.text_document.version == 2 and link.edits[0].new_text == "x"
    # a client that does not advertise changeAnnotationSupport gets the edit as it was
    for caps in (client_capabilities("neovim"), types.ClientCapabilities(), None):
        assert convert.confirmed_edit(edit, "Draft", "d", caps) == edit
