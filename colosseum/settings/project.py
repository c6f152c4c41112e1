"""``colosseum.toml``: the project's configuration, read against the schema (colosseum.settings.schema).
A broken file is a clear message naming the key on its line, an unknown table or key a warning with
the closest valid name, and the defaults stay in force: a typo never stops the index. A root or a
catalog path that leads outside the project folder is refused the same way
(colosseum.settings.boundary)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.settings.boundary import PATH_OUTSIDE_PROJECT, Boundary
from colosseum.settings.load import ConfigProblem, check_keys, place
from colosseum.settings.schema import IndexConfig, rules, table_class
from colosseum.settings.user import UserConfig, load_user_config

CONFIG_NAME = "colosseum.toml"


@dataclass(slots=True)
class ProjectConfig:
    path: Path | None = None
    index: IndexConfig = field(default_factory=IndexConfig)
    raw: dict = field(default_factory=dict)  # every table as written; the typed view is ``table``
    problems: list[ConfigProblem] = field(default_factory=list)
    user: UserConfig | None = None  # the user's own config, read with this one (its problems are its own)

    @property
    def read_only_paths(self) -> tuple[Path, ...]:
        """What the user's own config lets projects read outside them."""
        return self.user.read_only_paths if self.user is not None else ()


def load_config(project_dir: Path) -> ProjectConfig:
    path = project_dir / CONFIG_NAME
    config = ProjectConfig(user=load_user_config())
    if not path.is_file():
        return config
    import tomllib  # here: most projects have no colosseum.toml, and a cold `check` pays for imports

    config.path = path
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        config.problems.append(ConfigProblem("", f"cannot read {CONFIG_NAME}: {exc}"))
        return config
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", 0) or 0
        if not line:  # Python 3.11 only says it in the message: "(at line 3, column 7)"
            m = re.search(r"line (\d+)", str(exc))
            line = int(m.group(1)) if m else 0
        config.problems.append(ConfigProblem("", f"{CONFIG_NAME} is not valid TOML: {exc}", max(0, line - 1)))
        return config
    config.raw = raw
    config.problems = check_keys(raw)
    outside = paths_outside(raw, Boundary.of(project_dir, config.read_only_paths))
    config.problems += outside
    place(config.problems, text)
    top = table(config, None)
    config.index = table(config, "index")
    refused = {problem.key for problem in outside}
    config.index.roots = [name for key in ("root", "roots")
                          for i, name in enumerate(getattr(top, key)) if f"{key}.{i}" not in refused]
    return config


def paths_outside(raw: dict, boundary: Boundary) -> list[ConfigProblem]:
    """A problem per root that is not inside the project (nor a read-only path of the user's config),
    keyed ``root.<i>`` / ``roots.<i>`` so the other roots stay, and for a catalog path outside it."""
    problems = []
    for key in ("root", "roots"):
        value = raw.get(key)
        names = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        for i, name in enumerate(names):
            if isinstance(name, str) and not boundary.may_read(Path(name)):
                problems.append(ConfigProblem(f"{key}.{i}", f"`{key}`: {name} is outside the project folder "
                                              f"({boundary.project_dir}); not read", severity="warning",
                                              code=PATH_OUTSIDE_PROJECT))
    catalog = raw.get("catalog")
    name = catalog.get("path") if isinstance(catalog, dict) else None
    if isinstance(name, str) and name.strip() and not boundary.may_write(Path(name)):
        problems.append(ConfigProblem("catalog.path", f"`catalog.path`: {name} is outside the project folder; "
                                      "the catalog stays in knowledge/ beside the root", severity="warning",
                                      code=PATH_OUTSIDE_PROJECT))
    return problems


def valid_table(config: ProjectConfig, name: str | None) -> dict:
    """The keys of a table as written, those that passed their checks (the others fall back to
    their defaults); None: the top-level keys."""
    section = config.raw if name is None else (getattr(config, "raw", None) or {}).get(name, {})
    if not isinstance(section, dict):
        return {}
    known = rules(name)
    prefix = "" if name is None else name + "."
    bad = {p.key[len(prefix):] for p in getattr(config, "problems", ()) if p.key.startswith(prefix)}
    return {k: v for k, v in section.items() if k in known and k not in bad}


def table(config: ProjectConfig, name: str | None):
    """A table as its typed dataclass: the valid keys over the defaults (None: the top-level keys)."""
    known = rules(name)
    values = {k: known[k].convert(v) for k, v in valid_table(config, name).items()}
    return table_class(name)(**values)
