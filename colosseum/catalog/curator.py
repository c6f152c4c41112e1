"""The curator: after a solve, the routes that broke (a fatal critique reached the root) are written to
the catalog as failed-route entries, with the exact point where each broke and the critique that
broke it, so that the next attempt is not guessed again; the proof the run ended with is written as
an observation whose evidence says exactly what checked it (model refuters, not a person); results
proved in the paper by a run are written as results. A route already recorded for the same target
and the same approach is merged (the run is added to ``also_seen``), an observation of the same
claim gains the run as one more piece of evidence, and an entry a person wrote is never rewritten."""

from __future__ import annotations

import datetime
import hashlib
import itertools
import os
import re
import socket
import time
from pathlib import Path

import yaml

from colosseum.catalog.store import CATALOG_FORMAT_VERSION, load_catalog
from colosseum.catalog.write import catalog_lock, write_atomically
from colosseum.latex.arguments import after_optional


def approach_key(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words[:8]) or "unnamed"


def root_failures(result) -> list[tuple[object, object]]:
    """(critique, the bundle it was written against) for each anchored fatal critique that reached
    the root: a leaf's critique that an aggregator later resolved is no failed route."""
    failures = []
    for crit in result.surviving_critiques:
        if crit.severity == "fatal" and crit.anchored:
            failures.append((crit, result.bundles.get(crit.origin) or result.root))
    return failures


def record_failed_routes(directory: Path, label: str, result, run_id: str, model: str) -> list[str]:
    """Write one failed route per route (the candidate's strategy) broken by a fatal critique that
    reached the root; returns the ids written or merged."""
    today = datetime.date.today().isoformat()
    written: list[str] = []
    with catalog_lock(directory):
        catalog = load_catalog(directory, with_starter=False)
        existing = {(((e.data.get("target") or {}).get("label")), e.data.get("approach_key")): e
                    for e in catalog.entries.values() if e.kind == "failed-route"}
        handled: set[tuple[str, str]] = set()
        for crit, bundle in root_failures(result):
            approach = bundle.candidate.strategy or bundle.candidate.angle or "unnamed approach"
            key = approach_key(approach)
            if (label, key) in handled:
                continue  # one entry per route per run
            handled.add((label, key))
            known = existing.get((label, key))
            if known is not None:
                if known.data.get("provenance", {}).get("author") != "colosseum":
                    continue  # a person's entry: never rewritten by the curator
                seen = list(known.data.get("also_seen") or [])
                if not any(s.get("run") == run_id for s in seen if isinstance(s, dict)):
                    seen.append({"run": run_id, "date": today})
                    data = dict(known.data, also_seen=seen)
                    _write_entry(known.file, data, _body_of(known.file))
                written.append(known.id)
                continue
            entry_id = _free_id(directory, f"failed-{_slug(label)}-{key}")
            data = {
                "id": entry_id, "kind": "failed-route", "title": f"{label}: {approach}"[:200],
                "provenance": {"author": "colosseum", "run": run_id, "model": model, "date": today},
                "links": {"labels": [label], "entries": []}, "status": "active", "tags": ["failed-route"],
                "target": {"label": label}, "approach": approach, "approach_key": key,
                "failure_point": crit.quote, "critique": f"{crit.kind}: {crit.explanation}",
            }
            _write_entry(directory / f"{entry_id}.md", data,
                         f"Written by the curator after run {run_id}. The proof that broke:\n\n{bundle.candidate.proof}\n")
            written.append(entry_id)
    return written


def record_run_outcome(directory: Path, label: str, statement: str, result, run_id: str, model: str,
                       report: str) -> list[str]:
    """Everything a finished solve teaches the catalog: its failed routes and, only when its verdict
    is "unrefuted" (no fatal or major critique survived the final check), an observation that the
    statement has a model-reviewed proof (``report`` is where to re-read it, relative to the
    project). A refuted run records its failed routes only. Returns the ids written."""
    written = record_failed_routes(directory, label, result, run_id, model)
    if result.verdict != "unrefuted":
        return written
    surviving = result.surviving_critiques
    refuted = sum(1 for b in result.bundles.values() if b.level == 0)
    minor = ", ".join(f"{c.severity} {c.kind}" for c in surviving) or "none"
    evidence = {"type": "proof",
                "description": f"Proof written by {model} in run {run_id}: {refuted} candidate proofs were each "
                               f"attacked by refuters and merged by aggregation; verdict unrefuted; critiques left "
                               f"on the final proof: {minor}. Not yet read by a person.",
                "artifact": report, "reviewed_by": "model", "reviewer": f"{model} (run {run_id})"}
    written.append(_add_evidence(directory, label, statement, evidence, run_id, model))
    return written


