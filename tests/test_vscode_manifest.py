"""The VS Code extension's manifest names its repository (issue 17): the Marketplace and `vsce`
link to it, and packaging needs no `--allow-missing-repository`."""

from __future__ import annotations

import json
from pathlib import Path

MANIFEST = Path(__file__).resolve().parent.parent / "editor-clients" / "vscode" / "package.json"


def test_the_manifest_names_the_repository_and_the_extensions_folder_in_it():
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    repository = manifest["repository"]
    assert repository["type"] == "git" and repository["url"].startswith("https://")
    assert repository["directory"] == "editor-clients/vscode"
    assert "--allow-missing-repository" not in manifest["scripts"]["package"]
