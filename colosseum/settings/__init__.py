"""Settings: colosseum.toml read against one typed schema (colosseum.settings.schema), its problems
on their lines (colosseum.settings.load), and the typed tables the loops read."""

from __future__ import annotations

from pathlib import Path

from colosseum.settings.load import UNKNOWN_KEY, ConfigProblem
from colosseum.settings.project import CONFIG_NAME, ProjectConfig, load_config, table, valid_table
from colosseum.settings.schema import TABLE_CLASSES, IndexConfig, json_schema, table_classes

# the JSON Schema editors read; generated from the schema (tests/test_settings_schema.py keeps it so)
SCHEMA_FILE = Path(__file__).resolve().parent.parent / "data" / "colosseum-toml.schema.json"


def inner_loop(config: ProjectConfig, max_calls: int | None = None):
    """(InnerLoopConfig, the valid keys of [models]): the inner loop's settings from ``[solve]`` and
    ``[budget]`` (``max_calls`` overrides the budget), for every command that runs the inner loop."""
    # imported here: the settings sit below the loops, and a cold `check` never pays for the model layer
    from colosseum.loops.inner.records import InnerLoopConfig

    solve, budget = table(config, "solve"), table(config, "budget")
    widths = solve.widths or (solve.leaves, 8, 5, 1)
    if widths[0] != solve.leaves:  # reported by the loader; the default shape stays
        widths = (solve.leaves, 8, 5, 1)
    loop = InnerLoopConfig(leaves=solve.leaves, refuters_per_candidate=solve.refuters, widths=widths, k=solve.k,
                           cover_strategies=solve.cover_strategies,
                           max_calls=max_calls if max_calls is not None else budget.max_calls)
    return loop, valid_table(config, "models")


def write_json_schema(path: Path = SCHEMA_FILE) -> None:
    """Write the JSON Schema generated from the typed schema (after a key is added or changed)."""
    import json

    path.write_text(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


__all__ = ["CONFIG_NAME", "SCHEMA_FILE", "TABLE_CLASSES", "UNKNOWN_KEY", "ConfigProblem", "IndexConfig",
           "ProjectConfig", "inner_loop", "json_schema", "load_config", "table", "table_classes", "valid_table",
           "write_json_schema"]
