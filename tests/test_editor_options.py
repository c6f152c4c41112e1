"""The editor's settings (server/colosseum_lsp/options.py): typed, with a default for each. An
invalid value is reported once (window/showMessage, naming the option) and replaced by its
default; an unknown key is reported and ignored; ``null`` unsets. End to end over stdio, with the
settings sent as initializationOptions and then by workspace/didChangeConfiguration."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, initialize_params
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from server_session import _make_client, _open, _publication, _until, _write, FILES

from colosseum_lsp.options import Budget, EditorOptions, read_options

# a reference made by the author's own macro: a reference only when the settings say so
WRAPPED = "sections/wrapped.tex"
PROJECT = {**FILES, "main.tex": FILES["main.tex"].replace("\\input{sections/b}", "\\input{sections/b}\n\\input{sections/wrapped}"),
           WRAPPED: "See \\lemref{lem:nowhere}.\n"}  # defined in a package: known only from the settings
INITIAL = {"labelReferenceCommands": ["lemref"], "budget": 5, "reviewOnSave": "yes", "modle": "opus"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _write(tmp_path / "paper", PROJECT)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=_make_client))
async def client(lsp_client: LanguageClient, project: Path):
    params = initialize_params(project, client_capabilities("visual-studio-code"))
    params.initialization_options = INITIAL
    await lsp_client.initialize_session(params)
    lsp_client.project, lsp_client.versions = project, {}
    yield
    await lsp_client.shutdown_session()


def _nowhere(params: types.PublishDiagnosticsParams) -> bool:
    return any(d.code == "colosseum/undefined-reference" and "`lem:nowhere`" in d.message for d in params.diagnostics)


def _warnings(client: LanguageClient, option: str) -> list[str]:
    return [m.message for m in client.messages if m.type == types.MessageType.Warning and option in m.message]


async def test_invalid_settings_are_reported_once_and_replaced_by_their_defaults(client: LanguageClient):
    uri = _open(client, WRAPPED)
    # the valid option applies: \lemref is a reference, to a label that does not exist
    await _publication(client, uri, 0, _nowhere, "the wrapper's reference reported")
    # each invalid value and the unknown key: one warning naming it
    await _until(lambda: len(client.messages) >= 3, "the warnings about the settings")
    assert len(_warnings(client, "colosseum.budget must be a table")) == 1
    assert len(_warnings(client, "colosseum.reviewOnSave must be true or false")) == 1
    assert any("did you mean `model`" in m for m in _warnings(client, "colosseum.modle"))
    assert not _warnings(client, "labelReferenceCommands")

    # a change with an invalid wrapper list: its default (none) is used, so \lemref is no
    # reference any more and its finding goes away; the same problems are not told again
    mark, told = len(client.published), len(client.messages)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"colosseum": {"labelReferenceCommands": "lemref", "budget": 5}}))
    await _publication(client, uri, mark, lambda p: not _nowhere(p), "the wrapper's reference dropped")
    await _until(lambda: _warnings(client, "colosseum.labelReferenceCommands must be a list"), "the warning")
    assert len(client.messages) == told + 1  # budget: already told

    # a valid value again: the reference comes back, and nothing new is reported
    mark, told = len(client.published), len(client.messages)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"colosseum": {"labelReferenceCommands": ["\\lemref"], "budget": None}}))
    await _publication(client, uri, mark, _nowhere, "the wrapper's reference reported again")
    assert len(client.messages) == told


@pytest.mark.parametrize("raw, problem", [
    ({"model": ""}, "colosseum.model must be a model name"),
    ({"model": 3}, "colosseum.model must be a model name"),
    ({"budget": "seven"}, "colosseum.budget must be a table"),
    ({"budget": {"max_calls": "ten"}}, "colosseum.budget.max_calls must be a positive integer"),
    ({"budget": {"max_calls": 0}}, "colosseum.budget.max_calls must be a positive integer"),
    ({"budget": {"max_calls": True}}, "colosseum.budget.max_calls must be a positive integer"),
    ({"budget": {"max_usd": -1}}, "colosseum.budget.max_usd must be a number of dollars"),
    ({"budget": {"max_cals": 3}}, "colosseum.budget has unknown keys max_cals"),
    ({"labelDefinitionCommands": [3]}, "colosseum.labelDefinitionCommands must be a list of macro names"),
    ({"labelReferenceCommands": "ref"}, "colosseum.labelReferenceCommands must be a list of macro names"),
    ({"reviewOnSave": "true"}, "colosseum.reviewOnSave must be true or false"),
    ({"reviewOnsave": True}, "colosseum.reviewOnsave is not a setting of the server and is ignored (did you mean `reviewOnSave`?)"),
    ("all of it", "the colosseum settings must be an object"),
])
def test_each_invalid_value_names_its_option_and_gives_the_default(raw, problem):
    options, messages = read_options(raw)
    assert options == EditorOptions()
    assert len(messages) == 1 and messages[0].startswith(problem), messages


def test_valid_values_are_typed_and_null_means_unset():
    options, messages = read_options({"model": "claude-x", "budget": {"max_calls": 50, "max_usd": 2.5},
                                      "labelDefinitionCommands": ["\\lemlabel"], "labelReferenceCommands": ["lemref"],
                                      "reviewOnSave": True})
    assert messages == []
    assert options == EditorOptions("claude-x", Budget(50, 2.5), ("lemlabel",), ("lemref",), True)
    # the features read them in their wire form, as the settings object had them
    assert options.get("budget") == {"max_calls": 50, "max_usd": 2.5}
    assert options.get("labelReferenceCommands") == ["lemref"] and options.get("reviewOnSave") is True
    assert read_options({"model": None, "budget": None}) == (EditorOptions(), [])
    assert EditorOptions().get("budget") is None and EditorOptions().get("model") is None