def record_reviewed_proof(directory: Path, label: str, statement: str, description: str, artifact: str,
                          run_id: str, model: str) -> str:
    """An observation that ``label`` has a proof checked by model review (e.g. a lemma of a research
    draft that passed its local review); ``artifact`` is where the proof is, relative to the project."""
    return _add_evidence(directory, label, statement, {"type": "proof", "description": description,
                                                         "artifact": artifact, "reviewed_by": "model",
                                                         "reviewer": f"{model} (run {run_id})"}, run_id, model)


def _add_evidence(directory: Path, label: str, statement: str, evidence: dict, run_id: str, model: str) -> str:
    """One observation per claim statement: a later run adds its evidence to the same entry
    (unless a person wrote it, or the statement changed since)."""
    today = datetime.date.today().isoformat()
    claim_text = _clean_statement(statement) or label
    with catalog_lock(directory):
        catalog = load_catalog(directory, with_starter=False)
        for entry in _observations_of(catalog, label, claim_text):
            if not _by_curator(entry):
                return entry.id  # a person's entry: never rewritten by the curator
            items = list(entry.data.get("evidence") or [])
            if not any(isinstance(i, dict) and i.get("artifact") == evidence["artifact"] for i in items):
                items.append(evidence)
                _write_entry(entry.file, dict(entry.data, evidence=items), _body_of(entry.file))
            return entry.id
        entry_id = _free_id(directory, f"proof-of-{_slug(label)}")
        data = {"id": entry_id, "kind": "observation", "title": f"{label} has a model-reviewed proof"[:200],
                "provenance": {"author": "colosseum", "run": run_id, "model": model, "date": today},
                "links": {"labels": [label], "entries": []}, "status": "active", "tags": ["run-outcome"],
                "claim": claim_text, "evidence": [evidence], "strength": "proof",
                "scope": "the statement as it read when the run started"}
        _write_entry(directory / f"{entry_id}.md", data,
                     "Written by the curator. The evidence is model review, not a person's reading: read the "
                     "report before relying on it, and once the proof is in the paper, record it as a result.\n")
    return entry_id


def record_result(directory: Path, label: str, statement: str, run_id: str | None, model: str | None,
                  author: str = "colosseum") -> str:
    """A `result` entry for a claim whose proof now lives in the paper under ``label`` (e.g. a
    lemma the research pipeline proved in its skeleton). An existing result for the label is
    kept: updated when the curator wrote it, untouched when a person did."""
    today = datetime.date.today().isoformat()
    text = _clean_statement(statement) or label
    with catalog_lock(directory):
        catalog = load_catalog(directory, with_starter=False)
        for entry in catalog.entries.values():
            if entry.kind == "result" and (entry.data.get("proof") or {}).get("label") == label:
                if _by_curator(entry) and entry.data.get("statement") != text:
                    _write_entry(entry.file, dict(entry.data, statement=text), _body_of(entry.file))
                return entry.id
        entry_id = _free_id(directory, _slug(label) or "result")
        data = {"id": entry_id, "kind": "result", "title": f"{label} (proved in the paper)"[:200],
                "provenance": {"author": author, "run": run_id, "model": model, "date": today},
                "links": {"labels": [label], "entries": []}, "status": "active", "tags": ["result"],
                "statement": text, "hypotheses": [], "conclusion": "See the statement.", "proof": {"label": label}}
        _write_entry(directory / f"{entry_id}.md", data,
                     "Written by the curator. Write the hypotheses out, one per item, when you review it.\n")
    return entry_id


