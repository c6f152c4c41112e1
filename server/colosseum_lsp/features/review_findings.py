"""What the review feature shows in the editor: per project, the last global review and the
last local review of each claim, as diagnostics ``colosseum/review-<kind>`` on the exact range
each critique quotes, in whichever file. The diagnostics are live: each publish (after every
re-index, saved or not) finds every critique again from where it was last seen, so they never
drift from the words they attack."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from colosseum.loops.review import LocalReviewer
from colosseum.loops.review.anchoring import DocumentText
from colosseum.loops.review.view import frozen
from colosseum.core.structure import Diagnostic
from colosseum_lsp.convert import path_to_uri

SOURCE = "colosseum-review"
SEVERITY = {"fatal": "error", "major": "warning", "minor": "information"}
FAILED_CODE = "colosseum/review-failed"


@dataclass
class ProjectReviews:
    """What the editor shows for one project: the last global review, the last local review of
    each claim, and the incremental reviewer (its cache is also on disk)."""

    global_critiques: list = field(default_factory=list)
    report: str | None = None
    local: dict = field(default_factory=dict)  # label -> ClaimReview
    reviewer: LocalReviewer | None = None
    reviewer_model: str = ""
    saving: asyncio.Task | None = None
    save_again: bool = False
    generation: int = 0  # bumped whenever the findings change (a review, a dismissal)
    last_seen: dict = field(default_factory=dict)  # id(critique) -> (file, 1-based line) where its quote was last
    document: object = None  # the DocumentText last searched (unchanged files' search forms are reused)
    live: tuple | None = None  # (snapshot, generation, findings by uri) last computed
    registering: bool = False  # a registration of files that newly hold findings is scheduled


def state_of(project) -> ProjectReviews:
    """The review feature's state for a project (kept with the project, which the server owns)."""
    return project.state(ProjectReviews)


def diagnostic(critique, prefix: str = "") -> Diagnostic | None:
    if critique.file is None or critique.range is None or not critique.active:
        return None  # unanchored: in the report, never pinned to a guessed line
    who = f" [{', '.join(critique.reviewers)}]" if critique.reviewers else ""
    message = f"{prefix}{critique.severity} {critique.kind}: {critique.message}{who}"
    if critique.repair:
        message += f" Repair: {critique.repair}"
    return Diagnostic(critique.file, critique.range, SEVERITY.get(critique.severity, "warning"),
                      f"colosseum/review-{critique.kind}", message, (), SOURCE)


def republish(ctx, project) -> None:
    """Our findings changed (a review, a dismissal): register an entry for each file that holds
    one, and publish. The entries are live (``_LiveFindings``): each publish, so after every
    re-index, reads the critiques where their quotes are in the text just indexed. Files without
    our findings get no entry, so the publisher's per-file identity check stays a cheap look."""
    state = state_of(project)
    state.generation += 1
    for c in _shown_critiques(state):
        if c.file is not None and c.range is not None and id(c) not in state.last_seen:
            state.last_seen[id(c)] = (c.file, c.line)
    alive = {id(c) for c in _shown_critiques(state)}
    state.last_seen = {k: v for k, v in state.last_seen.items() if k in alive}
    for key in [k for k in ctx.extra_diagnostics if k[0] == SOURCE]:
        del ctx.extra_diagnostics[key]
    state.live = None
    for uri in _live_findings(ctx, project, register_moved=False):
        ctx.extra_diagnostics[(SOURCE, uri)] = _LiveFindings(ctx, project, uri)
    ctx.publish(project)


def _register_moved(ctx, project) -> None:
    """A critique whose quote moved to a file with no entry yet: register it (after the publish
    that found it, never while the publisher reads the entries) and publish again."""
    state = state_of(project)
    state.registering = False
    missing = [uri for uri in (state.live[2] if state.live is not None else {})
               if (SOURCE, uri) not in ctx.extra_diagnostics]
    if missing:
        for uri in missing:
            ctx.extra_diagnostics[(SOURCE, uri)] = _LiveFindings(ctx, project, uri)
        ctx.publish(project)


def _shown_critiques(state: ProjectReviews) -> list:
    return list(state.global_critiques) + [c for r in state.local.values() for c in r.critiques]


class _LiveFindings:
    """The ``(diagnostics, extra)`` pair of one file in ``ctx.extra_diagnostics``, computed when
    it is read against the index's current text: publishing after a re-index shows every critique
    on the range its quote now has, without waiting for a save."""

    __slots__ = ("ctx", "project", "uri")

    def __init__(self, ctx, project, uri: str):
        self.ctx, self.project, self.uri = ctx, project, uri

    def _pair(self) -> tuple[list, dict]:
        found = _live_findings(self.ctx, self.project)
        return found.get(self.uri) or ([], {"report": state_of(self.project).report, "items": {}})

    def __iter__(self):
        return iter(self._pair())

    def __getitem__(self, i):
        return self._pair()[i]

    def __len__(self) -> int:
        return 2


def _live_findings(ctx, project, register_moved: bool = True) -> dict[str, tuple[list, dict]]:
    """Every review finding as diagnostics by uri, for the index's current text: each critique
    is found again from where it was last seen (cheap: only edited files are searched anew, and
    only when the index or our findings changed). One whose quote is gone is not shown until it
    comes back; a critique that was never anchored is never pinned."""
    state = state_of(project)
    index = project.index
    if index is None:
        return {}
    if state.live is not None and state.live[0] is index.snapshot and state.live[1] == state.generation:
        return state.live[2]
    view = frozen(index)  # one reading: the snapshot and the texts it was built from
    doc = DocumentText(view)
    doc.carry_over(state.document)
    state.document = doc
    by_uri: dict[str, tuple[list, dict]] = {}

    def add(diag: Diagnostic | None, item) -> None:
        if diag is None:
            return
        found, lookup = by_uri.setdefault(path_to_uri(diag.file), ([], {"report": state.report, "items": {}}))
        found.append(diag)
        lookup["items"][(diag.range.start.line, diag.range.start.character, diag.code, diag.message)] = item

    def follow(c) -> bool:
        last = state.last_seen.get(id(c))
        if last is None:
            return False
        now = doc.follow(c.quote, last[0], last[1])
        if now is None:
            return False
        c.file, c.range = now
        state.last_seen[id(c)] = (c.file, c.line)
        return True

    for c in state.global_critiques:
        if follow(c):
            add(diagnostic(c), ("global", c))
    claims = view.claims
    for label, review in state.local.items():
        for c in review.critiques:
            if follow(c):
                add(diagnostic(c, f"local review of {label}: "), ("local", c))
        claim = claims.get(label)
        if not review.passed and claim is not None:
            reasons = "; ".join(review.reasons) or "a critique stands"
            add(Diagnostic(claim.file, claim.location.range, "warning", FAILED_CODE,
                           f"local review of {label} failed: {reasons}", (), SOURCE), ("failed", label))
    state.live = (view.snapshot, state.generation, by_uri)
    if register_moved and not state.registering and any((SOURCE, uri) not in ctx.extra_diagnostics
                                                        for uri in by_uri):
        try:
            asyncio.get_running_loop().call_soon(_register_moved, ctx, project)
            state.registering = True
        except RuntimeError:  # no event loop (a direct call): the next republish registers it
            pass
    return by_uri
