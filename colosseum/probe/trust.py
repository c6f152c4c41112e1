"""Probes run code the model wrote, with the files of the project they are handed: like Lean, no
probe starts before the author trusts the folder (colosseum.settings.trust)."""

from __future__ import annotations

from colosseum.settings.trust import HOW_TO_TRUST, Trust, is_trusted


def probe_trust(project_dir, *, flag: bool = False, editor_trusted: bool | None = None, environ=None) -> Trust:
    """The folder's trust, with a reason that names probes when it is refused."""
    trust = is_trusted(project_dir, flag=flag, editor_trusted=editor_trusted, environ=environ)
    if trust:
        return trust
    return Trust(False, f"the folder is not trusted, so no probe is run: {HOW_TO_TRUST}")
