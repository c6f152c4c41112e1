"""What a Lean check means for the paper: each claim's verdict, the findings to show on the
``.tex`` files (an error on a ``\\leanok`` whose check fails, a hint to add ``\\leanok`` where the
check passes, inline Lean's own messages on the right lines), and the claims that become
``formal`` in the DAG.

Positions are computed from the index's current texts when the findings are made, so a check
that ran while the author typed still lands on the right lines; an inline block that changed
since it was checked gets no stale findings (it is checked again on the next run)."""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.lean.inline import inline_units, map_range
from colosseum.lean.results import DeclResult, LeanMessage, LeanReport
from colosseum.core.structure import Claim, Diagnostic, Location, Position, Range, RelatedInfo

SOURCE = "colosseum-lean"
CODE_FAILED = "colosseum/lean-check-failed"
CODE_CHECKED = "colosseum/lean-checked"
CODE_UNCHECKED = "colosseum/lean-unchecked"
CODE_INLINE = "colosseum/lean-inline"
CODE_STATEMENT = "colosseum/lean-statement-only"
_CHECKED_MESSAGE = re.compile(r"^Lean checked \S+ `(?P<id>[^`]+)` \(\\lean\{(?P<names>[^}]*)\}\)")
_LEAN_COMMAND = re.compile(r"\\lean\s*\{([^{}]*)\}")
_LEANOK = re.compile(r"\\leanok(?![A-Za-z@])")
_BEGIN_PROOF = re.compile(r"\\begin\s*\{proof\*?\}")


STATEMENT_FAILURES = ("missing", "error")  # the declaration is not there, or does not elaborate
PROOF_FAILURES = ("sorry", "axioms")  # it is there; its proof is not accepted


@dataclass(slots=True)
class ClaimResult:
    """A claim's verdict: ``formal`` (every declaration checked: no sorry, standard axioms),
    ``statement`` (every declaration exists and elaborates, but a proof uses sorry or a
    non-standard axiom: the statement is formalized, the proof is not), ``failed`` (a
    declaration is missing or does not elaborate) or ``unchecked``."""

    id: str
    claim: Claim
    status: str
    decls: list[DeclResult] = field(default_factory=list)

    @property
    def marked_leanok(self) -> bool:
        return self.claim.leanok or (self.claim.proof is not None and self.claim.proof.leanok)

    @property
    def statement_marked(self) -> bool:
        """``\\leanok`` in the statement: leanblueprint's "the statement is formalized"."""
        return self.claim.leanok

    @property
    def proof_marked(self) -> bool:
        """``\\leanok`` in the proof, or on a claim without a proof of its own: "the proof is
        formalized" (what a claim with no separate proof marks is all of it)."""
        proof = self.claim.proof
        return proof.leanok if proof is not None else self.claim.leanok

    @property
    def fully_marked(self) -> bool:
        """Every \\leanok it can carry is there: nothing to add."""
        return self.claim.leanok and (self.claim.proof is None or self.claim.proof.leanok)

    @property
    def summary(self) -> str:
        return "; ".join(d.message for d in self.decls)


def claim_results(index, report: LeanReport) -> list[ClaimResult]:
    """One verdict per claim with ``\\lean{...}`` (see ClaimResult)."""
    out = []
    for cid, claim in sorted(index.claims.items(), key=lambda item: item[1].order):
        names = [n.strip() for n in claim.lean_decls if n.strip()]
        if not names:
            continue
        decls = [report.decls.get(n) or DeclResult(n, "unchecked", message=f"`{n}` not checked") for n in names]
        if all(d.passed for d in decls):
            status = "formal"
        elif any(d.status in STATEMENT_FAILURES for d in decls):
            status = "failed"
        elif any(d.status == "unchecked" for d in decls):
            status = "unchecked"
        else:
            status = "statement"
        out.append(ClaimResult(cid, claim, status, decls))
    return out


def formal_ids(results: list[ClaimResult]) -> set[str]:
    return {r.id for r in results if r.status == "formal"}


def apply_formal(index, ids: set[str]) -> bool:
    """Make exactly ``ids`` formal in the index's DAG. Returns whether anything changed. Cheap:
    the index updates the statuses without reading or linking a file again."""
    return index.set_formal_labels(set(ids))


@dataclass(slots=True)
class _CachedState:
    key: tuple
    ids: set[str]


_cached_states: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def apply_cached_results(index) -> set[str]:
    """Make formal what the last checks passed, from the cache alone (Lean is not run): what a new
    process shows before its first check, and what a language server calls after each
    (re)index. Cheap when nothing it depends on changed (the claims' ``\\lean`` names, the Lean
    project's files, the cache itself): then only their dates and sizes are read. Returns the ids."""
    from colosseum.lean.checker import plan_check, run_plan

    key = _cache_state_key(index)
    state = _cached_states.get(index)
    if state is None or state.key != key:
        plan = plan_check(index, inline=False)
        ids = formal_ids(claim_results(index, run_plan(plan, cache_only=True))) if plan.names else set()
        state = _cached_states[index] = _CachedState(key, ids)
    apply_formal(index, state.ids)
    return set(state.ids)


