"""The VS Code settings page validates: every setting editor-clients/vscode/package.json contributes
has a schema that is valid JSON Schema, its default passes it, and what an author may type wrongly
(a negative budget, a code with a space, a macro with braces) is refused there, before the server."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

MANIFEST = Path(__file__).resolve().parent.parent / "editor-clients" / "vscode" / "package.json"
PROPERTIES = json.loads(MANIFEST.read_text(encoding="utf-8"))["contributes"]["configuration"]["properties"]


@pytest.mark.parametrize("key", sorted(PROPERTIES))
def test_each_setting_has_a_valid_schema_and_default(key):
    schema = PROPERTIES[key]
    jsonschema.Draft7Validator.check_schema(schema)
    assert "default" in schema, key
    jsonschema.validate(schema["default"], schema)
    assert schema.get("markdownDescription") or schema.get("description"), key


@pytest.mark.parametrize("key, bad", [
    ("colosseum.budget.maxCalls", -1),
    ("colosseum.budget.maxUsd", -0.5),
    ("colosseum.ignoredDiagnostics", ["colosseum/unused label"]),
    ("colosseum.ignoredDiagnostics", ["colosseum/unused-label", "colosseum/unused-label"]),
    ("colosseum.labelDefinitionCommands", ["my{label}"]),
    ("colosseum.labelReferenceCommands", [""]),
    ("colosseum.trace.server", "loud"),
    ("colosseum.server.command", "colosseum serve"),
])
def test_wrong_values_are_refused(key, bad):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, PROPERTIES[key])


@pytest.mark.parametrize("key, good", [
    ("colosseum.ignoredDiagnostics", ["colosseum/undefined-reference"]),
    ("colosseum.labelDefinitionCommands", ["mylabel", "\\lemlabel"]),
    ("colosseum.server.command", ["python", "-m", "colosseum", "serve"]),
])
def test_right_values_pass(key, good):
    jsonschema.validate(good, PROPERTIES[key])
