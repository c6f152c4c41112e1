"""What a person decided about a model's draft, in the catalog.

Accepting a draft is a person's review: the claim's observation (``proof-of-<label>``, written by
the curator when the run ended) gains a ``proof`` evidence item with ``reviewed_by: person`` and
the reviewer's git ``user.name`` when there is one. Rejecting it records a failed route for the
claim whose failure point and critique are the run's surviving critiques (or, when none survived,
the author's rejection itself), so that the next attempt is not guessed again. Entries a person
wrote are never rewritten: a new entry is written beside them.
"""

from __future__ import annotations

import datetime
import subprocess
from dataclasses import dataclass
from pathlib import Path

from colosseum.catalog.curator import (_body_of, _by_curator, _clean_statement, _free_id, _observations_of, _slug,
                                       _write_entry, approach_key)
from colosseum.catalog.store import load_catalog
from colosseum.catalog.write import catalog_lock


@dataclass(frozen=True, slots=True)
class Critique:
    """A critique that survived a run, as run.json keeps it."""

    severity: str
    kind: str
    quote: str
    explanation: str


def git_user_name(cwd: Path | None = None) -> str:
    """git's ``user.name`` (of the repository at ``cwd``, else the user's), "" when there is none."""
    try:
        done = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True, timeout=5,
                              cwd=cwd if cwd is not None and cwd.is_dir() else None)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def record_draft_accepted(directory: Path, label: str, statement: str, run_id: str, reviewer: str,
                          artifact: str) -> str:
    """A person accepted the draft of ``label`` written by run ``run_id``: a ``proof`` evidence
    item ``reviewed_by: person`` (and ``reviewer`` when known) on the claim's observation, a new
    observation when there is none the curator wrote. Returns the entry's id."""
    who = reviewer or "the author"
    evidence = {"type": "proof",
                "description": f"The proof written by run {run_id or '(unnamed)'} was read and accepted into the "
                               f"paper by {who}.",
                "artifact": artifact, "reviewed_by": "person"}
    if reviewer:
        evidence["reviewer"] = reviewer
    claim_text = _clean_statement(statement) or label
    today = datetime.date.today().isoformat()
    with catalog_lock(directory):
        catalog = load_catalog(directory, with_starter=False)
        for entry in _observations_of(catalog, label, claim_text):
            if not _by_curator(entry):
                continue  # a person's entry: never rewritten
            items = [i for i in entry.data.get("evidence") or [] if i != evidence]
            _write_entry(entry.file, dict(entry.data, evidence=[*items, evidence], strength="proof", updated=today),
                         _body_of(entry.file))
            return entry.id
        entry_id = _free_id(directory, f"proof-of-{_slug(label)}")
        data = {"id": entry_id, "kind": "observation", "title": f"{label} has a proof accepted by a person"[:200],
                "provenance": {"author": reviewer or "author", "run": run_id or None, "model": None, "date": today},
                "links": {"labels": [label], "entries": []}, "status": "active", "tags": ["draft-accepted"],
                "claim": claim_text, "evidence": [evidence], "strength": "proof",
                "scope": "the statement as it read when the draft was accepted"}
        _write_entry(directory / f"{entry_id}.md", data,
                     f"Recorded when a person accepted the model's draft of `{label}` (run {run_id or 'unnamed'}).\n")
    return entry_id


def record_draft_rejected(directory: Path, label: str, run_id: str, approach: str, critiques: list[Critique],
                          reviewer: str, proof: str) -> str:
    """A person rejected the draft of ``label``: a failed route whose failure point and critique
    are the first surviving critique (the worst), the others as further failures. Returns its id."""
    today = datetime.date.today().isoformat()
    who = reviewer or "the author"
    provenance = {"author": reviewer or "author", "run": run_id or None, "model": None, "date": today}
    ranked = sorted(critiques, key=lambda c: _SEVERITY_ORDER.get(c.severity, len(_SEVERITY_ORDER)))
    if ranked:
        first, rest = ranked[0], ranked[1:]
        failure_point, critique = first.quote or "(not quoted)", _critique_text(first)
    else:
        rest = []
        failure_point = "(no critique survived the run)"
        critique = f"rejected by {who} on reading the draft"
    approach = approach or f"the draft of run {run_id or '(unnamed)'}"
    with catalog_lock(directory):
        entry_id = _free_id(directory, f"failed-{_slug(label)}-{approach_key(approach)}")
        data = {"id": entry_id, "kind": "failed-route", "title": f"{label}: {approach}"[:200],
                "provenance": provenance, "links": {"labels": [label], "entries": []}, "status": "active",
                "tags": ["failed-route", "draft-rejected"], "target": {"label": label}, "approach": approach,
                "approach_key": approach_key(approach), "failure_point": failure_point, "critique": critique}
        if rest:
            data["further_failures"] = [{"failure_point": c.quote or "(not quoted)", "critique": _critique_text(c)}
                                        for c in rest]
        _write_entry(directory / f"{entry_id}.md", data,
                     f"Recorded when {who} rejected the model's draft of `{label}` (run {run_id or 'unnamed'}). "
                     f"The proof that was rejected:\n\n{proof.strip()}\n")
    return entry_id


_SEVERITY_ORDER = {"fatal": 0, "major": 1, "minor": 2}


def _critique_text(critique: Critique) -> str:
    return f"{critique.severity} {critique.kind}: {critique.explanation}".strip()
