"""One schema for colosseum.toml: every table and key with its type, default and meaning.

Each table is a dataclass whose fields carry, through ``setting`` (colosseum.settings.rules), the
rule a value must follow and a sentence for people. The loader checks colosseum.toml against it
(colosseum.settings.load), the loops read their tables as instances of it, the README lists it, and
the JSON Schema that editors use to complete and validate colosseum.toml is generated from it
(``json_schema``)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from colosseum.settings.rules import COMMANDS, STRINGS, Rule, default_of, keys_of, setting


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
    include_commands: list[str] = setting(
        [], "Your macros that include a file, beyond \\input, \\include, \\subfile, \\import: `\\olimport[dir]{file}` "
        "reads `file` (optional arguments are skipped); a wrapper defined in the project is followed without this.",
        COMMANDS, example=["olimport"])
    theorem_environments: list[str] = setting(
        [], "Claim environments not declared with \\newtheorem in the project.", STRINGS, example=["conjecture*"])
    exclude: list[str] = setting([], "Files and folders the index never reads (globs).", STRINGS, example=["old/**"])
    roots: list[str] = field(default_factory=list)  # the top-level `root` and `roots`: not a key of [index]


# table name -> the module declaring its dataclass and the dataclass's name, in the order the README and
# the JSON Schema list them; the run tables are imported when asked for (colosseum.settings.tables)
TABLE_CLASSES = {"index": (__name__, "IndexConfig"), "solve": ("colosseum.settings.tables", "SolveSettings"),
                 "models": ("colosseum.settings.tables", "ModelsSettings"),
                 "budget": ("colosseum.settings.tables", "BudgetSettings"),
                 "review": ("colosseum.settings.tables", "ReviewSettings"),
                 "research": ("colosseum.settings.tables", "ResearchSettings"),
                 "lean": ("colosseum.settings.tables", "LeanTable"),
                 "catalog": ("colosseum.settings.tables", "CatalogSettings"),
                 "probe": ("colosseum.settings.tables", "ProbeSettings"),
                 "bench": ("colosseum.settings.tables", "BenchSettings")}


def table_class(name: str | None) -> type:
    """The dataclass of a table (None: the top-level keys)."""
    if name is None:
        return TopLevel
    module, cls = TABLE_CLASSES[name]
    return getattr(importlib.import_module(module), cls)


def table_classes() -> dict[str, type]:
    """Every table's dataclass, by name."""
    return {name: table_class(name) for name in TABLE_CLASSES}


def rules(table: str | None) -> dict[str, Rule]:
    """key -> rule of a table (None: the top-level keys)."""
    return {f.name: f.metadata["rule"] for f in keys_of(table_class(table))}


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
    top["properties"].update({name: _object(cls) for name, cls in table_classes().items()})
    return {"$schema": "http://json-schema.org/draft-07/schema#", "title": "colosseum.toml",
            **top, "description": "The project configuration of Colosseum for LaTeX. An unknown table or key is "
                                  "reported (colosseum/config-unknown-key); a bad value keeps its default."}
