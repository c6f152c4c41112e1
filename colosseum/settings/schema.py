"""One schema for colosseum.toml: every table and key with its type, default and meaning.

Each table is a dataclass whose fields carry, through ``setting``, the rule a value must follow
and a sentence for people. The loader checks colosseum.toml against it (colosseum.settings.load),
the loops read their tables as instances of it, the README lists it, and the JSON Schema that
editors use to complete and validate colosseum.toml is generated from it (``json_schema``)."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Callable


def _same(value):
    return value


@dataclass(frozen=True, slots=True)
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


def _at_least(n: int) -> Rule:
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


# ---- the tables -----------------------------------------------------------------------------------
@dataclass(slots=True)
class TopLevel:
    """Keys before the first table."""

    root: list[str] = setting([], "The root document(s).", STRINGS, example="main.tex",
                              shown="every .tex file with `\\documentclass`")
    roots: list[str] = setting([], "More root documents, added to `root`.", STRINGS, example=["web.tex", "print.tex"])


@dataclass(slots=True)
class IndexConfig:
    """[index]: what the index cannot infer from the LaTeX (texlab's option names)."""

    label_definition_commands: list[str] = setting(
        [], "Your macros that define a label, beyond \\label (a wrapper \\mylabel; the backslash is optional).",
        COMMANDS, example=["mylabel"])
    label_reference_commands: list[str] = setting(
        [], "Your macros that reference labels, beyond \\ref, \\cref, \\eqref, ...", COMMANDS, example=["myref"])
    theorem_environments: list[str] = setting(
        [], "Claim environments not declared with \\newtheorem in the project.", STRINGS, example=["conjecture*"])
    exclude: list[str] = setting([], "Files and folders the index never reads (globs).", STRINGS, example=["old/**"])
    roots: list[str] = field(default_factory=list)  # the top-level `root` and `roots`: not a key of [index]


@dataclass(frozen=True, slots=True)
class SolveSettings:
    """[solve]: the inner loop (generate, refute, aggregate by the sampling tree)."""

    leaves: int = setting(16, "Candidate proofs generated in parallel (the tree's first width).", POSITIVE_INT)
    refuters: int = setting(1, "Adversarial reviewers per candidate.", POSITIVE_INT)
    widths: tuple[int, ...] | None = setting(
        None, "Nodes per level of the aggregation tree; starts with `leaves`, ends with 1.", SOLVE_WIDTHS,
        example=[16, 8, 5, 1], shown="[leaves, 8, 5, 1]")
    k: int = setting(5, "Bundles each aggregator draws (capped at the current width).", POSITIVE_INT)
    cover_strategies: bool = setting(False, "Every strategy cluster of the leaves reaches some aggregator.", BOOL)


@dataclass(frozen=True, slots=True)
class ModelsSettings:
    """[models]: which model answers, through which provider."""

    model: str | None = setting(None, "The model's name.", NAME, example="claude-sonnet-4-5",
                                shown='"claude-sonnet-4-5" (anthropic)')
    provider: str = setting("anthropic", '"anthropic" or "openai-compatible" (a local model, another vendor).', PROVIDER)
    api_key_env: str = setting("OPENAI_API_KEY", "The environment variable holding the openai-compatible key.",
                               ENV_NAME)
    base_url: str | None = setting(None, "Where the API is (required for openai-compatible).", URL,
                                   example="http://localhost:8000/v1", shown="the provider's own")
    prices: dict | None = setting(None, "USD per million tokens: input, output (and cache_read, cache_write).",
                                  PRICES, example={"input": 3, "output": 15}, shown="the list price")


@dataclass(frozen=True, slots=True)
class BudgetSettings:
    """[budget]: the bounds of every run; a run that would exceed them does not start."""

    max_calls: int | None = setting(None, "Model calls a run may make (`--max-calls` overrides it).", POSITIVE_INT,
                                    example=200, shown="no bound")
    max_usd: float | None = setting(None, "A cap in US dollars: checked, but no run enforces it yet.", DOLLARS,
                                    example=2.5, shown="no bound")


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """[review]: the global and local review of the paper."""

    reviewers: int = setting(3, "Independent reviewers, each reading the whole document.", POSITIVE_INT)
    context_tokens: int = setting(200_000, "The model's context window: longer documents are reviewed in parts.",
                                  _at_least(2_000))
    output_tokens: int = setting(8192, "max_tokens of each review call; at most half of `context_tokens`.",
                                 _at_least(256))


@dataclass(frozen=True, slots=True)
class ResearchSettings:
    """[research]: the outer loop (explore, gate, decompose, solve, review, revise)."""

    exploration_widths: tuple[int, ...] = setting((32, 16, 8, 5, 1), "Widths of the exploration tree.",
                                                  RESEARCH_WIDTHS)
    k: int = setting(5, "Cards each aggregator of the exploration tree draws.", POSITIVE_INT)
    falsifiers: int = setting(1, "Falsifiers per strategy card.", POSITIVE_INT)
    adaptive_widths: bool = setting(True, "Stop widening once a batch of leaves finds no new fatal flaw.", BOOL)
    batch: int = setting(8, "Leaves per batch when the widths are adaptive.", POSITIVE_INT)
    explorations: int = setting(3, "Explorations (the first included) before the run gives up.", POSITIVE_INT)
    section_retries: int = setting(2, "Retries of a section that fails its local review.", COUNT)
    redecompose: bool = setting(True, "Re-cut the DAG around a section that keeps failing.", BOOL)
    max_redecompositions: int = setting(2, "Re-cuts per run.", COUNT)
    parallel_sections: int = setting(4, "Sections solved at once.", POSITIVE_INT)
    rounds: int = setting(3, "Global reviews, each followed by a revision or a new exploration.", POSITIVE_INT)
    judges: int = setting(8, "Cross-model selection: how often model B judges A's proof.", POSITIVE_INT)
    select_threshold: int = setting(5, "Cross-model selection: the \"correct\" verdicts A needs.", POSITIVE_INT)


@dataclass(slots=True)
class LeanTable:
    """[lean]: the Lean bridge."""

    project: str | None = setting(None, "The Lean project.", PATH,
                                  example="formal", shown="lean/ beside the root, or the nearest Lake project")
    time_limit: float = setting(300.0, "Seconds per file (the first check of a file may build its imports).", SECONDS,
                                shown="`300`")
    check_on_save: bool = setting(True, "The editor checks again when a .tex file is saved.", BOOL)
    record_in_catalog: bool = setting(True, "Passing checks become formal evidence in the catalog.", BOOL)
    inline_imports: list[str] = setting([], "Modules every inline Lean block imports.", MODULES,
                                        example=["Mathlib.Tactic"])


@dataclass(frozen=True, slots=True)
class CatalogSettings:
    """[catalog]: the knowledge catalog."""

    path: str | None = setting(None, "The knowledge catalog.", PATH, example="knowledge",
                               shown="knowledge/ beside the root")


# table name -> its dataclass, in the order the README and the JSON Schema list them
TABLES: dict[str, type] = {"index": IndexConfig, "solve": SolveSettings, "models": ModelsSettings,
                           "budget": BudgetSettings, "review": ReviewSettings, "research": ResearchSettings,
                           "lean": LeanTable, "catalog": CatalogSettings}


def rules(table: str | None) -> dict[str, Rule]:
    """key -> rule of a table (None: the top-level keys)."""
    return {f.name: f.metadata["rule"] for f in keys_of(TopLevel if table is None else TABLES[table])}


# ---- JSON Schema -----------------------------------------------------------------------------------
def _key_schema(f) -> dict:
    out = {"description": f.metadata["doc"], **f.metadata["rule"].json}
    default = default_of(f)
    if default is not None:
        out["default"] = list(default) if isinstance(default, tuple) else default
    return out


def _object(cls: type) -> dict:
    return {"type": "object", "description": (cls.__doc__ or "").strip(), "additionalProperties": False,
            "properties": {f.name: _key_schema(f) for f in keys_of(cls)}}


def json_schema() -> dict:
    """The JSON Schema (draft 07, which Taplo and Even Better TOML read) of colosseum.toml."""
    top = _object(TopLevel)
    top["properties"].update({name: _object(cls) for name, cls in TABLES.items()})
    return {"$schema": "http://json-schema.org/draft-07/schema#", "title": "colosseum.toml",
            **top, "description": "The project configuration of Colosseum for LaTeX. An unknown table or key is "
                                  "reported (colosseum/config-unknown-key); a bad value keeps its default."}
