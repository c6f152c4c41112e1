"""Nothing that runs the project's code starts before the author trusts the folder (issue #16,
"Code run without trust"): `lake serve` elaborates lakefile.lean and may install a toolchain.
Trust comes only from outside the project: `--trust`, COLOSSEUM_TRUST=1, the editor's word
(initializationOptions ``trusted``) or ``trusted_folders`` in the user-level config; never from
colosseum.toml."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from lsp_session import initialize_params
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from doubles.lake_serve import install, read_log

EXAMPLE = Path(__file__).resolve().parents[2] / "example-project"
FINE = {"ExampleProject.edge_degree_bound": {"module": "ExampleProject.Basic", "axioms": ["propext"]}}
SECTION = Path("sections") / "local-structure.tex"


@pytest.fixture(autouse=True)
def no_user_config(tmp_path, monkeypatch):
    """No user-level config (or trust) of the person running the tests leaks in."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("COLOSSEUM_TRUST", raising=False)


def user_config(tmp_path: Path, text: str) -> None:
    path = tmp_path / "xdg" / "colosseum" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_nothing_trusts_a_folder_by_default(tmp_path):
    from colosseum.settings.trust import is_trusted

    trust = is_trusted(tmp_path)
    assert not trust and "--trust" in trust.reason and "COLOSSEUM_TRUST=1" in trust.reason


def test_each_way_from_outside_the_project_trusts_it(tmp_path, monkeypatch):
    from colosseum.settings.trust import is_trusted

    project = tmp_path / "papers" / "one"
    project.mkdir(parents=True)
    assert is_trusted(project, flag=True) and "--trust" in is_trusted(project, flag=True).reason
    assert is_trusted(project, editor_trusted=True)
    user_config(tmp_path, f'trusted_folders = ["{tmp_path / "papers"}"]\n')
    assert is_trusted(project), "a trusted folder trusts its subfolders"
    assert not is_trusted(tmp_path / "elsewhere")
    monkeypatch.setenv("COLOSSEUM_TRUST", "1")
    assert is_trusted(tmp_path / "elsewhere")


def test_the_editor_saying_no_is_not_overridden_by_the_editor_default(tmp_path):
    from colosseum.settings.trust import is_trusted

    assert not is_trusted(tmp_path, editor_trusted=False)
    assert not is_trusted(tmp_path, editor_trusted=None)


def test_a_trusted_folder_is_compared_after_symlinks(tmp_path):
    from colosseum.settings.trust import is_trusted

    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    user_config(tmp_path, f'trusted_folders = ["{tmp_path / "link"}"]\n')
    assert is_trusted(real)
    outside = tmp_path / "outside"
    outside.mkdir()
    (real / "escape").symlink_to(outside)
    assert not is_trusted(real / "escape"), "a symlink inside a trusted folder that leads out is not trusted"


def test_colosseum_toml_cannot_grant_trust(tmp_path):
    from colosseum.settings.trust import is_trusted

    (tmp_path / "colosseum.toml").write_text('trusted = true\ntrusted_folders = ["/"]\n[lean]\ntrusted = true\n')
    assert not is_trusted(tmp_path)


def test_a_bad_trusted_folders_value_is_a_problem_not_trust(tmp_path):
    from colosseum.settings.user import load_user_config

    user_config(tmp_path, 'trusted_folders = true\n')
    config = load_user_config()
    assert config.trusted_folders == () and any("trusted_folders" in p.message for p in config.problems)
    user_config(tmp_path, 'trusted_folders = ["relative/path"]\n')
    config = load_user_config()
    assert config.trusted_folders == () and config.problems


# --- the CLI: `colosseum lean` ------------------------------------------------------------------

def paper(tmp_path: Path) -> Path:
    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".colosseum"))
    return project


def lake_env(tmp_path: Path, **extra) -> tuple[dict, Path]:
    bin_dir = install(tmp_path / "double", {})
    log = tmp_path / "double" / "log.jsonl"
    (tmp_path / "double" / "lake-double-script.json").write_text(json.dumps({"declarations": FINE, "log": str(log)}))
    env = {k: v for k, v in os.environ.items() if k != "COLOSSEUM_TRUST"}
    env.update(PATH=f"{bin_dir}:{os.environ['PATH']}", HOME=str(tmp_path / "home"),
               XDG_CONFIG_HOME=str(tmp_path / "xdg"), **extra)
    return env, log


