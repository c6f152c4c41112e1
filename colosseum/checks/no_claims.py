"""A project in which the index found no claim at all: said as a warning with the likely reason,
never as a silent success ("0 claims, 0 errors" on a book whose chapters were never read).

Said when .tex files of the project are read by no root, or when the roots read at least
MIN_LINES lines: a short note read whole, without a theorem, is not a problem."""

from __future__ import annotations

from pathlib import Path

from colosseum.checks.family import Edit, Findings, code
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic, Position, Range

CODE = code("no-claims")
EXAMPLES = 3  # unread files named in the message
# all files read and no claim: a short note may have none; a document this long without one was
# most likely not read as its author meant (an environment or include the index does not know)
MIN_LINES = 500
_START = Range(Position(0, 0), Position(0, 0))


class NoClaims:
    """Judged on every build: whether there is a claim costs nothing, and an edit that adds the
    first theorem need not change the reading of files."""

    name = "no-claims"
    codes = ("no-claims",)
    depends_on = ("claims", "roots", "file_roots", "tex_files", "relative", "text_of")

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        findings.set((self.name,), [(diag, None) for diag in no_claims_findings(view)])


def no_claims_findings(view: BuildView) -> list[Diagnostic]:
    if view.claims or not view.roots:
        return []
    unread = [path for path in view.tex_files if path not in view.file_roots and _readable(view, path)]
    lines = sum(text.text.count("\n") for text in map(view.text_of, view.file_roots) if text is not None)
    if not unread and lines < MIN_LINES:
        return []  # a note or a letter, all of it read: nothing is missing
    reason = (f"{len(view.roots)} root{'s' if len(view.roots) != 1 else ''} read {len(view.file_roots)} "
              f"file(s) ({lines} lines) and found no theorem-like environment (one of the usual names, one "
              "declared with \\newtheorem, or one named in [index] theorem_environments)")
    if unread:
        named = ", ".join(view.relative(path) for path in unread[:EXAMPLES])
        more = f" and {len(unread) - EXAMPLES} more" if len(unread) > EXAMPLES else ""
        reason += (f"; {len(unread)} .tex file(s) are read by no root ({named}{more}): name the roots in "
                   "colosseum.toml ([index] roots), or the author's include commands in [index] include_commands")
    where: Path = sorted(view.roots)[0]
    return [Diagnostic(where, _START, "warning", CODE, "no claims found in this project: " + reason)]


def _readable(view: BuildView, path: Path) -> bool:
    """A file read as text (one that cannot be read has a finding of its own)."""
    text = view.text_of(path)
    return text is not None and text.problem is None
