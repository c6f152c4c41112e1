"""The ``[lean]`` table of colosseum.toml as LeanSettings: declared, checked and reported with the
other tables by colosseum.settings (a bad value keeps its default), with the table's problems."""

from __future__ import annotations

from dataclasses import dataclass, field

from colosseum.settings import ConfigProblem, ProjectConfig, table
from colosseum.settings.tables import LeanTable

# seconds per file: the first check of a file may build its imports
DEFAULT_TIME_LIMIT = LeanTable.__dataclass_fields__["time_limit"].default


@dataclass(slots=True)
class LeanSettings(LeanTable):
    problems: list[ConfigProblem] = field(default_factory=list)


def lean_settings(config: ProjectConfig) -> LeanSettings:
    """The valid keys of ``[lean]`` over the defaults, with the problems colosseum.settings found in
    the table (a bad key keeps its default)."""
    lean = table(config, "lean")
    problems = [p for p in config.problems if p.key == "lean" or p.key.startswith("lean.")]
    return LeanSettings(**{name: getattr(lean, name) for name in LeanTable.__dataclass_fields__}, problems=problems)
