"""The VS Code extension shows the Lean-not-found message once per install by recognising its text
(editor-clients/vscode/src/serverMessages.ts): both texts the server sends must match its pattern."""

from __future__ import annotations

import re
from pathlib import Path

from colosseum.lean import project as lean_project

SOURCE = Path(__file__).resolve().parent.parent / "editor-clients" / "vscode" / "src" / "serverMessages.ts"


def _pattern() -> re.Pattern:
    found = re.search(r"return /(.+)/\.test\(message\)", SOURCE.read_text(encoding="utf-8"))
    assert found, "isLeanNotFound's pattern"
    return re.compile(found.group(1))


def test_both_lean_not_found_texts_match_the_extensions_pattern(tmp_path, monkeypatch):
    monkeypatch.setattr(lean_project.shutil, "which", lambda name: None)
    monkeypatch.setattr(lean_project.Path, "home", classmethod(lambda cls: tmp_path))
    texts = [lean_project.lake_status().problem]
    lake = tmp_path / ".elan" / "bin" / "lake"
    lake.parent.mkdir(parents=True)
    lake.write_text("#!/bin/sh\n")
    lake.chmod(0o755)
    texts.append(lean_project.lake_status().problem)
    assert texts[0] != texts[1]
    for text in texts:  # as features/lean.py sends it
        assert _pattern().search(f"Colosseum: Lean: {text}"), text
    assert not _pattern().search("Colosseum: Lean: the project does not build")
