"""Merging the reviewers' critiques, and the verdict.

Two critiques say the same thing when they are of the same kind and attack nearly the same text:
the same file, and quoted spans whose intersection is at least half of their union (or, when
neither quote was found, the same quoted text). A critique joins a group only if it is a
duplicate of every member, so nothing is chained through one long quote: two complaints about
different sentences of one proof stay two critiques, each on its own exact range. This is decided
without a model on purpose: it is reproducible, costs nothing, and can only merge complaints about
the same words of the paper; a merged critique keeps every reviewer's wording (``also``) and every
member's dismissal key (``keys``), so nothing is averaged away. Different critiques are all kept.

A merged critique is dismissed only when all of its most severe members are: dismissing a minor
remark never hides another reviewer's fatal flaw about the same words.

The verdict is a veto, never a vote: one concrete fatal flaw (an anchored, undismissed fatal
critique) rejects, however many reviewers accepted."""

from __future__ import annotations

from collections.abc import Callable

from colosseum.loops.review.records import RANK, ReviewCritique, ReviewerVerdict, normalize

SAME_TEXT = 0.5  # duplicates: the quoted spans' intersection is at least this share of their union

Extent = Callable[[ReviewCritique], "tuple[int, int]"]


def _position_extent(c: ReviewCritique) -> tuple[int, int]:
    # without the text: lines weigh more than any column (only used when no extent is given)
    return (c.range.start.line << 20) + c.range.start.character, (c.range.end.line << 20) + c.range.end.character


def same_text(a: ReviewCritique, b: ReviewCritique, extent: Extent = _position_extent) -> bool:
    """Whether two critiques attack nearly the same text (see the module docstring)."""
    if a.anchored and b.anchored:
        if a.file != b.file or a.range is None or b.range is None:
            return False
        (a0, a1), (b0, b1) = extent(a), extent(b)
        inter = min(a1, b1) - max(a0, b0)
        union = max(a1, b1) - min(a0, b0)
        return inter > 0 and inter >= SAME_TEXT * union
    if not a.anchored and not b.anchored:
        return normalize(a.quote) == normalize(b.quote) and bool(normalize(a.quote))
    return False


def merge_duplicates(critiques: list[ReviewCritique], extent: Extent | None = None) -> list[ReviewCritique]:
    """One critique per group of duplicates (same kind, nearly the same quoted span), the most
    severe undismissed member's wording first and the others' kept in ``also``; reviewers and
    dismissal keys united. ``extent`` gives a critique's (start, end) offsets in its file."""
    measure = extent or _position_extent
    groups: list[list[ReviewCritique]] = []
    for c in critiques:
        home = next((g for g in groups if all(m.kind == c.kind and same_text(m, c, measure) for m in g)), None)
        if home is None:
            groups.append([c])
        else:
            home.append(c)
    return [_merged(members) for members in groups]


def _merged(members: list[ReviewCritique]) -> ReviewCritique:
    if len(members) == 1:
        return members[0]
    top = min(RANK.get(c.severity, 1) for c in members)
    most_severe = [c for c in members if RANK.get(c.severity, 1) == top]
    dismissed = all(c.dismissed for c in most_severe)
    # stable: the first reviewer's among equals, an undismissed one first
    ordered = sorted(members, key=lambda c: (RANK.get(c.severity, 1), c.dismissed and not dismissed))
    head = ordered[0]
    reviewers = tuple(dict.fromkeys(r for c in ordered for r in c.reviewers))
    also = tuple(dict.fromkeys(m for c in ordered for m in (c.message, *c.also)
                               if normalize(m) != normalize(head.message)))
    keys = tuple(dict.fromkeys(k for c in ordered for k in c.all_keys))
    return ReviewCritique(head.id, head.severity, head.kind, head.message, head.quote, head.anchored, head.file,
                          head.range, head.repair, reviewers, also, head.part, head.label, dismissed, keys)


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
