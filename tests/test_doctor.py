"""`colosseum doctor`: the table's rows, its exit codes on a machine lacking the tools (a PATH
holding none of them, in a subprocess), the live request (counted by the Messages API double) that
--offline leaves out, the key never printed, and the JSON's shape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from doubles.messages_api import MessagesAPIDouble

from colosseum import __version__
from colosseum.core.schema_version import SCHEMA_VERSION

REPO = Path(__file__).resolve().parent.parent
SECRET = "sk-ant-secret-never-printed"
ROWS = ("python", "colosseum.toml", "colosseum", "pygls", "lsprotocol", "anthropic", "leanclient", "extra [models]",
        "extra [lean]",
        "API key", "API request", "lake", "elan", "lean-toolchain", "trusted folder", "bubblewrap", "latexmk",
        "graphviz dot", "VS Code extension", "Neovim plugin")


def doctor(tmp_path: Path, project: Path, *args: str, path_dirs: str | None = None, **env: str):
    """`colosseum doctor project args` in a subprocess: its user config in tmp_path, no trust from
    the environment, and PATH as given (an empty folder: none of the tools)."""
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    environ = {key: value for key, value in os.environ.items()
               if key not in ("COLOSSEUM_TRUST", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    environ.update(PATH=path_dirs if path_dirs is not None else str(empty), XDG_CONFIG_HOME=str(tmp_path / "xdg"),
                   PYTHONPATH=os.pathsep.join((str(REPO), str(REPO / "server"))), **env)
    done = subprocess.run([sys.executable, "-m", "colosseum", "doctor", str(project), *args], capture_output=True,
                          text=True, env=environ, cwd=tmp_path, timeout=120)
    return done.returncode, done.stdout, done.stderr


def paper(tmp_path: Path, settings: str = "") -> Path:
    project = tmp_path / "paper"
    project.mkdir(exist_ok=True)
    (project / "main.tex").write_text("\\documentclass{article}\\begin{document}x\\end{document}\n")
    if settings:
        (project / "colosseum.toml").write_text(settings)
    return project


def test_the_table_has_every_row_and_a_project_using_nothing_optional_is_ready(tmp_path):
    code, out, err = doctor(tmp_path, paper(tmp_path), "--offline")
    assert code == 0, out + err
    names = [line.split("  ")[0].strip() for line in out.splitlines()]
    for row in ROWS:
        assert row in names, (row, out)
    assert "lake" in out and "not found on PATH" in out  # the empty PATH
    assert out.rstrip().endswith("ready")


def test_a_project_using_lean_is_not_ready_without_lake_elan_or_trust(tmp_path):
    code, out, _ = doctor(tmp_path, paper(tmp_path, "[lean]\ntime_limit = 60\n"), "--offline", "--format", "json")
    assert code == 1
    report = json.loads(out)
    rows = {row["name"]: row for row in report["checks"]}
    assert report["ready"] is False
    for name in ("lake", "elan", "trusted folder"):
        assert rows[name]["needed"] and rows[name]["state"] == "missing", rows[name]
        assert rows[name]["fix"]
    # trusted from outside the project, and with lake and elan on PATH (stand-ins), only the
    # toolchain is left: the project names no Lean project
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("lake", "elan"):
        (bin_dir / tool).write_text(f"#!/bin/sh\necho '{tool} version 5.0.0'\n")
        (bin_dir / tool).chmod(0o755)
    code, out, _ = doctor(tmp_path, paper(tmp_path), "--offline", "--format", "json", path_dirs=str(bin_dir),
                          COLOSSEUM_TRUST="1")
    rows = {row["name"]: row for row in json.loads(out)["checks"]}
    assert rows["lake"]["state"] == "ok" and rows["lake"]["detail"] == "lake version 5.0.0"
    assert rows["trusted folder"]["state"] == "ok"
    assert [name for name, row in rows.items() if row["state"] == "missing" and row["needed"]] == ["lean-toolchain"]
    assert code == 1


def test_a_project_using_models_needs_the_key(tmp_path):
    project = paper(tmp_path, "[models]\nmodel = \"claude-x\"\n")
    code, out, _ = doctor(tmp_path, project, "--offline", "--format", "json")
    rows = {row["name"]: row for row in json.loads(out)["checks"]}
    assert code == 1 and rows["API key"]["state"] == "missing" and rows["API key"]["needed"]
    code, out, _ = doctor(tmp_path, paper(tmp_path), "--offline", "--format", "json", ANTHROPIC_API_KEY=SECRET,
                          path_dirs="")
    assert code == 0 and SECRET not in out


def test_offline_makes_no_request_and_online_makes_one_count_tokens(tmp_path):
    project = paper(tmp_path, "[models]\nmodel = \"claude-doctor\"\n")
    with MessagesAPIDouble([]) as api:
        code, out, err = doctor(tmp_path, project, "--offline", ANTHROPIC_API_KEY=SECRET, ANTHROPIC_BASE_URL=api.url)
        assert code == 0, out + err
        assert api.count_requests == [] and api.requests == []
        code, out, err = doctor(tmp_path, project, ANTHROPIC_API_KEY=SECRET, ANTHROPIC_BASE_URL=api.url)
        assert code == 0, out + err
        assert len(api.count_requests) == 1 and api.requests == []  # free: no message is generated
        assert api.count_requests[0]["model"] == "claude-doctor"
        assert "count_tokens answered for claude-doctor" in out
        assert SECRET not in out + err
        # a refused request is a failed row, and the project that uses models is not ready
        api.count_script.append((401, {"type": "error", "error": {"type": "authentication_error",
                                                                   "message": "invalid x-api-key"}}, {}))
        code, out, _ = doctor(tmp_path, project, "--format", "json", ANTHROPIC_API_KEY=SECRET,
                              ANTHROPIC_BASE_URL=api.url)
    rows = {row["name"]: row for row in json.loads(out)["checks"]}
    assert code == 1 and rows["API request"]["state"] == "failed"
    assert "invalid x-api-key" in rows["API request"]["detail"]
    assert SECRET not in out


def test_json_shape_and_bad_input(tmp_path):
    code, out, _ = doctor(tmp_path, paper(tmp_path), "--offline", "--format", "json")
    report = json.loads(out)
    assert list(report)[0] == "schema_version" and report["schema_version"] == SCHEMA_VERSION
    assert report["version"] == __version__ and report["ready"] is True and code == 0
    for row in report["checks"]:
        assert set(row) == {"name", "state", "detail", "fix", "needed"}
        assert row["state"] in ("ok", "missing", "failed", "skipped", "warning")
    code, _, err = doctor(tmp_path, tmp_path / "nowhere", "--offline")
    assert code == 2 and "no such folder" in err


def test_an_editor_client_of_another_minor_version_says_what_to_upgrade():
    from colosseum.app.doctor import client_check

    assert client_check("Neovim plugin", __version__, "x").state == "ok"
    major, minor = __version__.split(".")[:2]
    newer = client_check("Neovim plugin", f"{major}.{int(minor) + 1}.0", "update the plugin")
    assert newer.state == "warning" and "pipx upgrade colosseum-latex" in newer.fix and __version__ in newer.detail
    older = client_check("Neovim plugin", f"{int(major) - 1}.9.0" if int(major) else "0.0.1", "update the plugin")
    assert older.state == "warning" and older.fix == "update the plugin"
    assert client_check("Neovim plugin", f"{major}.{minor}.99", "x").state == "ok"
    assert client_check("VS Code extension", None, "x").state == "skipped"


def test_the_installed_editor_clients_are_found_and_compared(tmp_path):
    """The Neovim plugin on the user's runtimepath (their init.lua) and a VS Code whose extension
    list holds an older extension (a stand-in `code`): the first fits, the second is a warning
    saying what to update."""
    import shutil

    import pytest

    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("nvim is not installed (Debian: apt-get install neovim)")
    init = tmp_path / "xdg" / "nvim" / "init.lua"
    init.parent.mkdir(parents=True)
    init.write_text(f'vim.opt.runtimepath:prepend("{REPO / "editor-clients" / "neovim"}")\n')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvim").symlink_to(nvim)
    (bin_dir / "code").write_text('#!/bin/sh\necho ms-python.python@2025.1.0\necho colosseum.colosseum-latex@0.0.9\n')
    (bin_dir / "code").chmod(0o755)
    code, out, err = doctor(tmp_path, paper(tmp_path), "--offline", "--format", "json", path_dirs=str(bin_dir),
                            XDG_DATA_HOME=str(tmp_path / "data"), XDG_STATE_HOME=str(tmp_path / "state"))
    rows = {row["name"]: row for row in json.loads(out)["checks"]}
    assert rows["Neovim plugin"]["state"] == "ok" and rows["Neovim plugin"]["detail"] == __version__, err
    vscode = rows["VS Code extension"]
    assert vscode["state"] == "warning" and vscode["detail"] == f"0.0.9, the server is {__version__}"
    assert "update the Colosseum extension" in vscode["fix"]
    assert code == 0  # a client's version is advice: nothing the project's settings use


def test_the_settings_row_and_a_lean_project_found_in_the_folder(tmp_path):
    project = paper(tmp_path, "[index]\nexclude = [\"old/**\"]\nsolv = 1\n")
    code, out, _ = doctor(tmp_path, project, "--offline", "--format", "json")
    rows = {row["name"]: row for row in json.loads(out)["checks"]}
    assert rows["colosseum.toml"]["state"] == "warning" and "solv" in rows["colosseum.toml"]["detail"]
    assert code == 0  # an unknown key is a warning
    (project / "colosseum.toml").write_text("[models\n")
    code, out, _ = doctor(tmp_path, project, "--offline", "--format", "json")
    rows = {row["name"]: row for row in json.loads(out)["checks"]}
    assert rows["colosseum.toml"]["state"] == "failed" and "not valid TOML" in rows["colosseum.toml"]["detail"]
    assert code == 1
    # no settings, but a Lean project beside the paper: the Lean check would run, so its tools are used
    (project / "colosseum.toml").unlink()
    lean = project / "lean"
    lean.mkdir()
    (lean / "lakefile.toml").write_text('name = "paper"\n')
    (lean / "lean-toolchain").write_text("leanprover/lean4:v4.15.0\n")
    code, out, _ = doctor(tmp_path, project, "--offline", "--format", "json")
    rows = {row["name"]: row for row in json.loads(out)["checks"]}
    assert rows["colosseum.toml"]["state"] == "skipped"
    assert rows["lean-toolchain"] == {"name": "lean-toolchain", "state": "ok", "detail": "leanprover/lean4:v4.15.0",
                                      "fix": "", "needed": True}
    assert rows["lake"]["needed"] and rows["lake"]["state"] == "missing" and code == 1
    # with elan: whether it has the toolchain already (else the first check downloads it)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    elan = bin_dir / "elan"
    elan.write_text('#!/bin/sh\n[ "$1" = toolchain ] && echo "leanprover/lean4:v4.9.0 (default)"; echo elan 4.0.0\n')
    elan.chmod(0o755)
    _, out, _ = doctor(tmp_path, project, "--offline", "--format", "json", path_dirs=str(bin_dir))
    row = {row["name"]: row for row in json.loads(out)["checks"]}["lean-toolchain"]
    assert row["state"] == "warning" and row["fix"] == "elan toolchain install leanprover/lean4:v4.15.0"
    elan.write_text('#!/bin/sh\n[ "$1" = toolchain ] && echo "leanprover/lean4:v4.15.0"; echo elan 4.0.0\n')
    _, out, _ = doctor(tmp_path, project, "--offline", "--format", "json", path_dirs=str(bin_dir))
    row = {row["name"]: row for row in json.loads(out)["checks"]}["lean-toolchain"]
    assert row["state"] == "ok" and row["detail"] == "leanprover/lean4:v4.15.0 (installed)"
