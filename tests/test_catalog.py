"""The knowledge catalog: entries read and checked; a malformed entry is reported, never dropped
silently, and never takes the others down."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from colosseum.catalog.store import load_catalog, read_entry
from colosseum.core.schema_version import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[1]

GOOD = """---
id: {id}
kind: observation
title: 'Small cases hold'
provenance:
  author: Ada
  run: null
  model: null
  date: 2026-12-03
links:
  labels: [lem:a]
  entries: [{deps}]
status: {status}
{extra}tags: [computation]
claim: 'The bound holds for $n \\le 10$.'
evidence:
  - type: computation
    description: 'Exhaustive search over all graphs on at most 10 vertices.'
strength: computation
---
Body text.
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text)
    return path


def good(entry_id: str, deps: str = "", status: str = "active", extra: str = "") -> str:
    return GOOD.format(id=entry_id, deps=deps, status=status, extra=extra)


def test_the_starter_catalog_is_valid_and_has_the_standard_results():
    catalog = load_catalog(None)
    assert catalog.problems == []
    assert len(catalog.entries) >= 30
    for needed in ("union-bound", "chernoff-multiplicative-upper-tail", "lovasz-local-lemma-symmetric",
                   "hall-marriage-theorem", "johnson-lindenstrauss-lemma", "azuma-hoeffding-inequality"):
        entry = catalog.entries[needed]
        assert entry.layer == "starter" and entry.data["hypotheses"], needed
        assert entry.data["source"]["reference"], needed


def test_a_valid_entry_checks_clean(tmp_path):
    # our own sample must satisfy the shipped schema, or the other tests prove nothing
    entry, problems = read_entry(write(tmp_path, "small-cases", good("small-cases")))
    assert problems == [] and entry is not None and entry.kind == "observation"


def test_malformed_entries_are_reported_with_file_and_field_and_the_rest_stays_usable(tmp_path):
    folder = tmp_path / "knowledge"
    write(folder, "small-cases", good("small-cases"))
    write(folder, "typo", good("typo").replace("claim:", "clam:"))
    write(folder, "wrong-name", good("other-name"))
    write(folder, "broken-yaml", "---\nid: [unclosed\n---\n")
    write(folder, "no-end", "---\nid: no-end\n")
    (folder / "README.md").write_text("# notes, not an entry\n")
    catalog = load_catalog(folder, with_starter=False)
    assert "small-cases" in catalog.entries
    problems = {(p.file.name, p.field): p.message for p in catalog.malformed()}
    assert any(f == "typo.md" and "clam" in m and "claim" in m for (f, _), m in problems.items())
    assert problems[("wrong-name.md", "id")].startswith("id `other-name` differs")
    assert "not valid YAML" in problems[("broken-yaml.md", "")]
    assert "closing" in problems[("no-end.md", "")]
    assert not any(p.file.name == "README.md" for p in catalog.problems)


def test_links_supersede_and_retraction_are_checked_across_files(tmp_path):
    folder = tmp_path / "knowledge"
    write(folder, "base", good("base", status="retracted", extra="retraction_reason: 'Counterexample at n = 11.'\n"))
    write(folder, "uses-base", good("uses-base", deps="base"))
    write(folder, "dangling", good("dangling", deps="nowhere"))
    write(folder, "a", good("a", status="superseded", extra="superseded_by: b\n"))
    write(folder, "b", good("b", status="superseded", extra="superseded_by: a\n"))
    catalog = load_catalog(folder, with_starter=False)
    by_file = {}
    for p in catalog.problems:
        by_file.setdefault(p.file.name, []).append((p.severity, p.message))
    assert ("warning", "suspect: depends on the retracted entry `base`") in by_file["uses-base.md"]
    assert ("error", "no entry `nowhere` in the catalog") in by_file["dangling.md"]
    assert any("circle" in m for _, m in by_file["a.md"])


def test_a_project_entry_shadows_a_starter_entry_and_says_so(tmp_path):
    folder = tmp_path / "knowledge"
    write(folder, "union-bound", good("union-bound"))
    catalog = load_catalog(folder)
    assert catalog.entries["union-bound"].layer == "project"
    assert any(p.severity == "information" and "shadows" in p.message for p in catalog.problems)


def test_knowledge_check_exits_1_on_a_malformed_entry(tmp_path):
    (tmp_path / "main.tex").write_text("\\documentclass{article}\\begin{document}x\\end{document}\n")
    write(tmp_path / "knowledge", "small-cases", good("small-cases"))
    ok = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "check", str(tmp_path), "--format", "json"],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout)["entries"] >= 31 and json.loads(ok.stdout)["schema_version"] == SCHEMA_VERSION
    write(tmp_path / "knowledge", "typo", good("typo").replace("status: active", "status: maybe"))
    bad = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "check", str(tmp_path)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1
    assert "knowledge/typo.md:1: error status:" in bad.stdout
    shown = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "show", str(tmp_path), "small-cases",
                            "--format", "json"], capture_output=True, text=True, timeout=60)
    assert json.loads(shown.stdout)["claim"].startswith("The bound holds")
    assert json.loads(shown.stdout)["schema_version"] == SCHEMA_VERSION
    listed = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "list", str(tmp_path), "--format", "json"],
                            capture_output=True, text=True, timeout=60)
    data = json.loads(listed.stdout)  # an object like every other JSON output, the list under "entries"
    assert set(data) == {"schema_version", "entries"} and data["schema_version"] == SCHEMA_VERSION
    assert {"id": "small-cases", "layer": "project"}.items() <= next(
        e for e in data["entries"] if e["id"] == "small-cases").items()


def test_the_example_project_catalog_has_all_four_kinds_and_is_valid():
    catalog = load_catalog(ROOT / "example-project" / "knowledge", with_starter=True)
    assert catalog.malformed() == []
    project = [e for e in catalog.entries.values() if e.layer == "project"]
    assert {e.kind for e in project} == {"result", "failed-route", "literature", "observation"}
    labels = {label for e in project for label in e.links.get("labels", [])}
    assert {"lem:mono-prob", "lem:resampling", "thm:lll", "thm:main"} <= labels


def test_a_proofs_evidence_says_who_reviewed_it_model_or_person(tmp_path):
    folder = tmp_path / "knowledge"
    proof_by = "  - type: proof\n    description: 'Read line by line.'\n    reviewed_by: {who}\n    reviewer: 'Ada'\n"
    for name, who in (("by-model", "model"), ("by-person", "person"), ("by-robot", "robot")):
        write(folder, name, good(name).replace("strength: computation", proof_by.format(who=who)
                                               + "strength: computation"))
    catalog = load_catalog(folder, with_starter=False)
    flagged = {p.file.stem for p in catalog.problems if "reviewed_by" in f"{p.field} {p.message}"}
    assert flagged == {"by-robot"}
    assert catalog.entries["by-person"].data["evidence"][1]["reviewer"] == "Ada"
