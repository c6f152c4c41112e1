"""``colosseum.toml``: the project's configuration. A broken file is a clear message naming the
key, and the defaults stay in force: a typo never stops the index."""

from __future__ import annotations

import re
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
    _check_tables(raw, problems)
    for problem in problems:
        if not problem.line and problem.key:
            problem.line = _key_line(text, problem.key)
    return config


def _positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


# the tables the model layer reads: key -> (check, what it must be)
TABLES = {
    "solve": {"leaves": (_positive_int, "a positive integer"), "refuters": (_positive_int, "a positive integer"),
              "k": (_positive_int, "a positive integer"),
              "cover_strategies": (lambda v: isinstance(v, bool), "true or false"),
              "widths": (lambda v: isinstance(v, list) and v and all(_positive_int(w) for w in v) and v[-1] == 1,
                         "a list of positive integers ending with 1, e.g. [16, 8, 5, 1]")},
    "models": {"model": (lambda v: isinstance(v, str) and v, "a model name"),
               "provider": (lambda v: v in ("anthropic", "openai-compatible"), '"anthropic" or "openai-compatible"'),
               "api_key_env": (lambda v: isinstance(v, str) and v, "the name of an environment variable"),
               "base_url": (lambda v: isinstance(v, str) and v.startswith(("http://", "https://")), "an http(s) URL"),
               "prices": (lambda v: isinstance(v, dict) and all(_number(v.get(k)) for k in ("input", "output")),
                          "a table with numeric input and output (USD per million tokens)")},
    "budget": {"max_calls": (_positive_int, "a positive integer"), "max_usd": (_number, "a number of dollars")},
}


# tables whose keys are declared beside the code that reads them (each module has KEYS, the same
# shape as TABLES); imported only when colosseum.toml has the table
TABLE_OWNERS = {"research": "colosseum.loops.research.settings", "review": "colosseum.loops.review.settings",
                "lean": "colosseum.lean.settings"}


def table_keys(table: str) -> dict:
    if table in TABLES:
        return TABLES[table]
    import importlib

    return importlib.import_module(TABLE_OWNERS[table]).KEYS


def _check_tables(raw: dict, problems: list[ConfigProblem]) -> None:
    present = [t for t in TABLE_OWNERS if t in raw]
    for table, keys in [*TABLES.items(), *((t, table_keys(t)) for t in present)]:
        section = raw.get(table)
        if section is None:
            continue
        if not isinstance(section, dict):
            problems.append(ConfigProblem(table, f"`{table}` must be a table ([{table}])"))
            continue
        for key, value in section.items():
            if key not in keys:
                problems.append(ConfigProblem(f"{table}.{key}", f"unknown key `{table}.{key}` "
                                                                  f"(known: {', '.join(sorted(keys))})"))
                continue
            check, what = keys[key]
            if not check(value):
                problems.append(ConfigProblem(f"{table}.{key}", f"`{table}.{key}` must be {what}, got {value!r}"))
        widths, leaves = section.get("widths"), section.get("leaves")
        if table == "solve" and isinstance(widths, list) and widths and _positive_int(leaves) and widths[0] != leaves:
            problems.append(ConfigProblem("solve.widths", f"`solve.widths` must start with `solve.leaves` ({leaves})"))


def valid_table(config: ProjectConfig, table: str) -> dict:
    """The keys of a table that passed their checks (the others fall back to defaults)."""
    bad = {p.key.split(".", 1)[1] for p in config.problems if p.key.startswith(table + ".") and "." in p.key}
    section = config.raw.get(table, {})
    return {k: v for k, v in section.items() if k not in bad} if isinstance(section, dict) else {}

