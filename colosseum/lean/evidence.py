"""A passing Lean check as evidence in the catalog, and in the reports next to (never merged
with) what reviewers said.

The catalog records it as evidence of kind ``formal`` on the claim's observation (format:
knowledge/FORMAT.md): the curator's own observation of that statement gains the item (one per
set of declarations, the latest check replacing an older one) and its strength becomes
``formal``; a person's entry is never edited (ours then names it in ``duplicate_of``)."""

from __future__ import annotations

import datetime
import hashlib
from pathlib import Path

from colosseum.catalog.store import load_catalog
from colosseum.catalog.curator import _body_of, _by_curator, _clean_statement, _free_id, _observations_of, _slug, _write_entry
from colosseum.catalog.write import catalog_lock
from colosseum.lean.findings import ClaimResult
from colosseum.lean.results import STANDARD_AXIOMS, LeanReport


def formal_evidence_item(result: ClaimResult, report: LeanReport) -> dict:
    names = [d.name for d in result.decls]
    axioms = sorted({a for d in result.decls for a in d.axioms})
    sources = sorted({d.source for d in result.decls if d.source is not None})
    digest = hashlib.sha256()
    for path in sources:
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
    where = ", ".join(_relative(report, p) for p in sources) or "the Lean project"
    return {
        "type": "formal",
        "description": (f"Lean ({report.toolchain or 'toolchain unknown'}) checked {', '.join(names)} in {where}: "
                        f"it exists, elaborates without errors, uses no sorry, and depends on the axioms "
                        f"{', '.join(axioms) or 'none'} only (accepted: {', '.join(STANDARD_AXIOMS)}). "
                        f"Lean sources sha256 {digest.hexdigest()[:16]}. That the Lean statement says what the "
                        f"paper's does is the author's claim (\\lean{{...}}), not Lean's."),
        "artifact": ", ".join(names),
    }


def record_formal_evidence(directory: Path, results: list[ClaimResult], report: LeanReport) -> list[str]:
    """Write the passing checks of labelled claims to the catalog; returns the entry ids touched."""
    written: list[str] = []
    for result in results:
        if result.status != "formal" or not result.claim.label:
            continue
        entry_id = _add_formal(directory, result.claim.label, result.claim.statement_text,
                               formal_evidence_item(result, report), report.toolchain or "lean")
        if entry_id:
            written.append(entry_id)
    return written


def _add_formal(directory: Path, label: str, statement: str, item: dict, checker: str) -> str | None:
    today = datetime.date.today().isoformat()
    claim_text = _clean_statement(statement) or label
    with catalog_lock(directory):
        catalog = load_catalog(directory, with_starter=False)
        by_person = None
        for entry in _observations_of(catalog, label, claim_text):
            if not _by_curator(entry):
                by_person = by_person or entry.id
                continue
            items = [i for i in (entry.data.get("evidence") or []) if isinstance(i, dict)]
            if item in items:
                return entry.id  # the same check is recorded already
            kept = [i for i in items if not (i.get("type") == "formal" and i.get("artifact") == item["artifact"])]
            data = dict(entry.data, evidence=kept + [item], strength="formal", updated=today)
            _write_entry(entry.file, data, _body_of(entry.file))
            return entry.id
        entry_id = _free_id(directory, f"lean-check-of-{_slug(label)}")
        data = {"id": entry_id, "kind": "observation", "title": f"{label} is checked by Lean"[:200],
                "provenance": {"author": "colosseum", "run": None, "model": checker, "date": today},
                "links": {"labels": [label], "entries": []}, "status": "active", "tags": ["formal"],
                "claim": claim_text, "evidence": [item], "strength": "formal",
                "scope": "the statement as it read when Lean checked the declarations it names"}
        if by_person:
            data["duplicate_of"] = by_person
        _write_entry(directory / f"{entry_id}.md", data,
                     "Written by Colosseum's Lean check. Lean checked the proof of the named declarations; "
                     "whether they state what the paper states is for a person to confirm.\n")
    return entry_id


def evidence_section(index, label: str, report: LeanReport) -> str:
    """Markdown for a run's report: the formal check of ``label``, shown apart from review."""
    from colosseum.lean.findings import claim_results

    result = next((r for r in claim_results(index, report) if r.id == label), None)
    if result is None:
        formal = "no Lean declaration is named for this claim (no \\lean{...}): not formally checked."
    elif result.status == "formal":
        formal = f"**checked by Lean** ({report.toolchain}): {result.summary}."
    elif result.status == "failed":
        formal = f"**fails**: {result.summary}."
    elif result.status == "statement":
        formal = f"**statement formalized, proof not checked**: {result.summary}."
    else:
        formal = f"not checked: {result.summary}."
    return "\n".join(["## Evidence by kind", "",
                      f"- Formal check (Lean): {formal}",
                      "- Review (model referees): the critiques below. A review that found no error is evidence, "
                      "not a formal check; the two are never merged.", ""])


def _relative(report: LeanReport, path: Path) -> str:
    base = report.lean_project.parent if report.lean_project is not None else None
    try:
        return path.relative_to(base).as_posix() if base else path.as_posix()
    except ValueError:
        return path.as_posix()


def cached_evidence_section(index, label: str) -> str:
    """``evidence_section`` from the Lean cache alone (Lean is not run): what a solve's report shows.
    A Lean setup that cannot be read gives an empty section, never a failed run."""
    from colosseum.lean.checker import plan_check, run_plan

    try:
        return evidence_section(index, label, run_plan(plan_check(index), cache_only=True))
    except Exception:  # noqa: BLE001 - the report is written whatever Lean's state
        return ""
