"""The draft marker: how a model's proof is written into the paper, and how the index knows it.

A proof that solve, research or an editor action inserts begins with a comment on the line of its
``\\begin{proof}``: ``% colosseum: draft <run-id>``. A comment, so the paper compiles without any
package. The claim stays a draft, and its dependents conditional, until a person accepts it (the
"Accept draft" quick fix removes the marker).
"""

from __future__ import annotations

import re

from colosseum.core.lazy_regex import lazy_regex

MARKER_PREFIX = "% colosseum: draft"
_BEGIN_PROOF = lazy_regex(r"\\begin\{proof\}(\[[^\]\n]*\])?")
# the run id is a run folder's name: letters, digits and . _ - (no spaces, nothing to escape)
_MARKER = lazy_regex(r"%[ \t]*colosseum:[ \t]*draft(?:[ \t]+([A-Za-z0-9._-]+))?")


def marker(run_id: str) -> str:
    """``% colosseum: draft <run-id>``; a run id with characters a folder name would not hold is
    reduced to the safe ones, so the marker always reads back as the same id."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "-", run_id.strip()) or "unknown"
    return f"{MARKER_PREFIX} {safe}"


def proof_environment(body: str, run_id: str) -> str:
    """The proof exactly as it is inserted: ``\\begin{proof} % colosseum: draft RUN``, the body,
    ``\\end{proof}``; no leading or trailing newline."""
    return f"\\begin{{proof}} {marker(run_id)}\n{body.strip()}\n\\end{{proof}}"


def draft_run(line: str) -> str | None:
    """The run id of a marker on ``line`` (the rest of the ``\\begin{proof}`` line, or the proof's
    first line), "" for a marker without an id, None when the line carries no marker."""
    m = _MARKER.search(line)
    if m is None:
        return None
    return m.group(1) or ""


def marker_span(line: str) -> tuple[int, int]:
    """Where the marker stands in ``line``: (start, end) of the comment from its ``%`` through the
    run id, or (-1, -1) when there is none (what "Accept draft" removes)."""
    m = _MARKER.search(line)
    return (m.start(), m.end()) if m is not None else (-1, -1)


def mark_proofs(text: str, run_id: str) -> str:
    """``text`` with the marker after each ``\\begin{proof}`` (and its title) that carries none yet:
    a research draft holds several proofs, and each is a model's draft."""
    out = []
    for line in text.split("\n"):
        m = _BEGIN_PROOF.search(line)
        if m is not None and draft_run(line) is None:
            line = line[:m.end()] + f" {marker(run_id)}" + line[m.end():]
        out.append(line)
    return "\n".join(out)
