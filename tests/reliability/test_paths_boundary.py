"""The project folder is the boundary of every read and write (issue #16, "Reads outside the
project"): symbolic links, configured roots and the catalog path that lead outside it are reported
once as ``colosseum/path-outside-project`` and not followed; only read-only paths that the user's
own config (``$XDG_CONFIG_HOME/colosseum/config.toml``) lists may be read from outside."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from colosseum.cli.main import main
from colosseum.index import ProjectIndex
from catalog_files import written_entry

OUTSIDE = "colosseum/path-outside-project"


def doc(body: str) -> str:
    return ("\\documentclass{article}\n\\usepackage{amsthm}\n\\newtheorem{lemma}{Lemma}\n"
            "\\begin{document}\n" + body + "\n\\end{document}\n")


def lemma(label: str) -> str:
    return f"\\begin{{lemma}}\\label{{{label}}}Statement.\\end{{lemma}}\n"


@pytest.fixture(autouse=True)
def no_user_config(tmp_path, monkeypatch):
    """No user-level config of the person running the tests leaks in."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def check_json(capsys, root: Path) -> list[dict]:
    _, out, _ = run(capsys, "check", str(root), "--format", "json")
    return json.loads(out)["diagnostics"]


@pytest.fixture
def linked(make_project, tmp_path) -> Path:
    """A project with a .tex file and a folder that are symbolic links to a paper outside it."""
    make_project(tmp_path / "outside", {"secret.tex": doc(lemma("lem:secret")),
                                        "dir/other.tex": doc(lemma("lem:other")),
                                        "dir/part.tex": lemma("lem:part")})
    root = make_project(tmp_path / "proj", {"main.tex": doc(lemma("lem:main") + "See \\cref{lem:main}.")})
    os.symlink(tmp_path / "outside" / "secret.tex", root / "linked.tex")
    os.symlink(tmp_path / "outside" / "dir", root / "linkdir", target_is_directory=True)
    return root


# ---- symbolic links ------------------------------------------------------------------------------

def test_symlinks_out_of_the_project_are_not_read_by_check_or_dag(linked, capsys):
    records = check_json(capsys, linked)
    outside = [r for r in records if r["code"] == OUTSIDE]
    assert sorted(r["file"] for r in outside) == ["linkdir", "linked.tex"]  # once each, naming the link
    assert all("secret" not in r["file"] and "other" not in r["file"] for r in records)
    _, out, _ = run(capsys, "dag", str(linked), "--format", "json")
    ids = {n["id"] for n in json.loads(out)["nodes"]}
    assert "lem:main" in ids
    assert not ids & {"lem:secret", "lem:other", "lem:part"}


def test_symlinks_out_of_the_project_give_no_claims_to_the_index(linked):
    index = ProjectIndex.open(linked)
    assert set(index.claims) == {"lem:main"}
    assert all(p.is_relative_to(linked) for p in index.files())
    found = [d for d in index.diagnostics() if d.code == OUTSIDE]
    assert sorted(d.file.name for d in found) == ["linkdir", "linked.tex"]


def test_a_symlink_that_stays_inside_the_project_is_followed(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": doc("\\input{alias}\n\\input{more/b}"),
                                   "real/a.tex": lemma("lem:a"), "real/b.tex": lemma("lem:b")})
    os.symlink(root / "real" / "a.tex", root / "alias.tex")
    os.symlink(root / "real", root / "more", target_is_directory=True)
    index = ProjectIndex.open(root)
    assert {"lem:a", "lem:b"} <= set(index.claims)
    assert not [d for d in index.diagnostics() if d.code == OUTSIDE]


def test_an_input_outside_the_project_has_the_contract_code(make_project, tmp_path):
    make_project(tmp_path / "outside", {"x.tex": lemma("lem:x")})
    root = make_project(tmp_path / "proj", {"main.tex": doc("\\input{../outside/x}")})
    index = ProjectIndex.open(root)
    assert "lem:x" not in index.claims
    (found,) = [d for d in index.diagnostics() if d.code == OUTSIDE]
    assert found.file == root / "main.tex"


# ---- `% !TEX root` ---------------------------------------------------------------------------------

@pytest.fixture
def part_naming_an_outside_root(make_project, tmp_path) -> Path:
    """A project whose part says its root is a paper outside the project folder."""
    make_project(tmp_path / "outside", {"main.tex": doc("\\input{secret}"), "secret.tex": lemma("lem:secret")})
    root = make_project(tmp_path / "proj", {"main.tex": doc("\\input{part}"), "colosseum.toml": "",
                                            "part.tex": "% !TEX root = ../outside/main.tex\n" + lemma("lem:part")})
    return root


