"""The rules a value of colosseum.toml follows, and ``setting``, which makes a dataclass field a key
with its rule, default and meaning (colosseum.settings.schema gathers the tables)."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Callable


def _same(value):
    return value


@dataclass(slots=True, eq=False)
class Rule:
    """What a value must be: a check, the words a message uses ("must be ..."), the same in JSON
    Schema, and how a valid value becomes the typed one (a list becomes a tuple, ...)."""

    check: Callable[[object], bool]
    what: str
    json: dict
    convert: Callable[[object], object] = _same


def setting(default, doc: str, rule: Rule, *, example=None, shown: str | None = None):
    """A field that is a key of colosseum.toml. ``example`` stands in where the default is None
    (the README and the schema tests use it); ``shown`` says the default in words when it is
    computed from other keys."""
    metadata = {"doc": doc, "rule": rule, "example": example, "shown": shown}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def keys_of(table: type) -> list:
    """The fields of a table's dataclass that are keys of colosseum.toml, in declared order."""
    return [f for f in fields(table) if "rule" in f.metadata]


def default_of(f) -> object:
    return f.default_factory() if f.default is MISSING else f.default


# ---- the rules ------------------------------------------------------------------------------------
def _positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def at_least(n: int) -> Rule:
    return Rule(lambda v: _positive_int(v) and v >= n, f"an integer of at least {n}", {"type": "integer", "minimum": n})


def _string_or_strings(value) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _as_list(value) -> list:
    return [value] if isinstance(value, str) else list(value)


def _solve_widths(value) -> bool:
    return isinstance(value, list) and bool(value) and all(_positive_int(w) for w in value) and value[-1] == 1


def _research_widths(value) -> bool:
    return (isinstance(value, list) and len(value) >= 2 and all(_positive_int(w) for w in value) and value[-1] == 1
            and all(a >= b for a, b in zip(value, value[1:])))


def _prices(value) -> bool:
    return isinstance(value, dict) and all(_number(value.get(k)) for k in ("input", "output"))


_PRICE = {"type": "number", "minimum": 0}
_STRINGS_JSON = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
POSITIVE_INT = Rule(_positive_int, "a positive integer", {"type": "integer", "minimum": 1})
COUNT = Rule(_count, "a non-negative integer", {"type": "integer", "minimum": 0})
BOOL = Rule(lambda v: isinstance(v, bool), "true or false", {"type": "boolean"})
DOLLARS = Rule(_number, "a number of dollars", {"type": "number", "minimum": 0})
STRINGS = Rule(_string_or_strings, "a string or a list of strings", _STRINGS_JSON, _as_list)
COMMANDS = Rule(_string_or_strings, "a string or a list of strings", _STRINGS_JSON,
                lambda v: [c.lstrip("\\") for c in _as_list(v)])  # `\mylabel` and `mylabel` alike
NAME = Rule(lambda v: isinstance(v, str) and v != "", "a model name", {"type": "string", "minLength": 1})
ENV_NAME = Rule(lambda v: isinstance(v, str) and v != "", "the name of an environment variable",
                {"type": "string", "minLength": 1})
URL = Rule(lambda v: isinstance(v, str) and v.startswith(("http://", "https://")), "an http(s) URL",
           {"type": "string", "pattern": "^https?://"})
PROVIDER = Rule(lambda v: v in ("anthropic", "openai-compatible"), '"anthropic" or "openai-compatible"',
                {"enum": ["anthropic", "openai-compatible"]})
PRICES = Rule(_prices, "a table with numeric input and output (USD per million tokens)",
              {"type": "object", "required": ["input", "output"],
               "properties": {"input": _PRICE, "output": _PRICE, "cache_read": _PRICE, "cache_write": _PRICE}})
SOLVE_WIDTHS = Rule(_solve_widths, "a list of positive integers ending with 1, e.g. [16, 8, 5, 1]",
                    {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1}, tuple)
RESEARCH_WIDTHS = Rule(_research_widths,
                       "a non-increasing list of positive integers ending with 1, e.g. [32, 16, 8, 5, 1]",
                       {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2}, tuple)
PATH = Rule(lambda v: isinstance(v, str) and v.strip() != "", "a folder, relative to colosseum.toml",
            {"type": "string", "pattern": "\\S"})
SECONDS = Rule(lambda v: _number(v) and v > 0, "a positive number of seconds (per file)",
               {"type": "number", "exclusiveMinimum": 0}, float)
MODULES = Rule(lambda v: isinstance(v, list) and all(isinstance(m, str) and m.strip() for m in v),
               'a list of module names, e.g. ["Mathlib.Tactic"]',
               {"type": "array", "items": {"type": "string", "pattern": "\\S"}}, lambda v: [m.strip() for m in v])
