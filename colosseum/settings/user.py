"""The user-level config, ``$XDG_CONFIG_HOME/colosseum/config.toml`` (by default
``~/.config/colosseum/config.toml``): what only the person at the keyboard may grant, never the
project. Its one key today, ``read_only_paths``, lists files or folders outside a project that a
project may read (a shared .bib, a sibling document for \\externaldocument); none is ever written.
``trusted_folders`` lists folders whose projects (and their subfolders') code may run: Lean's
``lake serve`` (colosseum/settings/trust.py).
Unknown keys and bad values are reported on their lines, like colosseum.toml's."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.settings.boundary import resolved
from colosseum.settings.load import ConfigProblem, place, unknown_key
from colosseum.settings.rules import STRINGS, keys_of, setting

USER_CONFIG_NAME = "config.toml"


@dataclass(slots=True)
class UserSettings:
    """The keys of the user-level config."""

    read_only_paths: list[str] = setting(
        [], "Absolute paths outside a project that projects may read, never write (a shared .bib, a sibling "
            "document).", STRINGS, example=["~/bib/refs.bib"])
    trusted_folders: list[str] = setting(
        [], "Absolute folders whose projects (and subfolders) are trusted to run their own code: Lean's lake serve "
            "elaborates lakefile.lean.", STRINGS, example=["~/papers"])


@dataclass(slots=True)
class UserConfig:
    path: Path
    read_only_paths: tuple[Path, ...] = ()
    trusted_folders: tuple[Path, ...] = ()
    problems: list[ConfigProblem] = field(default_factory=list)


def user_config_path(environ=None) -> Path:
    """``$XDG_CONFIG_HOME/colosseum/config.toml``; XDG says a relative XDG_CONFIG_HOME is ignored."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CONFIG_HOME", "")
    if not base or not os.path.isabs(base):
        home = environ.get("HOME") or str(Path.home())
        base = os.path.join(home, ".config")
    return Path(base) / "colosseum" / USER_CONFIG_NAME


def load_user_config(environ=None) -> UserConfig:
    """The user-level config; an absent file is an empty config, a broken one a problem."""
    config = UserConfig(user_config_path(environ))
    try:
        text = config.path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return config
    except (OSError, UnicodeDecodeError) as exc:
        config.problems.append(ConfigProblem("", f"cannot read {config.path}: {exc}"))
        return config
    import tomllib  # here: most people have no user config, and a cold `check` pays for imports

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        config.problems.append(ConfigProblem("", f"{config.path} is not valid TOML: {exc}"))
        return config
    _report_unknown_keys(raw, config.problems)
    config.read_only_paths = _absolute_paths(raw, "read_only_paths", config.problems)
    config.trusted_folders = _absolute_paths(raw, "trusted_folders", config.problems)
    place(config.problems, text)
    return config


def _report_unknown_keys(raw: dict, problems: list[ConfigProblem]) -> None:
    known = {f.name for f in keys_of(UserSettings)}
    for key in raw:
        if key not in known:
            problems.append(unknown_key(key, key, known, "key"))


def _absolute_paths(raw: dict, key: str, problems: list[ConfigProblem]) -> tuple[Path, ...]:
    """The key's list of absolute paths, each with its symbolic links resolved; a relative one is
    a problem and ignored (it would mean a different place in each project)."""
    rule = next(f.metadata["rule"] for f in keys_of(UserSettings) if f.name == key)
    value = raw.get(key, [])
    if not rule.check(value):
        problems.append(ConfigProblem(key, f"`{key}` must be {rule.what}, got {value!r}"))
        return ()
    paths = []
    for name in rule.convert(value):
        path = Path(name).expanduser()
        if path.is_absolute():
            paths.append(resolved(path))
        else:
            problems.append(ConfigProblem(key, f"`{key}`: {name} is not an absolute path; ignored"))
    return tuple(paths)


def user_config_diagnostics(config: UserConfig) -> list:
    """The problems of the user config as findings on its lines (for `check`: a file outside the
    project, named by its full path), with the codes of colosseum.toml's."""
    from colosseum.core.structure import Diagnostic, Position, Range

    found = []
    for problem in config.problems:
        start = Position(problem.line, 0)
        found.append(Diagnostic(config.path, Range(start, start), problem.severity, f"colosseum/{problem.code}",
                                problem.message))
    return found