def test_check_of_a_part_does_not_follow_a_tex_root_outside_the_project(part_naming_an_outside_root, capsys):
    part = part_naming_an_outside_root / "part.tex"
    code, out, err = run(capsys, "check", str(part), "--format", "json")
    records = json.loads(out)["diagnostics"]
    assert "is part of" not in err  # the outside root was not opened
    assert all("secret" not in r["file"] and "secret" not in r["message"] for r in records)
    (found,) = [r for r in records if r["code"] == OUTSIDE]
    assert found["file"] == "part.tex" and found["line"] == 1 and "not followed" in found["message"]


def test_check_of_the_folder_reports_the_outside_tex_root_once(part_naming_an_outside_root, capsys):
    records = check_json(capsys, part_naming_an_outside_root)
    assert [r["file"] for r in records if r["code"] == OUTSIDE] == ["part.tex"]
    assert all("secret" not in r["file"] for r in records)


def test_without_a_colosseum_toml_a_tex_root_elsewhere_on_the_disk_is_not_followed(make_project, tmp_path,
                                                                                     capsys):
    make_project(tmp_path / "other", {"main.tex": doc("\\input{secret}"), "secret.tex": lemma("lem:secret")})
    root = make_project(tmp_path / "paper", {"main.tex": doc("\\input{ch/part}"),
                                             "ch/part.tex": "% !TEX root = ../../other/main.tex\n" + lemma("lem:p")})
    code, out, err = run(capsys, "check", str(root / "ch" / "part.tex"), "--format", "json")
    records = json.loads(out)["diagnostics"]
    assert "is part of" not in err and all("secret" not in r["file"] for r in records)
    assert [r["code"] for r in records].count(OUTSIDE) == 1


def test_a_tex_root_inside_the_project_is_still_followed(make_project, tmp_path):
    from colosseum.app.project import project_path
    from colosseum.project.files import project_folder

    root = make_project(tmp_path / "proj", {"main.tex": doc("\\input{sub/part}"), "colosseum.toml": "",
                                            "sub/part.tex": "% !TEX root = ../main.tex\n" + lemma("lem:part")})
    said = []
    assert project_path(root / "sub" / "part.tex", said.append) == (root / "main.tex").resolve()
    assert said and "is part of" in said[0]
    assert project_folder(root / "sub" / "part.tex") == root.resolve() and project_folder(root) == root.resolve()


# ---- colosseum.toml --------------------------------------------------------------------------------

@pytest.mark.parametrize("setting, line", [
    ('root = "../x.tex"', 1),
    ('roots = ["ABS"]', 1),
    ('[catalog]\npath = "../x"', 2),
])
def test_paths_in_colosseum_toml_that_lead_outside_are_refused_on_their_line(make_project, tmp_path, capsys,
                                                                              setting, line):
    make_project(tmp_path, {"x.tex": doc(lemma("lem:far"))})
    setting = setting.replace("ABS", str(tmp_path / "x.tex"))
    root = make_project(tmp_path / "proj", {"main.tex": doc(lemma("lem:near") + "\\cref{lem:near}"),
                                            "colosseum.toml": "# settings\n" + setting + "\n"})
    records = check_json(capsys, root)
    (found,) = [r for r in records if r["code"] == OUTSIDE]
    assert (found["file"], found["line"]) == ("colosseum.toml", line + 1)
    _, out, _ = run(capsys, "dag", str(root), "--format", "json")
    assert {n["id"] for n in json.loads(out)["nodes"]} == {"lem:near"}


def test_a_catalog_path_outside_falls_back_to_the_default_catalog(make_project, tmp_path):
    from colosseum.app.knowledge import catalog_directory

    root = make_project(tmp_path / "proj", {"main.tex": doc(lemma("lem:near")),
                                            "colosseum.toml": '[catalog]\npath = "../x"\n'})
    assert catalog_directory(root) == root / "knowledge"
    os.symlink(tmp_path, root / "kb", target_is_directory=True)  # a link out, resolved after symlinks
    (root / "colosseum.toml").write_text('[catalog]\npath = "kb/cat"\n')
    assert catalog_directory(root) == root / "knowledge"
    (root / "colosseum.toml").write_text('[catalog]\npath = "notes/cat"\n')  # inside: kept
    assert catalog_directory(root) == root / "notes" / "cat"


def test_knowledge_add_never_writes_outside_the_project(make_project, tmp_path):
    root = make_project(tmp_path / "proj", {"main.tex": doc(lemma("lem:near")),
                                            "colosseum.toml": '[catalog]\npath = "../x"\n'})
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    run = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "add", str(root), "lem:near"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "x").exists()
    assert written_entry(root / "knowledge", "lem-near").is_file()


