"""The ``[lean]`` table of colosseum.toml, checked key by key like the other tables: a bad value is
a clear message naming the key, and its default stays in force."""

from __future__ import annotations

from dataclasses import dataclass, field

from colosseum.settings.project import ConfigProblem, ProjectConfig

DEFAULT_TIME_LIMIT = 300.0  # seconds per file: the first check of a file may build its imports


def _positive_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


# key -> (check, what it must be); the same shape as colosseum.settings.project.TABLES, which checks the table
KEYS = {
    "project": (lambda v: isinstance(v, str) and v.strip() != "",
                "the Lean project's folder, relative to colosseum.toml"),
    "time_limit": (_positive_number, "a positive number of seconds (per file)"),
    "check_on_save": (lambda v: isinstance(v, bool), "true or false"),
    "record_in_catalog": (lambda v: isinstance(v, bool), "true or false"),
    "inline_imports": (lambda v: isinstance(v, list) and all(isinstance(m, str) and m.strip() for m in v),
                       'a list of module names, e.g. ["Mathlib.Tactic"]'),
}


@dataclass(slots=True)
class LeanSettings:
    project: str | None = None  # None: lean/ beside the root file, or the nearest Lake project above it
    time_limit: float = DEFAULT_TIME_LIMIT
    check_on_save: bool = True
    record_in_catalog: bool = True
    inline_imports: list[str] = field(default_factory=list)
    problems: list[ConfigProblem] = field(default_factory=list)


def lean_settings(config: ProjectConfig) -> LeanSettings:
    """The valid keys of ``[lean]`` over the defaults, with the problems colosseum.settings.project found in
    the table (a bad key keeps its default)."""
    from colosseum.settings import project as config_module

    settings = LeanSettings()
    settings.problems = [p for p in config.problems if p.key == "lean" or p.key.startswith("lean.")]
    if not isinstance(config.raw.get("lean"), dict):
        return settings  # absent, or not a table (colosseum.settings.project says so)
    valid = config_module.valid_table(config, "lean")  # its problems are reported with the others
    for key, value in valid.items():
        if key == "time_limit":
            value = float(value)
        elif key == "inline_imports":
            value = [m.strip() for m in value]
        setattr(settings, key, value)
    return settings
