"""The curator: after a solve, the routes that broke are written to the catalog as failed-route
entries, with the exact point where each broke and the critique that broke it, so that the next
attempt is not guessed again. A route already recorded for the same target and the same approach
is merged (the run is added to ``also_seen``); an entry a person wrote is never rewritten."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import yaml

from colosseum.catalog import load_catalog
from colosseum.catalog_write import catalog_lock, write_atomically


def approach_key(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words[:8]) or "unnamed"


def record_failed_routes(directory: Path, label: str, result, run_id: str, model: str) -> list[str]:
    """Write one failed route per leaf whose candidate drew a fatal critique; returns the ids written
    or merged."""
    today = datetime.date.today().isoformat()
    written: list[str] = []
    with catalog_lock(directory):
        catalog = load_catalog(directory, with_starter=False)
        existing = {(((e.data.get("target") or {}).get("label")), e.data.get("approach_key")): e
                    for e in catalog.entries.values() if e.kind == "failed-route"}
        handled: set[tuple[str, str]] = set()
        for bundle in result.bundles.values():
            if bundle.level != 0:
                continue
            fatal = [c for c in bundle.critiques if c.severity == "fatal" and c.anchored]
            if not fatal:
                continue
            approach = bundle.candidate.strategy or bundle.candidate.angle or "unnamed approach"
            key = approach_key(approach)
            crit = fatal[0]
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
            entry_id = _free_id(directory, f"failed-{re.sub(r'[^a-z0-9]+', '-', label.lower()).strip('-')}-{key}")
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


def _free_id(directory: Path, wanted: str) -> str:
    wanted = re.sub(r"-+", "-", wanted)[:76].strip("-")
    candidate, n = wanted, 1
    while (directory / f"{candidate}.md").exists():
        n += 1
        candidate = f"{wanted}-{n}"
    return candidate


def _body_of(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    parts = text.split("\n---\n", 1)
    return parts[1] if len(parts) == 2 else ""


def _write_entry(path: Path, data: dict, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    write_atomically(path, f"---\n{header}---\n{body}")


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
        entry_id = _free_id(directory, re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") or "claim")
        statement = "\n".join(line for line in claim.statement_text.strip().splitlines()
                              if not line.strip().startswith(("\\label", "%"))).strip()
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
        entry_id = _free_id(directory, f"failed-{re.sub(r'[^a-z0-9]+', '-', label.lower()).strip('-')}-{key}")
        data = {"id": entry_id, "kind": "failed-route", "title": f"{label}: {approach}"[:200],
                "provenance": {"author": author, "run": run, "model": None, "date": today},
                "links": {"labels": [label], "entries": []}, "status": "active", "tags": ["failed-route"],
                "target": {"label": label}, "approach": approach, "approach_key": key,
                "failure_point": failure_point or "(not quoted)", "critique": critique}
        path = directory / f"{entry_id}.md"
        _write_entry(path, data, "Recorded from a critique in the editor.\n")
    return path
