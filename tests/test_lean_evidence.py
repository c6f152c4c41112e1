"""A passing Lean check as catalog evidence of kind `formal` (valid against knowledge/schema.json),
joined to the curator's own observation of the claim, never written into a person's entry; and
the report text that keeps the formal check apart from review."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from colosseum.catalog.store import load_catalog, read_entry
from colosseum.index import ProjectIndex
from colosseum.lean import check_lean, claim_results
from colosseum.lean.evidence import _clean_statement, evidence_section, record_formal_evidence
from doubles.lake_serve import install

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
LABEL = "lem:degree-arith"


@pytest.fixture
def checked(tmp_path, monkeypatch):
    """The example project, checked by Lean (the double): (index, report, catalog folder)."""
    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".colosseum"))
    script = {"declarations": {"ExampleProject.edge_degree_bound": {"module": "ExampleProject.Basic",
                                                                    "axioms": ["propext"]}}}
    monkeypatch.setenv("PATH", f"{install(tmp_path / 'double', script)}:/usr/bin:/bin")
    index = ProjectIndex.open(project)
    return index, check_lean(index), project / "knowledge"


def write_observation(directory: Path, entry_id: str, author: str, claim: str) -> Path:
    data = {"id": entry_id, "kind": "observation", "title": f"{LABEL} has a model-reviewed proof",
            "provenance": {"author": author, "run": "run-1" if author == "colosseum" else None,
                           "model": "claude" if author == "colosseum" else None, "date": "2026-11-30"},
            "links": {"labels": [LABEL], "entries": []}, "status": "active", "tags": ["run-outcome"],
            "claim": claim, "evidence": [{"type": "proof", "description": "Reviewed by model refuters.",
                                          "artifact": ".colosseum/runs/x/report.md"}],
            "strength": "proof"}
    path = directory / f"{entry_id}.md"
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False) + "---\nBody kept as written.\n")
    return path


def test_the_check_joins_the_curators_observation_as_formal_evidence(checked):
    index, report, catalog = checked
    claim_text = _clean_statement(index.claims[LABEL].statement_text)
    path = write_observation(catalog, "proof-of-lem-degree-arith", "colosseum", claim_text)
    results = claim_results(index, report)
    assert record_formal_evidence(catalog, results, report) == ["proof-of-lem-degree-arith"]
    entry, problems = read_entry(path)
    assert problems == []
    assert [e["type"] for e in entry.data["evidence"]] == ["proof", "formal"]  # two kinds, side by side
    assert entry.data["strength"] == "formal" and "updated" in entry.data
    assert "Body kept as written." in path.read_text()
    recorded = path.read_text()
    record_formal_evidence(catalog, results, report)
    assert path.read_text() == recorded  # the same check once
    # the Lean sources changed and were checked again: the newer check replaces the older one
    basic = index.root_dir / "lean" / "ExampleProject" / "Basic.lean"
    basic.write_text(basic.read_text() + "\n-- a comment\n")
    report = check_lean(index)
    record_formal_evidence(catalog, claim_results(index, report), report)
    entry, problems = read_entry(path)
    assert problems == [] and [e["type"] for e in entry.data["evidence"]] == ["proof", "formal"]
    assert entry.data["evidence"][1]["description"] not in recorded
    assert load_catalog(catalog).malformed() == []


def test_a_persons_entry_is_never_edited(checked):
    index, report, catalog = checked
    claim_text = _clean_statement(index.claims[LABEL].statement_text)
    theirs = write_observation(catalog, "degree-arith-by-hand", "Jane Doe", claim_text)
    before = theirs.read_text()
    (written,) = record_formal_evidence(catalog, claim_results(index, report), report)
    assert theirs.read_text() == before
    entry, problems = read_entry(catalog / f"{written}.md")
    assert problems == [] and entry.data["duplicate_of"] == "degree-arith-by-hand"
    assert entry.data["provenance"]["author"] == "colosseum" and entry.data["strength"] == "formal"


def test_the_report_shows_the_formal_check_apart_from_review(checked):
    index, report, _catalog = checked
    text = evidence_section(index, LABEL, report)
    assert "- Formal check (Lean): **checked by Lean** (leanprover/lean4:v4.15.0)" in text
    assert "- Review (model referees)" in text and "never merged" in text
    assert "not formally checked" in evidence_section(index, "lem:resampling", report)
    report.decls["ExampleProject.edge_degree_bound"].status = "sorry"
    assert "**statement formalized, proof not checked**" in evidence_section(index, LABEL, report)
    report.decls["ExampleProject.edge_degree_bound"].status = "missing"
    assert "**fails**" in evidence_section(index, LABEL, report)


def test_formal_results_reach_the_provers_as_trusted_and_the_check_commands_from_the_cache(checked, capsys):
    from colosseum.cli.main import main
    from colosseum.loops.inner.context import obligation_context
    from colosseum.lean import apply_formal, formal_ids
    from colosseum.lean.evidence import cached_evidence_section

    index, report, catalog = checked
    apply_formal(index, formal_ids(claim_results(index, report)))
    assert index.graph.status[LABEL] == "formal"
    # an obligation that may assume it sees it as trusted, apart from the paper's reviewed results
    context = obligation_context(index, "lem:resampling", load_catalog(catalog))
    assert f"[{LABEL}] lemma (Degree arithmetic), status formal (checked by Lean: trusted):" in context.assumable
    assert "status formal:" not in context.assumable
    # a later process reads the verdict from the cache (Lean is not run) for check, dag and the report
    assert "**checked by Lean**" in cached_evidence_section(ProjectIndex.open(index.root_dir), LABEL)
    assert main(["dag", str(index.root_dir)]) == 0
    import json

    nodes = {n["id"]: n for n in json.loads(capsys.readouterr().out)["nodes"]}
    # the public status stays one of the four; what Lean checked is said apart
    assert nodes[LABEL]["status"] == "proved" and nodes[LABEL]["lean_checked"] is True and nodes[LABEL]["formal"] is True
    assert not any(n["lean_checked"] for n in nodes.values() if n["id"] != LABEL)


def test_an_entry_id_from_a_non_ascii_label_is_a_valid_id(tmp_path):
    from colosseum.lean.evidence import _add_formal

    item = {"type": "formal", "description": "Lean checked Big.size.", "artifact": "Big.size"}
    entry_id = _add_formal(tmp_path, "thm:Größe²", "Every set is big.", item, "lean")
    entry, problems = read_entry(tmp_path / f"{entry_id}.md")
    assert problems == [] and re.fullmatch(r"lean-check-of-thm-gr-e-[0-9a-f]{6}", entry_id)
    assert _add_formal(tmp_path, "thm:Größe²", "Every set is big.", item, "lean") == entry_id  # found again
