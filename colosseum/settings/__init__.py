"""Settings: colosseum.toml read against one typed schema (colosseum.settings.schema), its problems
on their lines (colosseum.settings.load), and the typed tables the loops read."""

from __future__ import annotations

from pathlib import Path

from colosseum.settings.load import UNKNOWN_KEY, ConfigProblem
from colosseum.settings.project import CONFIG_NAME, ProjectConfig, load_config, table, valid_table
from colosseum.settings.schema import TABLE_CLASSES, IndexConfig, json_schema, table_classes

# the JSON Schema editors read; generated from the schema (tests/test_settings_schema.py keeps it so)
SCHEMA_FILE = Path(__file__).resolve().parent.parent / "data" / "colosseum-toml.schema.json"


def write_json_schema(path: Path = SCHEMA_FILE) -> None:
    """Write the JSON Schema generated from the typed schema (after a key is added or changed)."""
    import json  # only a maintainer writes the schema: a cold `check` never imports it for this

    path.write_text(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


__all__ = ["CONFIG_NAME", "SCHEMA_FILE", "TABLE_CLASSES", "UNKNOWN_KEY", "ConfigProblem", "IndexConfig",
           "ProjectConfig", "json_schema", "load_config", "table", "table_classes", "valid_table",
           "write_json_schema"]
