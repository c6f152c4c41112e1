"""Merging the reviewers' critiques, and the verdict.

Two critiques say the same thing when they are of the same kind and attack overlapping text (the
same file, intersecting quoted ranges), or, when neither quote was found, the same quoted text.
This is decided without a model on purpose: it is reproducible, costs nothing, and can only merge
complaints about the same words of the paper; a merged critique keeps every reviewer's wording
(``also``), so nothing is averaged away. Different critiques are all kept.

The verdict is a veto, never a vote: one concrete fatal flaw (an anchored, undismissed fatal
critique) rejects, however many reviewers accepted."""

from __future__ import annotations

from colosseum.review.records import ReviewCritique, ReviewerVerdict, normalize

RANK = {"fatal": 0, "major": 1, "minor": 2}


def _overlap(a: ReviewCritique, b: ReviewCritique) -> bool:
    if a.anchored and b.anchored:
        return a.file == b.file and a.range.start < b.range.end and b.range.start < a.range.end
    if not a.anchored and not b.anchored:
        return normalize(a.quote) == normalize(b.quote) and bool(normalize(a.quote))
    return False


def merge_duplicates(critiques: list[ReviewCritique]) -> list[ReviewCritique]:
    """One critique per group of duplicates (same kind, overlapping quotes), the most severe
    one's wording first and the others' kept in ``also``; reviewers united."""
    parent = list(range(len(critiques)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(critiques)):
        for j in range(i + 1, len(critiques)):
            if critiques[i].kind == critiques[j].kind and _overlap(critiques[i], critiques[j]):
                parent[find(j)] = find(i)
    groups: dict[int, list[ReviewCritique]] = {}
    for i, c in enumerate(critiques):
        groups.setdefault(find(i), []).append(c)
    merged = []
    for members in groups.values():
        members.sort(key=lambda c: RANK.get(c.severity, 1))  # stable: the first reviewer's among equals
        head = members[0]
        reviewers = tuple(dict.fromkeys(r for c in members for r in c.reviewers))
        also = tuple(dict.fromkeys(m for c in members for m in (c.message, *c.also)
                                   if normalize(m) != normalize(head.message)))
        merged.append(ReviewCritique(head.id, head.severity, head.kind, head.message, head.quote, head.anchored,
                                     head.file, head.range, head.repair, reviewers, also, head.part, head.label,
                                     any(c.dismissed for c in members)))  # dismissed as any of its members
    return merged


def sort_critiques(critiques: list[ReviewCritique], file_order: dict) -> list[ReviewCritique]:
    def key(c: ReviewCritique):
        where = (file_order.get(c.file, 1 << 30), c.range.start) if c.anchored and c.range else (1 << 31, (0, 0))
        return (RANK.get(c.severity, 1), where, c.id)

    return sorted(critiques, key=key)


def verdict(critiques: list[ReviewCritique], reviewers: list[ReviewerVerdict],
            relative=str) -> tuple[str, list[str], list[str]]:
    """(verdict, reasons, ids of the vetoing critiques)."""
    active = [c for c in critiques if c.active]
    dismissed = len(critiques) - len(active)
    note = [f"{dismissed} critique(s) dismissed by the author are not counted."] if dismissed else []
    vetoes = [c for c in active if c.severity == "fatal" and c.anchored]
    if vetoes:
        reasons = [f"Veto: {c.message} ({relative(c.file)}:{c.line}; raised by {', '.join(c.reviewers)})"
                   for c in vetoes]
        accepting = [r.reviewer for r in reviewers if r.verdict == "accepted"]
        if accepting:
            reasons.append(f"{len(accepting)} reviewer(s) accepted, but one concrete fatal flaw rejects: "
                           "a veto, not a vote.")
        return "rejected", reasons + note, [c.id for c in vetoes]
    serious = [c for c in active if c.severity in ("fatal", "major")]
    reasons: list[str] = []
    for c in serious:
        where = f"{relative(c.file)}:{c.line}" if c.anchored else "unanchored: its quote is not in the document"
        reasons.append(f"{c.severity} {c.kind}: {c.message} ({where})")
    # a reviewer who asked for more than acceptance is heard unless all it said was dismissed
    own = {r.reviewer: [c for c in critiques if r.reviewer in c.reviewers] for r in reviewers}
    for r in reviewers:
        if r.verdict != "accepted" and (not own[r.reviewer] or any(c.active for c in own[r.reviewer])):
            if not serious:
                reasons.append(f"{r.reviewer} asked for {'revision' if r.verdict == 'revise' else 'rejection'}"
                               + (f": {'; '.join(r.reasons)}" if r.reasons else "")
                               + (" (no concrete fatal flaw quoted, so no veto)" if r.verdict == "rejected" else ""))
    if reasons:
        return "revise", reasons + note, []
    minor = sum(1 for c in active if c.severity == "minor")
    return "accepted", [f"{len(reviewers)} independent reviewer(s) found no fatal or major problem"
                        + (f"; {minor} minor remark(s)." if minor else ".")] + note, []
