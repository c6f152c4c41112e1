"""What a Lean check means for the paper: each claim's verdict, the findings to show on the
``.tex`` files (an error on a ``\\leanok`` whose check fails, a hint to add ``\\leanok`` where the
check passes, inline Lean's own messages on the right lines), and the claims that become
``formal`` in the DAG.

Positions are computed from the index's current texts when the findings are made, so a check
that ran while the author typed still lands on the right lines; an inline block that changed
since it was checked gets no stale findings (it is checked again on the next run)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.lean.inline import inline_units, map_range
from colosseum.lean.results import DeclResult, LeanMessage, LeanReport
from colosseum.structure import Claim, Diagnostic, Location, Position, Range, RelatedInfo

SOURCE = "colosseum-lean"
CODE_FAILED = "colosseum/lean-check-failed"
CODE_CHECKED = "colosseum/lean-checked"
CODE_UNCHECKED = "colosseum/lean-unchecked"
CODE_INLINE = "colosseum/lean-inline"
_LEAN_COMMAND = re.compile(r"\\lean\s*\{([^{}]*)\}")
_LEANOK = re.compile(r"\\leanok(?![A-Za-z@])")
_BEGIN_PROOF = re.compile(r"\\begin\s*\{proof\*?\}")


@dataclass(slots=True)
class ClaimResult:
    id: str
    claim: Claim
    status: str  # formal | failed | unchecked
    decls: list[DeclResult] = field(default_factory=list)

    @property
    def marked_leanok(self) -> bool:
        return self.claim.leanok or (self.claim.proof is not None and self.claim.proof.leanok)

    @property
    def summary(self) -> str:
        return "; ".join(d.message for d in self.decls)


def claim_results(index, report: LeanReport) -> list[ClaimResult]:
    """One verdict per claim with ``\\lean{...}``: formal when Lean checked every declaration it
    names, failed when one fails, unchecked otherwise."""
    out = []
    for cid, claim in sorted(index.claims.items(), key=lambda item: item[1].order):
        names = [n.strip() for n in claim.lean_decls if n.strip()]
        if not names:
            continue
        decls = [report.decls.get(n) or DeclResult(n, "unchecked", message=f"`{n}` not checked") for n in names]
        if all(d.passed for d in decls):
            status = "formal"
        elif any(d.status in ("missing", "error", "sorry", "axioms") for d in decls):
            status = "failed"
        else:
            status = "unchecked"
        out.append(ClaimResult(cid, claim, status, decls))
    return out


def formal_ids(results: list[ClaimResult]) -> set[str]:
    return {r.id for r in results if r.status == "formal"}


def apply_formal(index, ids: set[str]) -> bool:
    """Make exactly ``ids`` formal in the index's DAG. Returns whether anything changed. (The
    statuses are recomputed by a rebuild from the index's cached readings: no file is read.)"""
    ids = set(ids)
    if ids == index.formal_labels:
        return False
    index.formal_labels.clear()
    index.formal_labels.update(ids)
    index.rebuild()
    return True


def apply_cached_results(index) -> set[str]:
    """Make formal what the last checks passed, from the cache alone (Lean is not run, nothing is
    asked that is not cached): what a new process shows before its first check. Returns the ids."""
    from colosseum.lean.checker import plan_check, run_plan

    ids = formal_ids(claim_results(index, run_plan(plan_check(index), cache_only=True)))
    apply_formal(index, ids)
    return ids


def lean_diagnostics(index, report: LeanReport, results: list[ClaimResult] | None = None) -> list[Diagnostic]:
    results = claim_results(index, report) if results is None else results
    found: list[Diagnostic] = []
    for result in results:
        found += _claim_findings(index, report, result)
    found += inline_diagnostics(index, report)
    return sorted(found, key=lambda d: d.sort_key())