# ---- the user's read-only allow list ---------------------------------------------------------------

def test_read_only_paths_of_the_user_config_are_read_and_others_refused(make_project, tmp_path, monkeypatch):
    shared = make_project(tmp_path / "shared", {"allowed.tex": lemma("lem:allowed"),
                                                "refused.tex": lemma("lem:refused")})
    make_project(tmp_path / "xdg", {"colosseum/config.toml":
                                    f'read_only_paths = ["{shared / "allowed.tex"}"]\n'})
    root = make_project(tmp_path / "proj", {"main.tex": doc(
        f"\\input{{{shared / 'allowed'}}}\n\\input{{{shared / 'refused'}}}")})
    index = ProjectIndex.open(root)
    assert "lem:allowed" in index.claims
    assert "lem:refused" not in index.claims
    assert len([d for d in index.diagnostics() if d.code == OUTSIDE]) == 1


def test_the_user_config_is_typed_and_reports_unknown_keys(tmp_path):
    from colosseum.settings.user import load_user_config

    make_dir = tmp_path / "xdg" / "colosseum"
    make_dir.mkdir(parents=True)
    (make_dir / "config.toml").write_text('read_only_paths = ["/srv/bib/refs.bib"]\nread_only_path = []\n')
    config = load_user_config({"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert config.read_only_paths == (Path("/srv/bib/refs.bib"),)
    (problem,) = config.problems
    assert problem.code == "config-unknown-key" and problem.line == 1 and "read_only_paths" in problem.message
    home = load_user_config({"HOME": str(tmp_path / "home")})
    assert home.path == tmp_path / "home" / ".config" / "colosseum" / "config.toml"
    assert home.read_only_paths == ()


# ---- the server's workspace boundary ---------------------------------------------------------------

def test_a_second_initialize_does_not_widen_the_servers_boundary(make_project, tmp_path):
    from lsprotocol import types
    from pytest_lsp import ClientServerConfig, client_capabilities

    workspace = make_project(tmp_path / "ws", {"main.tex": doc(lemma("lem:ws"))})
    stray = make_project(tmp_path / "stray", {"main.tex": doc(lemma("lem:stray"))})

    async def session():
        config = ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                                    server_env={k: v for k, v in os.environ.items()
                                                if not k.startswith("ANTHROPIC_")})
        client = await config.start()
        caps = client_capabilities("visual-studio-code")
        await client.initialize_session(types.InitializeParams(
            capabilities=caps, root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")]))
        try:
            await client.protocol.send_request_async(types.INITIALIZE, types.InitializeParams(capabilities=caps))
        except Exception:  # noqa: BLE001 - refusing the second initialize is fine too
            pass
        uri = (stray / "main.tex").as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="latex", version=1, text=(stray / "main.tex").read_text())))
        symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        inside = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
            text_document=types.TextDocumentIdentifier(uri=(workspace / "main.tex").as_uri())))
        await client.shutdown_session()
        return symbols, inside

    symbols, inside = asyncio.run(asyncio.wait_for(session(), 60))
    assert inside, "the workspace itself is served"
    assert not symbols, "a file outside the first workspace is not served"


def test_knowledge_add_refuses_a_catalog_folder_that_links_outside(make_project, tmp_path):
    root = make_project(tmp_path / "proj", {"main.tex": doc(lemma("lem:near"))})
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "knowledge", target_is_directory=True)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    run = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "add", str(root), "lem:near"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 2 and "outside the project" in run.stderr
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_the_servers_outline_and_completion_show_nothing_read_through_a_link_out(linked):
    from lsprotocol import types
    from pytest_lsp import ClientServerConfig, client_capabilities

    async def outline(uri: str, client) -> list:
        return await client.text_document_document_symbol_async(types.DocumentSymbolParams(
            text_document=types.TextDocumentIdentifier(uri=uri))) or []

    async def session():
        config = ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                                    server_env={k: v for k, v in os.environ.items()
                                                if not k.startswith("ANTHROPIC_")})
        client = await config.start()
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=linked.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=linked.as_uri(), name="paper")]))
        found = {}
        for name in ("main.tex", "linked.tex", "linkdir/other.tex"):
            uri = (linked / name).as_uri()
            client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
                uri=uri, language_id="latex", version=1, text=(linked / name).read_text())))
            found[name] = [s.name for s in await outline(uri, client)]
        offered = await client.text_document_completion_async(types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=(linked / "main.tex").as_uri()),
            position=types.Position(line=5, character=len("See \\cref{"))))
        items = offered.items if isinstance(offered, types.CompletionList) else offered or []
        found["labels"] = [item.label for item in items]
        await client.shutdown_session()
        return found

    found = asyncio.run(asyncio.wait_for(session(), 60))
    assert any("lem:main" in name for name in found["main.tex"])
    assert found["linked.tex"] == [] and found["linkdir/other.tex"] == []
    assert "lem:main" in found["labels"]  # the labels \cref offers: none read through a link out
    assert not {"lem:secret", "lem:other", "lem:part"} & set(found["labels"])


