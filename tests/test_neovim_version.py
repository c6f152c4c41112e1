"""The version handshake in the Neovim plugin (tests/neovim/version_spec.lua), in a headless Neovim
against the real server: the server's serverInfo version reaches the plugin; the same version says
nothing; a plugin of another minor version warns which side to upgrade, with the command. Runs
under each Neovim test_neovim_client finds."""

from __future__ import annotations

import json
import sys

from test_neovim_client import MINIMAL_INIT, REPO, lsp_log, nvim, nvim_env, run_nvim  # noqa: F401 (fixture)

from colosseum import __version__

SPEC = REPO / "tests" / "neovim" / "version_spec.lua"
EXAMPLE_MAIN = REPO / "example-project" / "main.tex"


def handshake(nvim, tmp_path, plugin_version: str = "") -> dict:
    out = tmp_path / "report.json"
    env = nvim_env(tmp_path, COLOSSEUM_NVIM_OUT=str(out), COLOSSEUM_NVIM_FILE=str(EXAMPLE_MAIN),
                   COLOSSEUM_NVIM_CMD=json.dumps([sys.executable, "-m", "colosseum", "serve"]),
                   COLOSSEUM_NVIM_PLUGIN_VERSION=plugin_version)
    env = {k: v for k, v in env.items() if not k.startswith("ANTHROPIC_")}
    code, _, stderr = run_nvim(nvim, ["--headless", "-u", str(MINIMAL_INIT.relative_to(REPO)),
                                      "-c", f"luafile {SPEC.relative_to(REPO)}"], env)
    report = json.loads(out.read_text()) if out.exists() else None
    assert code == 0 and report and report["ok"], f"exit {code}\n{report}\n{stderr}\n{lsp_log(tmp_path)}"
    return report


def test_the_plugin_takes_the_server_version_and_stays_quiet_when_they_fit(nvim, tmp_path):
    report = handshake(nvim, tmp_path)
    assert report["plugin_version"] == __version__
    assert report["initialized"] is True and report["server_version"] == __version__
    assert report.get("message") is None and report["notes"] == []
    # the comparison itself: patch releases fit; otherwise the older side is named
    assert report["same_minor_fits"] is True
    assert "upgrade the server: pipx upgrade colosseum-latex" in report["older_server"]
    assert "upgrade the plugin" in report["newer_server"]
    assert "did not report its version" in report["no_version"]


def test_a_plugin_of_another_minor_version_warns_what_to_upgrade(nvim, tmp_path):
    major, minor = __version__.split(".")[:2]
    newer_plugin = f"{major}.{int(minor) + 1}.0"
    report = handshake(nvim, tmp_path, newer_plugin)
    expected = f"the language server is {__version__} and this plugin is {newer_plugin}: upgrade the server"
    assert expected in report["message"]
    warnings = [note for note in report["notes"] if expected in note["msg"]]
    assert warnings and warnings[0]["level"] == 3 and warnings[0]["msg"].startswith("Colosseum: ")  # WARN
