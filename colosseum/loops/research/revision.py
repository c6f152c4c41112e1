"""Stage 6, revise or re-explore. After a global review that did not accept the draft, the
reviser rewrites the flagged sections, given the previous full draft and the verifier's
feedback, or says the flaw breaks the skeleton (then the run goes back to exploration).

Revision is conservative, and the rules are enforced on the LaTeX, not trusted to the model: the
revised draft is read by the index and its structure compared with the previous one's (no new
section, no reordering, no level changed, nothing outside the flagged sections changed, no new
lemma, the theorem's statement unchanged, no broken reference, duplicate label or cycle). A
revision that breaks a rule is rejected and the draft stays as it was."""

from __future__ import annotations

from colosseum.models.step import ask
from colosseum.loops.research.draft import BREAKING_CODES, DraftDocument, structure_violations
from colosseum.loops.research.records import Revision


def flagged_sections(draft: DraftDocument, critiques: list) -> list[str]:
    """The skeleton sections the critiques point at (by the span they quote, else by the claim
    they name); every section when none can be placed."""
    lines = draft._lines()
    found: list[str] = []
    for c in critiques:
        section = None
        if c.anchored and c.file == draft.file and c.range is not None:
            offset = lines.offset(c.range.start)
            if draft.in_region(draft.file, offset):
                owner = None
                for s in draft.region_sections():
                    if lines.offset(s.location.range.start) <= offset:
                        owner = s.id
                section = owner
        if section is None and getattr(c, "label", None):
            section = draft.section_of(c.label)
        if section is not None and section not in found:
            found.append(section)
    return found or [s.id for s in draft.region_sections()]


def feedback_text(report) -> str:
    lines = [f"Verdict: {report.verdict}."] + [f"- {r}" for r in report.reasons]
    for c in report.critiques:
        if getattr(c, "dismissed", False):
            continue
        where = f" (line {c.line})" if c.line else " (its quote was not found in the document)"
        lines.append(f"- {c.severity} {c.kind}{where}: \"{c.quote}\" -- {c.message}"
                     + (f" Repair: {c.repair}" if c.repair else ""))
    return "\n".join(lines)


async def revise(draft: DraftDocument, report, context, provider, round_number: int,
                 rejected: list[str]) -> Revision:
    """One revision attempt. The draft is changed only when the revision is accepted."""
    critiques = [c for c in report.critiques if not getattr(c, "dismissed", False)
                 and c.severity in ("fatal", "major")] or list(report.critiques)
    flagged = flagged_sections(draft, critiques)
    data = await ask(provider, "reviser", {
        "problem": f"{context.label}: {context.statement}", "target": draft.target,
        "notation": context.notation or "(none)", "draft": draft.region_text, "feedback": feedback_text(report),
        "flagged": "\n\n".join(f"[{s}]\n{draft.section_text(s)}" for s in flagged),
        "rejected": "\n".join(f"- {r}" for r in rejected) or "(none)"})
    decision = data.get("decision") if data.get("decision") in ("revise", "re-explore") else "revise"
    reason = str(data.get("reason", ""))
    if decision == "re-explore":
        return Revision(round_number, "re-explore", reason, [], True)
    rewrites = [(str(s.get("section", "")), str(s.get("latex", ""))) for s in data.get("sections") or []
                if isinstance(s, dict)]
    violations = [f"rewrote `{s}`, which was not flagged" for s, _ in rewrites if s not in flagged]
    if not rewrites:
        violations.append("no section was rewritten")
    if violations:
        return Revision(round_number, "revise", reason, [s for s, _ in rewrites], False, violations)
    before_text, before = draft.region_text, draft.structure()
    text = before_text
    try:
        for section, latex in rewrites:
            draft.set_region(text)
            text = draft.with_section(section, latex)
        draft.set_region(text)
    except KeyError as exc:  # a rewrite that lost the section the next one needs
        draft.set_region(before_text)
        return Revision(round_number, "revise", reason, [s for s, _ in rewrites], False, [str(exc.args[0])])
    after = draft.structure()
    violations = structure_violations(before, after, set(flagged), may_add_claims=False, may_drop_sections=True)
    violations += [d.message for d in draft.region_diagnostics(BREAKING_CODES)]
    if violations:
        draft.set_region(before_text)
        return Revision(round_number, "revise", reason, [s for s, _ in rewrites], False, violations)
    return Revision(round_number, "revise", reason, [s for s, _ in rewrites], True)


def labels_to_recheck(draft: DraftDocument, before, sections: list[str]) -> list[str]:
    """After an accepted revision: the claims in the rewritten sections, and the claims that use
    one whose statement changed directly (their proofs used the old statement). Claims further
    down are not: the statements they use did not change."""
    after = draft.structure()
    touched = [label for label, (section, _) in after.claims.items() if section in sections]
    if draft.section_of(draft.target) in sections:  # the section that assembles the theorem
        touched.append(draft.target)
    changed = [label for label in touched if before.claims.get(label, (None, None))[1] != after.claims[label][1]]
    graph = draft.index.graph
    dependents = {d for label in changed for d in graph.succ.get(label, ()) if d in after.claims}
    return list(dict.fromkeys(touched + sorted(dependents)))
