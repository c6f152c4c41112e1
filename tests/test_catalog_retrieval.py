"""Retrieval from the catalog into prompts: failed routes for the target first, linked entries,
then similar ones, within a token budget; retracted entries never."""

from __future__ import annotations

from pathlib import Path

from colosseum.catalog.store import load_catalog
from colosseum.catalog.retrieval import CatalogSearch

ROOT = Path(__file__).resolve().parents[1]


def test_order_failed_route_linked_then_similar_within_budget():
    catalog = load_catalog(ROOT / "example-project" / "knowledge")
    search = CatalogSearch(catalog)
    got = search.retrieve("lem:resampling", {"thm:lll", "thm:moser-tardos"},
                          "expected number of resampling steps of the algorithm, local lemma", token_budget=4000)
    ids = [e.id for e in got.entries]
    assert ids[0] == "resampling-by-direct-count" and got.reasons[ids[0]] == "a failed route for this target"
    assert "lll-symmetric-erdos-lovasz" in ids  # linked to thm:lll, an ancestor
    assert any(why.startswith("similar") for why in got.reasons.values())
    assert 0 < got.tokens <= 4000
    tight = search.retrieve("lem:resampling", set(), "local lemma", token_budget=10)
    assert [e.id for e in tight.entries] == ["resampling-by-direct-count"]  # always, even over budget


def test_retracted_entries_are_never_retrieved(tmp_path):
    source = ROOT / "example-project" / "knowledge" / "smallest-uniformity-per-degree.md"
    text = source.read_text().replace("status: active", "status: retracted\nretraction_reason: 'Off by one.'")
    (tmp_path / "smallest-uniformity-per-degree.md").write_text(text)
    catalog = load_catalog(tmp_path)
    got = CatalogSearch(catalog).retrieve("thm:main", set(), "smallest k maximum degree condition")
    assert "smallest-uniformity-per-degree" not in [e.id for e in got.entries]
