"""The project folder as the boundary of every read and write: a path the project controls (an
input, a configured root, the catalog path, a symbolic link) counts as inside only when it is
inside once symbolic links are resolved. The user's own config (colosseum.settings.user) may add
read-only paths (a shared .bib, a sibling document); nothing outside is ever written."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PATH_OUTSIDE_PROJECT = "path-outside-project"  # the finding's code, without the `colosseum/` prefix


def resolved(path: Path) -> Path:
    """The path with every symbolic link resolved; a link cycle resolves as far as it can."""
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(path))


def is_under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


@dataclass(frozen=True, slots=True)
class Boundary:
    """The project folder and the read-only paths allowed besides it, both resolved."""

    project_dir: Path
    read_only_paths: tuple[Path, ...] = ()

    @classmethod
    def of(cls, project_dir: Path, read_only_paths=()) -> "Boundary":
        return cls(resolved(project_dir), tuple(resolved(p) for p in read_only_paths))

    def may_write(self, path: Path) -> bool:
        """Whether ``path`` (relative ones are taken from the project folder) lands inside the project."""
        return is_under(resolved(self.project_dir / path), self.project_dir)

    def may_read(self, path: Path) -> bool:
        """Inside the project, or a read-only path of the user's config (or inside one, for a folder)."""
        real = resolved(self.project_dir / path)
        return is_under(real, self.project_dir) or any(is_under(real, allowed) for allowed in self.read_only_paths)
