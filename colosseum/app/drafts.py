"""Accepting or rejecting a model's draft: a person's decision about a proof that solve, research or
an editor action wrote into the paper with ``% colosseum: draft <run-id>`` on its first line.

Each decision is two parts, kept apart so that an editor can show the first and do the second
only once the author has picked it: the change to the paper (``accept_change`` removes the marker,
``reject_change`` the proof environment), and the record in the catalog (``record_acceptance``:
``reviewed_by: person``; ``record_rejection``: a failed route with the run's surviving critiques).
The CLI does both at once (``decide``), because the author asked for it by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from colosseum.app.knowledge import catalog_directory
from colosseum.app.runs import find_run, read_run
from colosseum.catalog.reviews import Critique, git_user_name, record_draft_accepted, record_draft_rejected
from colosseum.project.files import unix_newlines
from colosseum.core.atomic_files import write_atomically
from colosseum.core.structure import Claim, Range


class DraftNotFound(Exception):
    """The label names no claim whose proof is a draft; the message says why."""


@dataclass(frozen=True, slots=True)
class DraftChange:
    """One edit of the paper: replace ``start:end`` of the file's text (as the index reads it) by
    ``new_text``; ``range`` is the same place in lines and UTF-16 columns (what an editor edits)."""

    path: Path
    start: int
    end: int
    range: Range
    new_text: str
    removed: str  # the text the edit takes out
    summary: str  # what it does, for a person


def find_draft(index, label: str) -> Claim:
    claim = index.claims.get(label)
    if claim is None:
        raise DraftNotFound(f"no claim `{label}` in the project")
    if claim.proof is None or claim.proof.draft_run is None:
        raise DraftNotFound(f"the proof of `{label}` is not a draft (no `% colosseum: draft` on its first line)")
    return claim


def draft_at(view, path: Path, line: int) -> Claim | None:
    """The claim whose draft proof begins or carries its marker on ``line`` (0-based) of ``path``;
    ``view`` is anything holding ``claims`` (an index, or a snapshot of one)."""
    for claim in view.claims.values():
        proof = claim.proof
        if proof is None or proof.draft_run is None or proof.file != path:
            continue
        marker = proof.draft_location
        lines = {proof.location.range.start.line, marker.range.start.line if marker is not None else -1}
        if line in lines:
            return claim
    return None


def accept_change(index, claim: Claim) -> DraftChange:
    """Take out the marker (with the blanks before it, or its whole line when it stands alone)."""
    proof = claim.proof
    text, lines = _text(index, proof.file)
    offset = proof.anchor.offset
    start, end = proof.rel_draft[0] + offset, proof.rel_draft[1] + offset
    line_start = text.rfind("\n", 0, start) + 1
    line_end = _line_end(text, end)
    if not text[line_start:start].strip() and not text[end:line_end].strip():
        start, end = line_start, min(line_end + 1, len(text))  # the marker was the proof's first line
    else:
        while start > line_start and text[start - 1] in " \t":
            start -= 1
    where = f"{index.relative(proof.file)}:{lines.position(start).line + 1}"
    return DraftChange(proof.file, start, end, lines.range(start, end), "", text[start:end],
                       f"{where}: accepted the draft of `{claim.id}` (run {proof.draft_run or 'unnamed'}): "
                       f"removed its marker")


def reject_change(index, claim: Claim) -> DraftChange:
    """Take out the proof environment, with its lines when nothing else stands on them."""
    proof = claim.proof
    text, lines = _text(index, proof.file)
    begin, _, _, end = proof.spans
    line_start = text.rfind("\n", 0, begin) + 1
    line_end = _line_end(text, end)
    if not text[line_start:begin].strip():
        begin = line_start
    if not text[end:line_end].strip():
        end = min(line_end + 1, len(text))
    where = f"{index.relative(proof.file)}:{lines.position(begin).line + 1}"
    return DraftChange(proof.file, begin, end, lines.range(begin, end), "", text[begin:end],
                       f"{where}: rejected the draft of `{claim.id}` (run {proof.draft_run or 'unnamed'}): "
                       f"removed its proof ({text.count(chr(10), begin, end)} lines)")


def apply_change(index, change: DraftChange) -> None:
    """Write the change to the file on disk (its line endings kept). Refuses when the file on disk
    is not the text the index read (an editor holds unsaved changes, or it changed since)."""
    disk = change.path.read_bytes().decode("utf-8")
    text, _lines = _text(index, change.path)
    if unix_newlines(disk) != text:
        raise DraftNotFound(f"{change.path} changed since it was read: run the command again")
    new = text[:change.start] + change.new_text + text[change.end:]
    if "\r\n" in disk:
        new = new.replace("\n", "\r\n")
    write_atomically(change.path, new)


def record_acceptance(root_dir: Path, claim: Claim, run_id: str, artifact: str) -> str:
    """The catalog's record of the author's acceptance: ``reviewed_by: person``, the reviewer's git
    ``user.name`` when there is one."""
    return record_draft_accepted(catalog_directory(root_dir), claim.label or claim.id, claim.statement_text,
                                 run_id, git_user_name(root_dir), artifact)


def record_rejection(root_dir: Path, claim: Claim, run_id: str, proof: str) -> str:
    """The catalog's record of the author's rejection: a failed route with the run's surviving
    critiques (none when the run folder is gone)."""
    approach, critiques = surviving_critiques(root_dir, run_id)
    return record_draft_rejected(catalog_directory(root_dir), claim.label or claim.id, run_id, approach, critiques,
                                 git_user_name(root_dir), proof)


def surviving_critiques(root_dir: Path, run_id: str) -> tuple[str, list[Critique]]:
    """The approach of the run's final proof and the critiques that survived on it, read from
    ``.colosseum/runs/<run-id>/run.json``: its ``critiques`` when it lists the survivors, else those
    of the bundle at the top level (the root). ("", []) when there is no such run."""
    folder = find_run(root_dir, run_id) if run_id else None
    record = read_run(folder) if folder is not None else {}
    bundles = [b for b in (record.get("bundles") or {}).values() if isinstance(b, dict)]
    root = max(bundles, key=lambda b: b.get("level", 0), default={})
    listed = record.get("critiques")
    raw = listed if isinstance(listed, list) else root.get("critiques") or []
    critiques = [Critique(str(c.get("severity", "")), str(c.get("kind", "")), str(c.get("quote", "")),
                          str(c.get("explanation", ""))) for c in raw if isinstance(c, dict)]
    approach = str(root.get("strategy") or root.get("angle") or "")
    return approach, critiques


@dataclass(frozen=True, slots=True)
class Decision:
    change: DraftChange
    entry: str  # the catalog entry written


def decide(index, label: str, accept: bool) -> Decision:
    """The CLI's use case: find the draft, change the file on disk, record the decision."""
    claim = find_draft(index, label)
    run_id = claim.proof.draft_run
    change = accept_change(index, claim) if accept else reject_change(index, claim)
    artifact = f"{index.relative(claim.file)}:{claim.location.range.start.line + 1}"
    apply_change(index, change)
    if accept:
        entry = record_acceptance(index.root_dir, claim, run_id, artifact)
    else:
        entry = record_rejection(index.root_dir, claim, run_id, change.removed)
    return Decision(change, entry)


def _text(index, path: Path):
    ft = index.text_of(path)
    if ft is None:
        raise DraftNotFound(f"{path} cannot be read")
    return ft.text, ft.lines


def _line_end(text: str, at: int) -> int:
    found = text.find("\n", at)
    return len(text) if found < 0 else found
