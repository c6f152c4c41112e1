"""``colosseum.toml``: the project's configuration. A broken file is a clear message naming the
key, and the defaults stay in force: a typo never stops the index."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

CONFIG_NAME = "colosseum.toml"


@dataclass(slots=True)
class ConfigProblem:
    key: str
    message: str
    line: int = 0  # 0-based line in colosseum.toml, 0 when unknown


@dataclass(slots=True)
class IndexConfig:
    roots: list[str] = field(default_factory=list)
    label_definition_commands: list[str] = field(default_factory=list)
    label_reference_commands: list[str] = field(default_factory=list)
    theorem_environments: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ProjectConfig:
    path: Path | None = None
    index: IndexConfig = field(default_factory=IndexConfig)
    raw: dict = field(default_factory=dict)  # every table, for the parts of the engine that own them
    problems: list[ConfigProblem] = field(default_factory=list)


def _string_list(value, key: str, problems: list[ConfigProblem]) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    problems.append(ConfigProblem(key, f"`{key}` must be a list of strings, got {type(value).__name__}"))
    return []


def _key_line(text: str, key: str) -> int:
    leaf = key.rsplit(".", 1)[-1]
    for i, line in enumerate(text.splitlines()):
        if line.strip().startswith(leaf):
            return i
    return 0


def load_config(project_dir: Path) -> ProjectConfig:
    path = project_dir / CONFIG_NAME
    config = ProjectConfig()
    if not path.is_file():
        return config
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
    problems = config.problems
    index = config.index
    if "root" in raw:
        index.roots = _string_list(raw["root"], "root", problems)
    if "roots" in raw:
        index.roots += _string_list(raw["roots"], "roots", problems)
    section = raw.get("index", {})
    if not isinstance(section, dict):
        problems.append(ConfigProblem("index", "`index` must be a table ([index])"))
        section = {}
    known = {
        "label_definition_commands": "label_definition_commands",
        "label_reference_commands": "label_reference_commands",
        "theorem_environments": "theorem_environments",
        "exclude": "exclude",
    }
    for key, value in section.items():
        if key not in known:
            problems.append(ConfigProblem(f"index.{key}", f"unknown key `index.{key}` (known: {', '.join(sorted(known))})"))
            continue
        setattr(index, known[key], [v.lstrip("\\") for v in _string_list(value, f"index.{key}", problems)]
                if "commands" in key else _string_list(value, f"index.{key}", problems))
    for problem in problems:
        if not problem.line and problem.key:
            problem.line = _key_line(text, problem.key)
    return config
