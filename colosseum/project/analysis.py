"""One file's structure, computed from its scan events alone.

The result is cached per (scan, set of theorem-like environments), so an edit re-analyses only
the edited file. What depends on the files before it (the section a file's first paragraph
belongs to, the claim a leading ``proof`` proves, environments opened in one file and closed in
another) is left as ``INCOMING`` / dangling entries for the project linker to resolve.

The records it fills are in colosseum.project.records, what a claim is by its environment in
colosseum.project.claim_roles (both importable from here too).
"""

from __future__ import annotations

import re

from colosseum.latex.events import Event
from colosseum.core.source_text import LineIndex
from colosseum.project.draft_proofs import draft_mark
from colosseum.project.claim_roles import cites_literature, claim_role, needs_proof  # noqa: F401 (re-exported)
from colosseum.project.records import (INCOMING, ClaimRec, FileAnalysis, LabelRec, ProofRec, RefRec,  # noqa: F401 (re-exported)
                                       SectionRec, ThmDecl)
from colosseum.core.lazy_regex import lazy_regex

DEFAULT_THEOREM_ENVIRONMENTS = frozenset((
    "theorem", "lemma", "proposition", "corollary", "definition", "remark", "example", "conjecture",
    "claim", "fact", "observation", "notation", "exercise", "problem", "question", "assumption",
    "hypothesis", "axiom", "sublemma", "thm", "lem", "prop", "cor", "defn", "dfn", "rem",
))
PROOF_ENVIRONMENTS = frozenset(("proof", "proof*"))
RUN_IN_HEADINGS = frozenset(("paragraph", "subparagraph"))  # a heading in a run of text: no break

_SPACE = lazy_regex(r"\s*")
_MARKER_COMMAND = lazy_regex(
    r"\\(?:label|uses|proves|lean|leanok|notready|mathlibok|obligation|discussion)(?![A-Za-z@])\*?\s*(?:\{[^{}]*\})?")


