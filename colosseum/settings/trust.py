"""Whether the author trusts a project folder: the one decision every feature that runs the
project's code asks first (``lake serve`` elaborates lakefile.lean and may install the toolchain
that lean-toolchain names). Trust comes only from outside the project: the CLI's ``--trust``,
``COLOSSEUM_TRUST=1``, the editor's word (VS Code's workspace trust, Neovim's ``trusted`` option)
or ``trusted_folders`` in the user-level config. Nothing in colosseum.toml can grant it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from colosseum.settings.boundary import resolved
from colosseum.settings.user import load_user_config

TRUST_ENV = "COLOSSEUM_TRUST"
HOW_TO_TRUST = (f"pass --trust, set {TRUST_ENV}=1, trust the folder in the editor, or list it in trusted_folders "
                "in ~/.config/colosseum/config.toml")


@dataclass(frozen=True, slots=True)
class Trust:
    """The decision and why: what granted it, or how to grant it."""

    trusted: bool
    reason: str

    def __bool__(self) -> bool:
        return self.trusted


def is_trusted(project_dir, *, flag: bool = False, editor_trusted: bool | None = None, environ=None) -> Trust:
    """Trusted by the CLI flag, the environment, the editor, or a trusted folder holding the
    project (compared after symbolic links, so a link inside a trusted folder that leads out of
    it does not carry the trust along)."""
    environ = os.environ if environ is None else environ
    if flag:
        return Trust(True, "trusted by --trust")
    if environ.get(TRUST_ENV, "").strip() == "1":
        return Trust(True, f"trusted by {TRUST_ENV}=1")
    if editor_trusted is True:
        return Trust(True, "trusted by the editor")
    folder = _trusted_folder_holding(Path(project_dir), environ)
    if folder is not None:
        return Trust(True, f"trusted by trusted_folders ({folder})")
    return Trust(False, f"the folder is not trusted, so no Lean is run: {HOW_TO_TRUST}")


def _trusted_folder_holding(project_dir: Path, environ) -> Path | None:
    folders = load_user_config(environ).trusted_folders
    if not folders:
        return None
    project = resolved(project_dir)
    return next((folder for folder in folders if project == folder or folder in project.parents), None)
