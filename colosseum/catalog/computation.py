"""A probe's consistent verdict as catalog evidence of kind ``computation``, with the ``range`` it
checked (contracts: "Evidence kinds"), kept apart from model review and Lean: an observation that
a claim held on small cases, never that it is proved.

The curator's own observation of the statement gains the item (one per run: its artifact is the
run's record); a person's observation is never edited, ours then stands beside it."""

from __future__ import annotations

import datetime
from pathlib import Path

from colosseum.catalog.curator import _body_of, _by_curator, _clean_statement, _free_id, _observations_of, _slug, _write_entry
from colosseum.catalog.store import load_catalog
from colosseum.catalog.write import catalog_lock


def describe_range(checked: dict) -> str:
    """``{"n": [1, 30]}`` as "1 <= n <= 30"."""
    return ", ".join(f"{low:g} <= {name} <= {high:g}" for name, (low, high) in sorted(checked.items()))


def computation_item(checked: dict, cases: int, artifact: str, model: str) -> dict:
    where = describe_range(checked) or "the cases the run lists"
    return {"type": "computation",
            "description": (f"A probe written by {model} checked {cases} case(s) ({where}) in a sandbox and "
                            f"found no counterexample. Small cases only: not a proof."),
            "artifact": artifact, "range": {name: list(bounds) for name, bounds in checked.items()}}


def counterexample_item(checked: dict, case: str, artifact: str, model: str) -> dict:
    """A probe's counterexample: the case where the claim fails, and the run that shows it."""
    item = {"type": "computation", "verdict": "counterexample", "counterexample": case.strip() or "see the run",
            "description": (f"A probe written by {model} found a case where the claim fails, in a sandbox: "
                            f"{case.strip() or 'see the run'}. The code is a model's: read it before relying on it."),
            "artifact": artifact}
    if checked:
        item["range"] = {name: list(bounds) for name, bounds in checked.items()}
    return item


def record_computation(directory: Path, label: str, statement: str, item: dict, run_id: str, model: str) -> str:
    """Add ``item`` to the curator's observation of ``label``'s statement (made when missing);
    returns the entry's id. A counterexample has an observation of its own: the one that says the
    claim held on small cases would misname it."""
    today = datetime.date.today().isoformat()
    claim_text = _clean_statement(statement) or label
    failing = item.get("verdict") == "counterexample"
    with catalog_lock(directory):
        catalog = load_catalog(directory, with_starter=False)
        for entry in _observations_of(catalog, label, claim_text):
            if not _by_curator(entry) or ("counterexample" in (entry.data.get("tags") or [])) != failing:
                continue
            items = [i for i in (entry.data.get("evidence") or []) if isinstance(i, dict)]
            if not any(i.get("artifact") == item["artifact"] for i in items):
                _write_entry(entry.file, dict(entry.data, evidence=items + [item]), _body_of(entry.file))
            return entry.id
        entry_id = _free_id(directory, f"{'counterexample-to' if failing else 'probe-of'}-{_slug(label)}")
        title = (f"A probe found a counterexample to {label}" if failing
                 else f"{label} holds on the small cases a probe checked")
        data = {"id": entry_id, "kind": "observation", "title": title[:200],
                "provenance": {"author": "colosseum", "run": run_id, "model": model, "date": today},
                "links": {"labels": [label], "entries": []}, "status": "active",
                "tags": ["computation"] + (["counterexample"] if failing else []),
                "claim": claim_text, "evidence": [item], "strength": "computation",
                "scope": describe_range(item.get("range") or {}) or "the cases the run lists"}
        _write_entry(directory / f"{entry_id}.md", data,
                     "Written by the curator from a probe: code a model wrote, run in a sandbox on small cases. "
                     "It is evidence that the claim holds there, not a proof; the run's record has the code.\n")
    return entry_id