def _cache_state_key(index) -> tuple:
    """What the cached verdicts of the index's claims depend on, read without reading a file."""
    from colosseum.lean.cache import LeanCache
    from colosseum.lean.project import lean_files_state
    from colosseum.lean.settings import lean_settings

    claims = tuple(sorted((cid, tuple(c.lean_decls)) for cid, c in index.claims.items() if c.lean_decls))
    if not claims:
        return (claims,)
    settings = lean_settings(index.config)
    try:
        from colosseum.lean.project import find_lean_project

        root = find_lean_project(index.root_dir, list(index.roots), settings.project)
    except Exception:  # noqa: BLE001 - a bad [lean] project: plan_check says so
        root = None
    cache_dir = LeanCache(index.root_dir).directory
    try:
        cache_stat = cache_dir.stat()
        cache_state = (cache_stat.st_mtime_ns, cache_stat.st_size)
    except OSError:
        cache_state = None
    return claims, settings.project, str(root), lean_files_state(root) if root else None, cache_state


def lean_diagnostics(index, report: LeanReport, results: list[ClaimResult] | None = None) -> list[Diagnostic]:
    results = claim_results(index, report) if results is None else results
    found: list[Diagnostic] = []
    for result in results:
        found += _claim_findings(index, report, result)
    found += inline_diagnostics(index, report)
    return sorted(found, key=lambda d: d.sort_key())


def _claim_findings(index, report: LeanReport, result: ClaimResult) -> list[Diagnostic]:
    """What each \\leanok claims is checked against Lean's verdict: a statement's \\leanok that
    the declaration exists and elaborates (its proof may still use sorry), a proof's \\leanok (or
    that of a claim without a proof of its own) that nothing is left: no sorry, standard axioms.
    A \\leanok whose claim fails is an error, on that \\leanok."""
    claim = result.claim
    lean_at = _lean_command(index, claim) or claim.location
    statement_bad = [d for d in result.decls if d.status in STATEMENT_FAILURES]
    proof_bad = [d for d in result.decls if d.status in PROOF_FAILURES]
    related = tuple(RelatedInfo(Location(e.file, Range(Position(e.line, e.character),
                                                       Position(e.end_line, e.end_character))),
                                f"Lean: {e.message.strip().splitlines()[0] if e.message.strip() else 'error'}")
                    for d in statement_bad for e in d.errors[:3])
    if result.status == "formal":
        if result.fully_marked:
            return []
        return [Diagnostic(claim.file, lean_at.range, "hint", CODE_CHECKED,
                           f"Lean checked {claim.kind} `{claim.id}` ({_names(result)}): {result.summary}. "
                           f"Mark it \\leanok.", source=SOURCE)]
    if result.proof_marked and (statement_bad or proof_bad):
        bad = "; ".join(d.message for d in statement_bad + proof_bad)
        leanok = _leanok_location(index, claim, proof=claim.proof is not None) or lean_at
        what = "its proof is marked \\leanok" if claim.proof is not None else "it is marked \\leanok"
        return [Diagnostic(leanok.file, leanok.range, "error", CODE_FAILED,
                           f"{claim.kind} `{claim.id}`: {what} but its Lean check fails: {bad}", related, SOURCE)]
    if result.statement_marked and statement_bad:
        bad = "; ".join(d.message for d in statement_bad)
        leanok = _leanok_location(index, claim, proof=False) or lean_at
        return [Diagnostic(leanok.file, leanok.range, "error", CODE_FAILED,
                           f"{claim.kind} `{claim.id}`: its statement is marked \\leanok but its Lean check "
                           f"fails: {bad}", related, SOURCE)]
    if result.statement_marked and proof_bad:
        bad = "; ".join(d.message for d in proof_bad)
        return [Diagnostic(claim.file, lean_at.range, "information", CODE_STATEMENT,
                           f"{claim.kind} `{claim.id}`: statement formalized, proof not yet: {bad}", source=SOURCE)]
    if statement_bad or proof_bad:
        bad = "; ".join(d.message for d in statement_bad + proof_bad)
        missing = any(d.status == "missing" for d in statement_bad)
        return [Diagnostic(claim.file, lean_at.range, "warning" if missing else "information", CODE_FAILED,
                           f"Lean check of {claim.kind} `{claim.id}`: {bad}", related, SOURCE)]
    if report.problem and all(report.problem in d.message for d in result.decls if not d.passed):
        return []  # said once, not on every claim
    if result.marked_leanok:
        why = "; ".join(d.message for d in result.decls if not d.passed)
        return [Diagnostic(claim.file, lean_at.range, "information", CODE_UNCHECKED,
                           f"{claim.kind} `{claim.id}` is marked \\leanok but could not be checked: {why}",
                           source=SOURCE)]
    return []


def _names(result: ClaimResult) -> str:
    return "\\lean{" + ", ".join(d.name for d in result.decls) + "}"


def checked_claim(message: str) -> tuple[str, list[str]] | None:
    """The claim id and its \\lean names a CODE_CHECKED finding was made for (read back from its
    message by the editor's quick fix, which must not trust the finding's position)."""
    m = _CHECKED_MESSAGE.match(message)
    if not m:
        return None
    return m.group("id"), [n.strip() for n in m.group("names").split(",") if n.strip()]


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


def _leanok_location(index, claim: Claim, proof: bool) -> Location | None:
    """The ``\\leanok`` of the proof (``proof``) or of the statement."""
    if proof:
        places = [(claim.proof.file, claim.proof.spans[0], claim.proof.spans[3])] if claim.proof is not None else []
    else:
        places = [(claim.file, claim.spans[0], claim.spans[3])] if claim.leanok else []
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
