"""The theorem-like environments a project declares, kept from one build to the next.

Declared anywhere in the project, they count everywhere: a cold build gathers them from every
file's readings. When the walk was kept (an edit that changed no include), only the edited
files' declarations are looked at: the same as before (a keystroke in a paragraph), the last
build's answer stands.
"""

from __future__ import annotations

from pathlib import Path

from colosseum.project.analysis import DEFAULT_THEOREM_ENVIRONMENTS, theorem_declarations


class DeclaredEnvironments:
    def __init__(self):
        # the last gathering: (path -> what it declares, environments, title and style of each)
        self._last: tuple[dict, frozenset[str], dict] | None = None

    def of(self, walk, configured) -> tuple[set[str], dict[str, tuple[str, str]]]:
        """The environments (the defaults, ``configured`` and those declared) and the title and
        style of each declared one (the first declaration in reading order)."""
        last = self._last
        if walk.reused is not None and last is not None:
            if all(_declared_in(walk, visit.path) == last[0].get(visit.path) for visit in walk.reused):
                return set(last[1]), dict(last[2])
        envs = set(DEFAULT_THEOREM_ENVIRONMENTS) | set(configured)
        styles: dict[str, tuple[str, str]] = {}
        by_path: dict[Path, tuple] = {}
        for path, result, _ft in walk.scanned():
            found = result.theorem_declarations(theorem_declarations)
            for decl in found:
                envs.add(decl.env)
                styles.setdefault(decl.env, (decl.title, decl.style))
            if found:
                by_path[path] = _declared_in(walk, path)
        self._last = (by_path, frozenset(envs), dict(styles))
        return envs, styles


def _declared_in(walk, path: Path) -> tuple | None:
    """What the readings of one file declare, in order (None: nothing)."""
    found = tuple((decl.env, decl.title, decl.style)
                  for visit in walk.by_path.get(path, ())
                  for scan in ((visit.first_scan,) if visit.scan is visit.first_scan else (visit.first_scan, visit.scan))
                  for decl in scan.theorem_declarations(theorem_declarations))
    return found or None