def retract_entry(directory: Path, entry_id: str, reason: str) -> tuple[list, list[str]]:
    """Retract one project entry with the author's reason. Returns the validation problems of the
    written entry and the ids that are now suspect because of it (retraction propagates)."""
    from colosseum.catalog.store import read_entry
    from colosseum.catalog.checks import suspect_entries
    from colosseum.catalog.write import set_fields

    if not reason.strip():
        raise ValueError("a retraction needs a reason")
    catalog = load_catalog(directory)
    entry = catalog.entries.get(entry_id)
    if entry is None:
        raise KeyError(f"no entry `{entry_id}` in {directory}")
    if entry.layer != "project":
        raise PermissionError(f"`{entry_id}` is a starter entry, read-only: copy it into the project first")
    set_fields(entry.file, {"status": "retracted", "retraction_reason": reason.strip(), "superseded_by": None})
    _, problems = read_entry(entry.file)
    suspect = sorted(e for e in suspect_entries(load_catalog(directory)) if e != entry_id)
    return problems, suspect


def _clean_statement(statement: str) -> str:
    """The claim as the curator writes it (its own observations are found by this text)."""
    return "\n".join(line for line in statement.strip().splitlines()
                     if not line.strip().startswith(("\\label", "%"))).strip()


# leanblueprint's bookkeeping in a statement: what it links and whether it is formalized, no part of
# the mathematics (FLT's entry for `FLT` began "\\lean{flt} \\leanok Fermat's Last Theorem is true")
_BLUEPRINT_METADATA = re.compile(r"\\(?:lean|uses|proves|discussion|label)\s*\{[^{}]*\}[ \t]*"
                                 r"|\\(?:leanok|notready|mathlibok|obligation)(?![A-Za-z])[ \t]*")


def _entry_statement(statement: str) -> str:
    """A claim's statement as a result entry quotes it: without its title, blueprint metadata and
    the lines that leaves empty."""
    # the claim's [title] is the entry's title already: the statement starts after it
    kept = (_BLUEPRINT_METADATA.sub("", line) for line in _clean_statement(after_optional(statement)).splitlines())
    return "\n".join(line.rstrip() for line in kept if line.strip()).strip()


def _observations_of(catalog, label: str, claim_text: str):
    """The active observations of ``label`` whose claim reads ``claim_text``, in catalog order."""
    return (entry for entry in catalog.entries.values()
            if entry.kind == "observation" and entry.status == "active"
            and label in (entry.links.get("labels") or []) and str(entry.data.get("claim", "")).strip() == claim_text)


def _by_curator(entry) -> bool:
    """Whether Colosseum wrote the entry (a person's entry is never rewritten)."""
    return (entry.data.get("provenance") or {}).get("author") == "colosseum"


_ID_COUNTER = itertools.count()


def _slug(label: str) -> str:
    """The label as kebab-case ASCII, the alphabet of entry ids (knowledge/FORMAT.md, Ids)."""
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")


def _free_id(directory: Path, wanted: str) -> str:
    """``wanted`` with a short suffix of its writer's own: two co-authors whose runs both record
    ``proof-of-lem-x`` on their machines write two files that git merges without a conflict (the
    same name would be an add/add conflict). The suffix is new at each call (host, process, time)."""
    wanted = re.sub(r"-+", "-", wanted)[:72].strip("-") or "entry"
    while True:
        writer = f"{socket.gethostname()}:{os.getpid()}:{time.time_ns()}:{next(_ID_COUNTER)}"
        candidate = f"{wanted}-{hashlib.sha256(writer.encode()).hexdigest()[:6]}"
        if not (directory / f"{candidate}.md").exists():
            return candidate