def test_a_catalog_folder_that_links_outside_stops_no_check_and_refuses_a_solve(make_project, tmp_path, capsys):
    """check reads the paper and says the catalog is not read; a solve, which would read and write
    the catalog, refuses before any call with exit 2 and the reason, never a traceback."""
    root = make_project(tmp_path / "proj", {"main.tex": doc(
        "% colosseum: obligation\n\\begin{lemma}\\label{lem:owed}Statement.\\end{lemma}\n")})
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "knowledge", target_is_directory=True)
    code, out, err = run(capsys, "check", str(root))
    assert code == 0 and "lem:owed" in out and "1 claim, 0 sections" in err and "catalog is not read" in err
    code, out, err = run(capsys, "solve", str(root), "--label", "lem:owed", "--dry-run")
    assert code == 2 and "outside the project" in err and "Traceback" not in err
    assert list((tmp_path / "elsewhere").iterdir()) == []


# ---- reported once per path per run -----------------------------------------------------------------

def test_an_input_outside_written_in_several_places_is_reported_once_at_its_first(make_project, tmp_path):
    make_project(tmp_path / "outside", {"x.tex": lemma("lem:x"), "y.tex": lemma("lem:y")})
    root = make_project(tmp_path / "proj", {
        "main.tex": doc("\\input{../outside/x}\n\\input{part}\n\\input{../outside/x}\n\\input{../outside/y}"),
        "part.tex": "\\input{../outside/x}\n"})
    index = ProjectIndex.open(root)
    found = sorted((d for d in index.diagnostics() if d.code == OUTSIDE), key=lambda d: d.sort_key())
    assert len(found) == 2  # x once, y once
    first = found[0]
    assert first.file == root / "main.tex" and first.range.start.line == 4
    assert "x" in first.message and "also included at 2 other places" in first.message
    assert "other places" not in found[1].message and "y" in found[1].message


# ---- the user's own config: its problems are shown ---------------------------------------------------

def test_check_shows_the_problems_of_the_user_config_on_its_lines(make_project, tmp_path, capsys):
    xdg = make_project(tmp_path / "xdg", {"colosseum/config.toml": 'read_only_paths = []\nread_only_path = []\n'})
    root = make_project(tmp_path / "proj", {"main.tex": doc(lemma("lem:near") + "\\cref{lem:near}")})
    code, out, _ = run(capsys, "check", str(root), "--format", "json")
    (found,) = [r for r in json.loads(out)["diagnostics"] if r["code"] == "colosseum/config-unknown-key"]
    assert found["file"] == (xdg / "colosseum" / "config.toml").as_posix() and found["line"] == 2
    assert "read_only_paths" in found["message"] and found["severity"] == "warning"
    assert code == 0
    (xdg / "colosseum" / "config.toml").write_text("read_only_paths = [\n")
    code, out, _ = run(capsys, "check", str(root))
    assert "config.toml" in out and "colosseum/config-error" in out and code == 1


def test_the_server_names_the_user_config_problems_in_one_message(make_project, tmp_path):
    from lsprotocol import types
    from pytest_lsp import ClientServerConfig, client_capabilities

    make_project(tmp_path / "xdg", {"colosseum/config.toml": 'read_only_paths = []\nread_only_path = []\n'})
    workspace = make_project(tmp_path / "ws", {"main.tex": doc(lemma("lem:ws"))})

    async def session():
        config = ClientServerConfig(server_command=[sys.executable, "-m", "colosseum", "serve"],
                                    server_env={**{k: v for k, v in os.environ.items()
                                                   if not k.startswith("ANTHROPIC_")},
                                                "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
        client = await config.start()
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")]))
        await client.text_document_document_symbol_async(types.DocumentSymbolParams(
            text_document=types.TextDocumentIdentifier(uri=(workspace / "main.tex").as_uri())))
        shown = [m for m in client.messages if "config.toml" in m.message]
        await client.shutdown_session()
        return shown

    shown = asyncio.run(asyncio.wait_for(session(), 60))
    assert len(shown) == 1 and shown[0].type == types.MessageType.Warning
    assert "config.toml:2" in shown[0].message and "read_only_paths" in shown[0].message