def _claim_findings(index, report: LeanReport, result: ClaimResult) -> list[Diagnostic]:
    claim = result.claim
    lean_at = _lean_command(index, claim) or claim.location
    if result.status == "formal":
        if claim.leanok:
            return []
        return [Diagnostic(claim.file, lean_at.range, "hint", CODE_CHECKED,
                           f"Lean checked {claim.kind} `{claim.id}`: {result.summary}. Mark it \\leanok.",
                           source=SOURCE)]
    if result.status == "failed":
        related = tuple(RelatedInfo(Location(e.file, Range(Position(e.line, e.character),
                                                           Position(e.end_line, e.end_character))),
                                    f"Lean: {e.message.strip().splitlines()[0] if e.message.strip() else 'error'}")
                        for d in result.decls for e in d.errors[:3])
        bad = "; ".join(d.message for d in result.decls if d.status in ("missing", "error", "sorry", "axioms"))
        if result.marked_leanok:
            leanok = _leanok_location(index, claim) or lean_at
            return [Diagnostic(leanok.file, leanok.range, "error", CODE_FAILED,
                               f"{claim.kind} `{claim.id}` is marked \\leanok but its Lean check fails: {bad}",
                               related, SOURCE)]
        missing = any(d.status == "missing" for d in result.decls)
        return [Diagnostic(claim.file, lean_at.range, "warning" if missing else "information", CODE_FAILED,
                           f"Lean check of {claim.kind} `{claim.id}`: {bad}", related, SOURCE)]
    if report.problem and all(report.problem in d.message for d in result.decls):
        return []  # said once, not on every claim
    if result.marked_leanok:
        why = "; ".join(d.message for d in result.decls if not d.passed)
        return [Diagnostic(claim.file, lean_at.range, "information", CODE_UNCHECKED,
                           f"{claim.kind} `{claim.id}` is marked \\leanok but could not be checked: {why}",
                           source=SOURCE)]
    return []


def inline_diagnostics(index, report: LeanReport) -> list[Diagnostic]:
    from colosseum.lean.settings import lean_settings

    results = {r.text: r for r in report.inline}
    found: list[Diagnostic] = []
    for unit in inline_units(index, lean_settings(index.config).inline_imports):
        result = results.get(unit.text)
        if result is None:
            continue  # changed since it was checked
        if result.status not in ("checked", "cached"):
            if result.status != "cancelled" and result.message != report.problem:  # the problem is said once
                first = unit.blocks[0]
                where = Range(Position(first.begin_line, 0), Position(first.begin_line, 0))
                found.append(Diagnostic(first.file, where, "information", CODE_UNCHECKED,
                                        f"inline Lean not checked: {result.message or result.status}", source=SOURCE))
            continue
        for diag in result.diagnostics:
            msg = LeanMessage.from_lsp(Path("scratch.lean"), diag)
            mapped = map_range(unit, (msg.line, msg.character), (msg.end_line, msg.end_character))
            if mapped is None:
                continue
            text = msg.message.strip()
            if msg.line < unit.header_lines:
                text = f"the imports of the inline Lean do not build: {text}"
            found.append(Diagnostic(mapped[0], mapped[1], msg.severity, CODE_INLINE, f"Lean: {text}", source=SOURCE))
    return found


# ---- where the markers are in the .tex text ------------------------------------------------------
def _claim_text(index, claim: Claim) -> tuple[object, int, int] | None:
    ft = index.text_of(claim.file)
    if ft is None or claim.spans[3] <= claim.spans[0]:
        return None
    return ft, claim.spans[0], claim.spans[3]


def _lean_command(index, claim: Claim) -> Location | None:
    found = _claim_text(index, claim)
    if found is None:
        return None
    ft, start, end = found
    m = _LEAN_COMMAND.search(ft.text, start, end)
    return Location(claim.file, ft.lines.range(m.start(), m.end())) if m else None


def _leanok_location(index, claim: Claim) -> Location | None:
    places = [(claim.file, claim.spans[0], claim.spans[3])] if claim.leanok else []
    if claim.proof is not None and claim.proof.leanok:
        places.append((claim.proof.file, claim.proof.spans[0], claim.proof.spans[3]))
    for file, start, end in places:
        ft = index.text_of(file)
        m = _LEANOK.search(ft.text, start, end) if ft is not None else None
        if m:
            return Location(file, ft.lines.range(m.start(), m.end()))
    return None


def leanok_insertions(index, claim: Claim) -> list[tuple[Path, Position]]:
    """Where ``\\leanok`` goes: right after ``\\lean{...}`` in the statement, and after
    ``\\begin{proof}`` (and its optional argument) when the proof is not marked yet."""
    out: list[tuple[Path, Position]] = []
    at = _lean_command(index, claim)
    if not claim.leanok and at is not None:
        out.append((claim.file, at.range.end))
    proof = claim.proof
    if proof is not None and not proof.leanok:
        ft = index.text_of(proof.file)
        if ft is not None:
            m = _BEGIN_PROOF.match(ft.text, proof.spans[0])
            offset = _after_optional(ft.text, m.end()) if m else proof.spans[1]
            out.append((proof.file, ft.lines.position(offset)))
    return out


def _after_optional(text: str, offset: int) -> int:
    """The offset after ``[...]`` right after ``offset`` on the same line (braces nest inside)."""
    pos = offset
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    if pos >= len(text) or text[pos] != "[":
        return offset
    depth = 0
    for i in range(pos + 1, min(len(text), pos + 2000)):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "]" and depth <= 0:
            return i + 1
        elif c == "\n" and text[i + 1:i + 2] == "\n":
            break
    return offset
