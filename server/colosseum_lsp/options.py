"""The editor's settings for the server, typed, with a default for each.

Clients send one settings object (VS Code's ``colosseum.*`` settings, Neovim's ``settings``) as
``initializationOptions`` and again in ``workspace/didChangeConfiguration``, flat or under a
``colosseum`` key. A value of the wrong type is reported (naming the option and what it must be)
and replaced by its default; an unknown key is reported and ignored; ``null`` means "unset".
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class Budget:
    """Limits for one model-backed run started from the editor (``budget`` in the settings)."""

    max_calls: int | None = None
    max_usd: float | None = None

    def as_table(self) -> dict:
        """The wire form ({"max_calls": 50}), what the model-backed features read."""
        table = {}
        if self.max_calls is not None:
            table["max_calls"] = self.max_calls
        if self.max_usd is not None:
            table["max_usd"] = self.max_usd
        return table


@dataclass(frozen=True)
class EditorOptions:
    """Every setting the server reads, by its wire name (``WIRE_NAMES``), with its default."""

    model: str | None = None  # overrides colosseum.toml's [models] model
    budget: Budget | None = None  # None: colosseum.toml's [budget] decides
    label_definition_commands: tuple[str, ...] = ()  # macros that define a label, like \label
    label_reference_commands: tuple[str, ...] = ()  # macros that refer to a label, like \ref
    review_on_save: bool = False  # a local review of the saved file's claims (costs model calls)
    # diagnostic codes the editor is not sent (another LaTeX server beside this one reports them)
    ignored_diagnostics: frozenset[str] = frozenset()
    # the editor's word on trusting the workspace (VS Code's workspace trust, Neovim's `trusted`):
    # None when the editor says nothing; only True lets the project's code (lake serve) run
    trusted: bool | None = None
    # a model-backed run's progress shows its estimate this long before the first call, so the
    # author can cancel before anything is sent or spent (0: start at once)
    start_delay_seconds: float = 2.0
    # what was wrong with the settings last read, by wire name (the features that cannot run on a
    # default, such as a research run without the budget the author meant, refuse with this)
    problems: dict = field(default_factory=dict, compare=False)

    def get(self, wire_name: str, default=None):
        """The option in its wire form (``options.get("budget")`` -> {"max_calls": 50} or None),
        as the features read the untyped settings object before."""
        name = WIRE_NAMES.get(wire_name)
        if name is None:
            return default
        value = getattr(self, name)
        if isinstance(value, Budget):
            return value.as_table()
        if isinstance(value, (tuple, frozenset)):
            return sorted(value) if isinstance(value, frozenset) else list(value)
        return default if value is None else value

    def problem(self, wire_name: str) -> str | None:
        """The message about an invalid value of this option in the settings, or None."""
        return self.problems.get(wire_name)


WIRE_NAMES = {"model": "model", "budget": "budget", "labelDefinitionCommands": "label_definition_commands",
              "labelReferenceCommands": "label_reference_commands", "reviewOnSave": "review_on_save",
              "trusted": "trusted", "ignoredDiagnostics": "ignored_diagnostics",
              "startDelaySeconds": "start_delay_seconds"}
DEFAULTS = EditorOptions()


def _positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


# each reader: (typed value, None) or (its default, what is wrong, with OPTION for the option's name)
def _model(value) -> tuple[str | None, str | None]:
    if isinstance(value, str) and value.strip():
        return value.strip(), None
    return None, f"OPTION must be a model name (a non-empty string), not {value!r}"


def _budget(value) -> tuple[Budget | None, str | None]:
    if not isinstance(value, dict):
        return None, f'OPTION must be a table like {{"max_calls": 200}}, not {value!r}'
    unknown = sorted(map(str, set(value) - {"max_calls", "max_usd"}))
    if unknown:
        return None, f"OPTION has unknown keys {', '.join(unknown)} (known: max_calls, max_usd)"
    max_calls, max_usd = value.get("max_calls"), value.get("max_usd")
    if max_calls is not None and not _positive_int(max_calls):
        return None, f"OPTION.max_calls must be a positive integer, not {max_calls!r}"
    if max_usd is not None and not _number(max_usd):
        return None, f"OPTION.max_usd must be a number of dollars, not {max_usd!r}"
    return Budget(max_calls, float(max_usd) if max_usd is not None else None), None


def _commands(value) -> tuple[tuple[str, ...], str | None]:
    if not isinstance(value, list) or not all(isinstance(c, str) and c.strip("\\ ") for c in value):
        return (), f'OPTION must be a list of macro names like ["lemlabel"], not {value!r}'
    return tuple(c.strip().lstrip("\\") for c in value), None


def _codes(value) -> tuple[frozenset[str], str | None]:
    if not isinstance(value, list) or not all(isinstance(c, str) and c.strip() for c in value):
        return frozenset(), f'OPTION must be a list of diagnostic codes like ["colosseum/unused-label"], not {value!r}'
    return frozenset(c.strip() for c in value), None


def _seconds(value) -> tuple[float, str | None]:
    if _number(value) and value <= 600:
        return float(value), None
    return DEFAULTS.start_delay_seconds, f"OPTION must be a number of seconds from 0 to 600, not {value!r}"


def _flag(value) -> tuple[bool, str | None]:
    if isinstance(value, bool):
        return value, None
    return False, f"OPTION must be true or false, not {value!r}"


READERS = {"model": _model, "budget": _budget, "labelDefinitionCommands": _commands,
           "labelReferenceCommands": _commands, "reviewOnSave": _flag,
           "trusted": _flag, "ignoredDiagnostics": _codes, "startDelaySeconds": _seconds}


def settings_object(settings) -> dict | None:
    """The server's settings in a didChangeConfiguration payload (``{"colosseum": {...}}`` or the
    object itself); None when there are none."""
    if not isinstance(settings, dict):
        return None
    inner = settings.get("colosseum", settings)
    return inner if isinstance(inner, dict) else None


def read_options(raw) -> tuple[EditorOptions, list[str]]:
    """The typed options of a settings object and a message per problem (each names its option:
    ``colosseum.budget must be ...``); every invalid value is replaced by its default."""
    if raw is None:
        return DEFAULTS, []
    if not isinstance(raw, dict):
        return DEFAULTS, [f"the colosseum settings must be an object, not {raw!r}: every default is used"]
    values, problems, messages = {}, {}, []
    for key, value in raw.items():
        reader = READERS.get(key)
        if reader is None:
            close = difflib.get_close_matches(str(key), list(READERS), n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else f" (known: {', '.join(READERS)})"
            messages.append(f"colosseum.{key} is not a setting of the server and is ignored{hint}")
            continue
        if value is None:
            continue  # unset: the default
        typed, problem = reader(value)
        if problem is not None:
            problems[key] = problem.replace("OPTION", f"colosseum.{key}", 1)
            messages.append(problem.replace("OPTION", f"colosseum.{key}", 1) + "; the default is used")
            continue
        values[WIRE_NAMES[key]] = typed
    return EditorOptions(**values, problems=problems), messages


assert set(WIRE_NAMES.values()) == {f.name for f in fields(EditorOptions)} - {"problems"}