def has_content(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] says anything beyond comments, labels and markers. Walks from the
    start and stops at the first word of content, which is almost always on the first line."""
    pos = start
    while True:
        if pos >= end:
            return False
        pos = _SPACE.match(text, pos, end).end()
        if pos >= end:
            return False
        c = text[pos]
        if c == "%":
            newline = text.find("\n", pos, end)
            if newline == -1:
                return False
            pos = newline
        elif c == "\\":
            m = _MARKER_COMMAND.match(text, pos, end)
            if m is None:
                return True
            pos = m.end()
        else:
            return True


def theorem_declarations(events: list[Event]) -> list[ThmDecl]:
    style = "plain"
    out = []
    for ev in events:
        if ev.kind == "theoremstyle":
            style = ev.value or "plain"
        elif ev.kind == "thmdecl":
            title, _star = ev.extra
            decl_style = style
            m = re.search(r"style\s*=\s*(\w+)", ev.value if ev.name == "declaretheorem" else "")
            if m:
                decl_style = m.group(1)
            out.append(ThmDecl(ev.value, title, decl_style, ev.start, ev.end))
    return out


def _claim_env(ev: Event) -> str:
    """The environment a ``begin`` event opens as a claim would be: a restatable's theorem-like
    environment (colosseum.latex.scanner), else its own name."""
    extra = ev.extra
    return extra[0] if isinstance(extra, tuple) else ev.name


def _moved(ev: Event, base: int) -> Event:
    """A copy of ``ev`` with offsets relative to ``base`` (kept in an analysis that outlives the
    scan whose events the incremental scanner moves in place)."""
    if not base:
        return Event(ev.kind, ev.start, ev.end, ev.name, ev.value, ev.vstart, ev.vend, ev.extra)
    return Event(ev.kind, ev.start - base, ev.end - base, ev.name, ev.value,
                 ev.vstart - base if ev.vstart >= 0 else -1, ev.vend - base if ev.vend >= 0 else -1, ev.extra)


# offsets in a chunk (they are relative to its start): one int object per value, shared by every
# chunk's records and the labels, references, claims and proofs made from them (an index held
# four int objects per value; the first 8192 ints take 260 KB once)
_SHARED_INTS = tuple(range(1 << 13))


def _shared(n: int) -> int:
    return _SHARED_INTS[n] if 0 <= n < 8192 else n


# the kinds of event after which a section still waits for its \label: a label or a marker (they
# may stand between a heading and its label), an \inputleannode (a claim of its own, labelled by
# its node), a section (it starts waiting)
_KEEP_SECTION_LABEL = frozenset(("label", "marker", "leannode", "section"))


def analyse(text: str, events: list[Event], lines: LineIndex, theorem_envs: frozenset[str], base: int = 0,
            first: int = 0, last: int | None = None) -> FileAnalysis:
    """Group the events ``events[first:last]`` into claims, proofs and sections (see module
    docstring). ``text`` starts at offset ``base`` of the scanned file (a chunk of it, see
    colosseum.project.chunks) and every offset in the result is relative to it."""
    reading = _Reading(FileAnalysis(lines), text, lines, theorem_envs, base)
    if first or last is not None:
        events = events[first:last]
    readers = _EVENT_READERS
    for ev in events:
        kind = ev.kind
        start = _shared(ev.start - base)
        carry_to_new = False
        if reading.pending_marker is not None and kind != "marker":
            carry_to_new = _settle_pending_marker(reading, ev, start)
        # labels and markers right after \section{...}, and what sits inside its title, keep the
        # section waiting for its own \label
        keeps_section_label = kind in _KEEP_SECTION_LABEL or start < reading.section_title_end
        reader = readers.get(kind)
        if reader is not None and reader(reading, ev, start, _shared(ev.end - base), carry_to_new):
            break  # \end{document}: LaTeX reads nothing after it
        if not keeps_section_label:
            reading.pending_section_label = None
    return _finish(reading)


class _Reading:
    """The state of one analysis as it reads the events in order: the result so far, the
    environments open, the section in effect, and what waits for the next event."""

    __slots__ = ("fa", "text", "lines", "theorem_envs", "base", "stack", "open_count", "current_section",
                 "section_title_end", "pending_section_label", "pending_marker", "pending_marker_end", "pending_marker_owner",
                 "last_claim_closed", "closed_after_include", "last_proved", "aside")

    def __init__(self, fa: FileAnalysis, text: str, lines: LineIndex, theorem_envs: frozenset[str], base: int):
        self.fa = fa
        self.text = text
        self.lines = lines
        self.theorem_envs = theorem_envs
        self.base = base
        # (env, role: claim|proof|other, index, innermost claim/proof at this depth): O(1) lookups
        # even for thousands of nested environments
        self.stack: list[tuple[str, str, int, tuple[str, int] | None]] = []
        self.open_count: dict[str, int] = {}
        self.current_section = INCOMING
        self.section_title_end = -1
        self.pending_section_label: int | None = None  # a section that may still get its \label
        self.pending_marker: int | None = None  # line of a "% colosseum: obligation" comment
        self.pending_marker_end = -1  # where that comment ends
        self.pending_marker_owner: tuple[str, int] = ("section", INCOMING)
        self.last_claim_closed: int | None = INCOMING
        self.closed_after_include = False
        # the claim the last proof followed, while nothing but proofs came since: a titled proof
        # right after it ([Second proof], [Another proof]) proves the same claim
        self.last_proved: int | None = None
        self.aside: int | None = None  # a remark closed while the claim before it is in an earlier chunk

    def innermost(self) -> tuple[str, int] | None:
        """The innermost open claim or proof: (role, index), or None."""
        stack = self.stack
        return stack[-1][3] if stack else None

    def push(self, env: str, role: str, idx: int) -> None:
        inner = (role, idx) if role in ("claim", "proof") else self.innermost()
        self.stack.append((env, role, idx, inner))
        self.open_count[env] = self.open_count.get(env, 0) + 1

    def pop(self) -> tuple[str, str, int]:
        env, role, idx, _inner = self.stack.pop()
        self.open_count[env] -= 1
        return env, role, idx

    def owner_now(self) -> tuple[str, int]:
        """What a marker here belongs to: the innermost claim or proof, else the section."""
        inner = self.innermost()
        if inner is not None:
            return inner
        return ("section", self.current_section)

    def mark_obligation(self, owner: tuple[str, int]) -> None:
        fa = self.fa
        role, idx = owner
        if role == "claim":
            fa.claims[idx].obligation = True
        elif role == "proof":
            fa.proofs[idx].obligation = True
        elif idx == INCOMING:
            fa.incoming_obligation = True
        else:
            fa.sections[idx].obligation = True


def _settle_pending_marker(reading: _Reading, ev: Event, start: int) -> bool:
    """The event after a "% colosseum: obligation" comment: whether the obligation goes to the
    item it starts (nothing but blank lines between the comment and it), else it goes to the
    owner where the comment was."""
    kind = ev.kind
    starts_item = kind == "section" or (
        kind == "begin" and (_claim_env(ev) in reading.theorem_envs or ev.name in PROOF_ENVIRONMENTS))
    # the comment's event ends with its line: only blank lines may follow it up to the item
    carry = starts_item and not reading.text[reading.pending_marker_end:start].strip()
    if not carry:
        reading.mark_obligation(reading.pending_marker_owner)
    reading.pending_marker = None
    return carry


def _read_begin(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    env = ev.name
    if ev.extra == "verbatim":
        reading.push(env, "other", -1)
    elif _claim_env(ev) in reading.theorem_envs:
        _open_claim(reading, ev, start, end, carry_to_new)
    elif env in PROOF_ENVIRONMENTS:
        _open_proof(reading, ev, start, end, carry_to_new)
    else:
        reading.push(env, "other", -1)


def _open_claim(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    fa = reading.fa
    title = ev.value if ev.vstart >= 0 else None
    parent = reading.innermost()
    claim = ClaimRec(_claim_env(ev), title, (start, end), section=reading.current_section)
    if parent is not None:
        # a claim stated inside another claim's proof belongs to that claim
        claim.parent_claim = parent[1] if parent[0] == "claim" else None
        # a claim proved inside a theorem's proof: the theorem rests on what it rests on
        claim.in_proof = parent[1] if parent[0] == "proof" else None
    fa.claims.append(claim)
    reading.push(ev.name, "claim", len(fa.claims) - 1)
    if carry_to_new:
        claim.obligation = True


def _open_proof(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    fa = reading.fa
    proof = ProofRec((start, end), section=reading.current_section)
    follows = reading.last_claim_closed
    if follows is None and ev.vstart >= 0 and reading.last_proved is not None:
        follows = reading.last_proved  # [Second proof]: another proof of the claim just proved
    proof.attach = proof.follows = follows
    if follows == INCOMING:
        proof.aside = reading.aside
    reading.last_proved = follows
    reading.aside = None
    # a claim's proof is the next proof: a later unnamed one proves nothing it can tell
    reading.last_claim_closed = None
    reading.closed_after_include = True
    fa.proofs.append(proof)
    reading.push(ev.name, "proof", len(fa.proofs) - 1)
    if ev.vstart >= 0:
        proof.title = (ev.vstart - reading.base, ev.vend - reading.base)
    if carry_to_new:
        proof.obligation = True
    mark = draft_mark(reading.text, max(end, proof.title[1] + 1 if proof.title else end))
    if mark is not None:
        proof.draft_run, proof.draft_span = mark.run, (mark.start, mark.end)


def _read_end(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> bool:
    """An \\end: closes its environment (and reports those left open inside it); True at
    \\end{document}, after which nothing counts."""
    fa = reading.fa
    stack = reading.stack
    env = ev.name
    if env == "document":
        fa.document_end = start
        if stack and stack[-1][0] == "document":
            reading.pop()
        else:
            fa.dangling_ends.append(_moved(ev, reading.base))
        return True
    if stack and stack[-1][0] == env:
        _closed(reading, reading.pop(), start, end)
    elif reading.open_count.get(env, 0) > 0:
        while stack and stack[-1][0] != env:
            opened = reading.pop()
            fa.errors.append(Event("error", start, end, "unterminated-environment",
                                   f"\\begin{{{opened[0]}}} is not closed before \\end{{{env}}}"))
            _close(fa, opened, start, end, reading.text)
        _closed(reading, reading.pop(), start, end)
    else:
        fa.dangling_ends.append(_moved(ev, reading.base))
    return False


def _closed(reading: _Reading, opened: tuple[str, str, int], start: int, end: int) -> None:
    """The environment ``opened`` closed by its own \\end at ``start``."""
    _close(reading.fa, opened, start, end, reading.text)
    if opened[1] == "claim":
        reading.last_proved = None
        before = reading.last_claim_closed
        aside = _aside(reading.fa.claims[opened[2]])
        if before == INCOMING and aside:
            reading.aside = opened[2]  # the linker knows whether the claim before still waits
        elif before is None or before == INCOMING or not aside or _aside(reading.fa.claims[before]):
            reading.last_claim_closed = opened[2]
            reading.aside = None
        # else: a remark, example or question between a claim and its proof: the proof is the claim's
        reading.closed_after_include = True


def _aside(claim) -> bool:
    """A remark, example, question... by its environment or title: what an author puts between a
    theorem and its proof without taking the proof for itself."""
    return claim_role(claim.env, claim.title or "") in ("other", "conjecture")


def _read_section(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    fa = reading.fa
    sec = SectionRec(ev.name, ev.value.strip(), (start, end), bool(ev.extra))
    fa.sections.append(sec)
    reading.current_section = len(fa.sections) - 1
    reading.section_title_end = end
    reading.pending_section_label = reading.current_section
    if carry_to_new:
        sec.obligation = True
    # a section closes nothing in LaTeX, but claims never span sections in practice; nor
    # does a claim's unnamed proof (deferred proofs name their claim: [Proof of ...])
    if ev.name not in RUN_IN_HEADINGS:
        reading.last_claim_closed = None
        reading.last_proved = reading.aside = None
        reading.closed_after_include = True


def _read_label(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    """A \\label: the waiting section's, else the open claim's (its first), else one inside
    the innermost claim or proof, else the section's."""
    fa = reading.fa
    base = reading.base
    rec = LabelRec(ev.value, ev.name, _shared(ev.vstart - base), _shared(ev.vend - base))
    inner = reading.innermost()
    if reading.pending_section_label is not None and inner is None:
        sec = fa.sections[reading.pending_section_label]
        if sec.label is None:
            sec.label = rec
            reading.pending_section_label = None
            return
    stack = reading.stack
    top = stack[-1] if stack else None
    if top is not None and top[1] == "claim" and fa.claims[top[2]].label is None:
        fa.claims[top[2]].label = rec
    elif inner is not None and inner[0] == "claim":
        fa.claims[inner[1]].inner_labels.append(rec)
    elif inner is not None and inner[0] == "proof":
        fa.proofs[inner[1]].labels.append(rec)
    elif reading.current_section == INCOMING:
        fa.incoming_labels.append(rec)
    else:
        fa.sections[reading.current_section].labels.append(rec)


