"""The knowledge catalog beside the paper, and the operations on it that the CLI and the editor
share: where it is, add a claim as an entry, record a failed route, retract an entry (what rests
on it turns suspect)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from colosseum.app.refusals import RunRefused
from colosseum.settings.boundary import Boundary, resolved
from colosseum.settings.project import load_config, table


@dataclass(frozen=True)
class Retraction:
    """A retracted catalog entry and what the retraction left behind."""

    entry_id: str
    problems: list  # the catalog's problems after the retraction (file, field, message)
    suspect: list[str]  # entries that rest on the retracted one


def catalog_directory(path: Path) -> Path:
    """``knowledge/`` beside the root file, or ``[catalog] path`` in colosseum.toml. A path that
    leads outside the project folder (after symbolic links) is refused when colosseum.toml is read
    (``colosseum/path-outside-project`` on its line): the catalog then stays in ``knowledge/``, so
    no solve or ``knowledge add`` ever writes outside the project. Raises CatalogOutsideProject
    when ``knowledge/`` itself is a symbolic link out of the project: there is no place left to write."""
    project = path if path.is_dir() else path.parent
    config = load_config(project)
    # the [catalog] table's class is built only when the table is written: check starts without it
    configured = table(config, "catalog").path if "catalog" in (getattr(config, "raw", None) or {}) else None
    if configured is not None:
        return (project / configured).resolve()
    default = project / "knowledge"
    if not Boundary.of(project).may_write(default):
        raise CatalogOutsideProject(f"{default} is a symbolic link to {resolved(default)}, outside the project "
                                    "folder; the catalog is not read or written there (make it a folder of the "
                                    "project, or set [catalog] path to one)")
    return default


class CatalogRefused(Exception):
    """No such entry, or one that may not be retracted; the message says which."""


class CatalogOutsideProject(CatalogRefused, RunRefused):
    """The catalog's folder leads outside the project (colosseum/path-outside-project): a run that
    would read or write the catalog is refused before any call."""


def add_entry(root_dir: Path, claim) -> tuple[Path, list]:
    """The claim as a new project entry, by the person at the keyboard; (file, problems of the entry).
    Raises CatalogRefused for a claim whose statement the paper does not hold."""
    # the curator brings YAML: loaded when an entry is written, not by every `check` that finds the catalog
    from colosseum.catalog.curator import add_claim_entry, person
    from colosseum.catalog.store import read_entry

    if claim.kind == "leannode":
        raise CatalogRefused(f"`{claim.label or claim.id}` is stated in Lean (\\inputleannode): the paper has no "
                             "statement to quote; write the entry by hand (knowledge/FORMAT.md)")
    written = add_claim_entry(catalog_directory(root_dir), claim, person())
    return written, read_entry(written)[1]


def record_failed_route(root_dir: Path, label: str, critique: str) -> Path:
    """The route of the last solve of ``label``, recorded as failed with the critique that broke it."""
    from colosseum.catalog.curator import add_failed_route, person

    return add_failed_route(catalog_directory(root_dir), label, "the route of the last solve", "", critique, person())


def retract(root_dir: Path, entry_id: str, reason: str) -> Retraction:
    from colosseum.catalog.curator import retract_entry

    try:
        problems, suspect = retract_entry(catalog_directory(root_dir), entry_id, reason)
    except (KeyError, PermissionError, ValueError) as exc:
        raise CatalogRefused(str(exc.args[0])) from exc
    return Retraction(entry_id, problems, suspect)