def lean_cli(project: Path, env: dict, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "colosseum", "lean", str(project), *extra], capture_output=True,
                          text=True, timeout=120, env=env)


def started(log: Path) -> bool:
    return log.exists() and any(e.get("event") == "start" for e in read_log(log))


def test_colosseum_lean_untrusted_exits_2_without_starting_lake(tmp_path):
    project = paper(tmp_path)
    (project / "colosseum.toml").write_text("[lean]\ncheck_on_save = true\n")
    env, log = lake_env(tmp_path)
    result = lean_cli(project, env)
    assert result.returncode == 2, result.stderr
    (line,) = [l for l in result.stderr.splitlines() if "trust" in l]
    assert "--trust" in line and "COLOSSEUM_TRUST=1" in line and "trusted_folders" in line
    assert not started(log)


@pytest.mark.parametrize("how", ["flag", "env", "user config"])
def test_colosseum_lean_trusted_starts_lake(tmp_path, how):
    project = paper(tmp_path)
    env, log = lake_env(tmp_path, **({"COLOSSEUM_TRUST": "1"} if how == "env" else {}))
    if how == "user config":
        user_config(tmp_path, f'trusted_folders = ["{project}"]\n')
    result = lean_cli(project, env, *(["--trust"] if how == "flag" else []), "--no-catalog")
    assert result.returncode == 0, result.stderr
    assert started(log)


# --- the server: check on save and colosseum.checkLean -------------------------------------------

DOUBLE = Path(tempfile.mkdtemp(prefix="lake-double-trust-"))
BIN = install(DOUBLE, {})
LOG = DOUBLE / "log.jsonl"
(DOUBLE / "lake-double-script.json").write_text(json.dumps({"declarations": FINE, "log": str(LOG)}))
SERVER_ENV = {**{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
              "PATH": f"{BIN}:{os.environ['PATH']}", "HOME": str(DOUBLE / "home"),
              "XDG_CONFIG_HOME": str(DOUBLE / "xdg")}


async def start_server(lsp_client: LanguageClient, tmp_path_factory, trusted) -> Path:
    project = tmp_path_factory.mktemp("ws") / "paper"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".colosseum"))
    params = initialize_params(project, client_capabilities("visual-studio-code"))
    params.initialization_options = {} if trusted is None else {"trusted": trusted}

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params):
        return None

    await lsp_client.initialize_session(params)
    lsp_client.project = project
    return project


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                                              server_env=SERVER_ENV))
async def untrusted(lsp_client: LanguageClient, tmp_path_factory):
    await start_server(lsp_client, tmp_path_factory, None)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                                              server_env=SERVER_ENV))
async def editor_trusted(lsp_client: LanguageClient, tmp_path_factory):
    await start_server(lsp_client, tmp_path_factory, True)
    yield
    await lsp_client.shutdown_session()


def open_and_save(client: LanguageClient) -> str:
    path = client.project / SECTION
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="latex", version=1, text=path.read_text())))
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    return uri


def starts_for(project: Path) -> list:
    return [e for e in read_log(LOG) if e.get("event") == "start"] if LOG.exists() else []


async def test_the_server_untrusted_starts_no_lake_and_says_so_once(untrusted: LanguageClient):
    client = untrusted
    before = len(starts_for(client.project))
    uri = open_and_save(client)
    summary = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.checkLean", arguments=[uri]))
    open_and_save(client)
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.checkLean", arguments=[uri]))
    assert summary["status"] == "untrusted", summary
    told = [m for m in client.messages if "trust" in m.message.lower()]
    assert len(told) == 1 and "COLOSSEUM_TRUST=1" in told[0].message and "trusted_folders" in told[0].message
    assert len(starts_for(client.project)) == before


async def test_the_server_trusted_by_the_editor_checks_on_save(editor_trusted: LanguageClient):
    client = editor_trusted
    before = len(starts_for(client.project))
    uri = open_and_save(client)
    summary = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.checkLean", arguments=[uri]))
    assert summary["status"] == "done" and summary["formal"] == 1, summary
    assert len(starts_for(client.project)) > before