def _read_lean_node(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    """``\\inputleannode{name}``: a claim of its own, labelled by the node's name."""
    base = reading.base
    rec = LabelRec(ev.value, ev.name, ev.vstart - base, ev.vend - base)
    reading.fa.claims.append(ClaimRec("leannode", None, (start, end), (start, end), label=rec,
                                      section=reading.current_section, leannode=True))


def _read_ref(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    """A reference: in the prose of a section, a claim's statement, a proof, or a proof's title
    (\\proves or [Proof of \\ref{x}] names the claim the proof proves)."""
    fa = reading.fa
    inner = reading.innermost()
    base = reading.base
    vstart, vend = _shared(ev.vstart - base), _shared(ev.vend - base)
    if inner is None:
        rec = RefRec(ev.value, ev.name, vstart, vend, "prose")
        if reading.current_section == INCOMING:
            fa.incoming_refs.append(rec)
        else:
            fa.sections[reading.current_section].refs.append(rec)
    elif inner[0] == "claim":
        fa.claims[inner[1]].refs.append(RefRec(ev.value, ev.name, vstart, vend, "statement"))
    else:
        proof = fa.proofs[inner[1]]
        title = proof.title
        if ev.name == "proves" or (title and title[0] <= vstart < title[1]):
            if proof.named is None:
                proof.named = ev.value
                proof.attach = None
            proof.refs.append(RefRec(ev.value, ev.name, vstart, vend, "proof-title"))
        else:
            proof.refs.append(RefRec(ev.value, ev.name, vstart, vend, "proof"))


def _read_marker(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    """\\leanok, \\mathlibok, \\notready, \\obligation for the claim or proof they are in; a
    "% colosseum: obligation" comment waits for the next event (it may start the item it is for)."""
    owner = reading.owner_now()
    if ev.name == "obligation-comment":
        if reading.pending_marker is not None:
            reading.mark_obligation(reading.pending_marker_owner)
        reading.pending_marker = reading.lines.line_of(start)
        reading.pending_marker_end = end
        reading.pending_marker_owner = owner
        return
    role, idx = owner
    if ev.name == "obligation":
        reading.mark_obligation(owner)
    elif role == "claim":
        claim = reading.fa.claims[idx]
        if ev.name == "leanok":
            claim.leanok = True
        elif ev.name == "mathlibok":
            claim.mathlibok = True
        elif ev.name == "notready":
            claim.notready = True
    elif role == "proof" and ev.name == "leanok":
        reading.fa.proofs[idx].leanok = True


def _read_lean(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    inner = reading.innermost()
    if inner is not None and inner[0] == "claim":
        reading.fa.claims[inner[1]].lean_decls.extend(d for d, _, _ in ev.extra)


def _read_include(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    reading.fa.includes.append(_moved(ev, reading.base))
    reading.fa.include_last_closed.append(reading.last_claim_closed)
    reading.closed_after_include = False


def _read_error(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    reading.fa.errors.append(_moved(ev, reading.base))


def _read_magic_root(reading: _Reading, ev: Event, start: int, end: int, carry_to_new: bool) -> None:
    if reading.fa.magic_root is None:
        reading.fa.magic_root = _moved(ev, reading.base)


# what each kind of event does to the analysis; a reader returns True to stop reading
_EVENT_READERS = {
    "begin": _read_begin,
    "end": _read_end,
    "section": _read_section,
    "label": _read_label,
    "leannode": _read_lean_node,
    "ref": _read_ref,
    "marker": _read_marker,
    "lean": _read_lean,
    "include": _read_include,
    "error": _read_error,
    "magic-root": _read_magic_root,
}


def _finish(reading: _Reading) -> FileAnalysis:
    """After the last event: a comment still waiting marks its owner, and the environments
    still open are left dangling for the linker (their text runs to the end)."""
    fa = reading.fa
    text = reading.text
    if reading.pending_marker is not None:
        reading.mark_obligation(reading.pending_marker_owner)
    fa.last_closed = reading.last_claim_closed
    fa.closed_after_include = reading.closed_after_include
    size = len(text)
    for env, role, idx, _inner in reading.stack:
        fa.dangling_begins.append(Event("begin", -1, -1, env, extra=(role, idx)))
        if role == "claim":
            claim = fa.claims[idx]
            claim.end = (size, size)
            claim.statement = (claim.begin[1], size)
        elif role == "proof":
            fa.proofs[idx].end = (size, size)
            fa.proofs[idx].has_content = has_content(text, fa.proofs[idx].begin[1], size)
    _section_content(fa, text)
    return fa


def _close(fa: FileAnalysis, opened: tuple[str, str, int], start: int, end: int, text: str) -> None:
    env, role, idx = opened
    if role == "claim":
        claim = fa.claims[idx]
        claim.end = (start, end)
        claim.statement = (claim.begin[1], start)  # offsets, not a copy: nested claims would copy O(n^2)
    elif role == "proof":
        proof = fa.proofs[idx]
        proof.end = (start, end)
        body_start = proof.begin[1]
        title = proof.title
        if title:
            body_start = max(body_start, title[1] + 1)
        proof.has_content = has_content(text, body_start, start)


def _section_content(fa: FileAnalysis, text: str) -> None:
    """A section has content when its own text (up to the next section) says anything."""
    starts = [s.begin for s in fa.sections]
    for i, sec in enumerate(fa.sections):
        body_end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        end = fa.document_end if 0 <= fa.document_end < body_end and fa.document_end > sec.begin[1] else body_end
        sec.has_content = has_content(text, sec.begin[1], end)
    first = starts[0][0] if starts else len(text)
    fa.incoming_content = has_content(text, 0, first)