def _body_of(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    parts = text.split("\n---\n", 1)
    return parts[1] if len(parts) == 2 else ""


def _write_entry(path: Path, data: dict, body: str) -> None:
    """Every entry the engine writes names its format right after its id."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _ensure_union_merge(path.parent)
    data = {"id": data["id"], "schema_version": CATALOG_FORMAT_VERSION,
            **{k: v for k, v in data.items() if k not in ("id", "schema_version")}}
    # An entry with a growing list is written unfolded: a folded item would span several lines.
    width = 10**9 if any(key in data for key in APPENDED_LISTS) else 100
    header = yaml.dump(data, Dumper=_EntryDumper, sort_keys=False, allow_unicode=True, width=width)
    write_atomically(path, f"---\n{header}---\n{body}")


# Lists that grow by appending (one item per run or per author). Each item is written on one line
# of its own, so that two authors' appended items are distinct lines that a union merge keeps
# whole; an item spread over lines shares lines (`- type: proof`) that a merge would fold together.
APPENDED_LISTS = ("evidence", "also_seen", "further_failures")


class _OneLineItem(dict):
    pass


class _Escaped(str):
    """A string written double-quoted, its line breaks as ``\\n``: it stays on its item's line."""


class _EntryDumper(yaml.SafeDumper):
    def represent_mapping(self, tag, mapping, flow_style=None):
        if isinstance(mapping, dict) and not isinstance(mapping, _OneLineItem):
            mapping = {key: [_OneLineItem(item) if isinstance(item, dict) else item for item in value]
                       if key in APPENDED_LISTS and isinstance(value, list) else value
                       for key, value in mapping.items()}
        return super().represent_mapping(tag, mapping, flow_style)


def _one_line(dumper: yaml.SafeDumper, item: _OneLineItem):
    values = {key: _Escaped(value) if isinstance(value, str) and ("\n" in value or "\r" in value) else value
              for key, value in item.items()}
    return dumper.represent_mapping("tag:yaml.org,2002:map", values, flow_style=True)


_EntryDumper.add_representer(_OneLineItem, _one_line)
_EntryDumper.add_representer(_Escaped, lambda dumper, text: dumper.represent_scalar("tag:yaml.org,2002:str", str(text),
                                                                                 style='"'))


GITATTRIBUTES = """\
# Written by colosseum (once; edit freely). Two co-authors who each add evidence to the same entry
# append lines at the same place: git keeps both instead of stopping the merge with a conflict.
# Should a merge keep a field twice, `colosseum check` names the file and the field.
*.md merge=union
"""


def _ensure_union_merge(directory: Path) -> None:
    """The catalog folder's ``.gitattributes``, written once and never rewritten (it is the
    authors' file from then on)."""
    target = directory / ".gitattributes"
    if not target.exists():
        write_atomically(target, GITATTRIBUTES)


def person() -> str:
    """Who is at the keyboard: git's user.name, else the login name."""
    import getpass
    import subprocess

    try:
        name = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        name = ""
    return name or getpass.getuser() or "author"


def add_claim_entry(directory: Path, claim, author: str) -> Path:
    """A `result` entry for a claim of the paper, its statement quoted, its proof where it is."""
    today = datetime.date.today().isoformat()
    label = claim.label or claim.id
    with catalog_lock(directory):
        entry_id = _free_id(directory, _slug(label) or "claim")
        statement = _entry_statement(claim.statement_text)
        data = {"id": entry_id, "kind": "result", "title": (claim.title or f"{claim.kind} {label}")[:200],
                "provenance": {"author": author, "run": None, "model": None, "date": today},
                "links": {"labels": [label], "entries": []}, "status": "active", "tags": [claim.kind],
                "statement": statement or label, "hypotheses": [], "conclusion": "See the statement.",
                "proof": {"label": label}}
        path = directory / f"{entry_id}.md"
        _write_entry(path, data, "Added from the paper. Write the hypotheses out, one per item.\n")
    return path


def add_failed_route(directory: Path, label: str, approach: str, failure_point: str, critique: str,
                     author: str, run: str | None = None) -> Path:
    today = datetime.date.today().isoformat()
    with catalog_lock(directory):
        key = approach_key(approach)
        entry_id = _free_id(directory, f"failed-{_slug(label)}-{key}")
        data = {"id": entry_id, "kind": "failed-route", "title": f"{label}: {approach}"[:200],
                "provenance": {"author": author, "run": run, "model": None, "date": today},
                "links": {"labels": [label], "entries": []}, "status": "active", "tags": ["failed-route"],
                "target": {"label": label}, "approach": approach, "approach_key": key,
                "failure_point": failure_point or "(not quoted)", "critique": critique}
        path = directory / f"{entry_id}.md"
        _write_entry(path, data, "Recorded from a critique in the editor.\n")
    return path
