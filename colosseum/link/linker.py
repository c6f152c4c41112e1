"""Joins the chunks of every root, in reading order, into one project structure.

Each root is walked as LaTeX reads it: a file's chunks (colosseum.project.chunks) one after the other,
with the files it includes at the offsets of the include commands. What a chunk left open for its
surroundings (its first paragraph's section, a leading proof's claim, environments that span
chunks or files) is settled here, from the state the reading carries. What one chunk contributed
in one state is a *unit*: when the same chunk is read in the same state again (the next build,
another root), its unit is replayed as is, which is what makes an edit cheap. Shared files (a
blueprint's ``web.tex`` and ``print.tex``) yield one claim, one label and one reference per place
however many roots read them; colosseum.link.state adds the units up.
"""

from __future__ import annotations

from itertools import chain
from pathlib import Path

from colosseum.core.source_text import Anchor
from colosseum.latex.events import Event
from colosseum.project.chunks import Chunk
from colosseum.project.analysis import (
    INCOMING,
    FileAnalysis,
    LabelRec,
    ProofRec,
    RefRec,
    cites_literature,
    claim_role,
)
from colosseum.link.splice import Splicing
from colosseum.link.units import (  # noqa: F401 (re-exported: the linker's vocabulary)
    EnvProblem,
    PendingProof,
    RootLink,
    RootResult,
    Unit,
    Visit,
    claim_base,
    _FileRecord,
    _Places,
    _State,
    segments,
    timeline,
)
from colosseum.core.structure import Claim, Label, Proof, Reference, Section

ORPHAN_PROOF = ("this proof names no claim and follows no unproved claim: name it with "
                "[Proof of \\cref{...}] or \\proves{...}")
SECTION_RANK = {"part": 0, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4,
                "paragraph": 5, "subparagraph": 6}


class Linker(Splicing):
    def __init__(self, root_dir: Path, theorem_styles: dict[str, tuple[str, str]], memo: dict | None = None,
                 file_rank: dict[Path, int] | None = None, reading=None):
        self.root_dir = root_dir
        # an index built for one report (colosseum.index.one_reading): each file is cut into chunks
        # when first read here (reading.enter), and its chunks' records let go after its last reading
        # (reading.leave), so that the records of all files never live at once
        self.reading = reading
        self.styles = theorem_styles  # env -> (title, style)
        self.claims: dict[str, Claim] = {}
        self.sections: dict[str, Section] = {}
        self.roots: list[RootResult] = []
        self.root_units: list[list[Unit]] = []
        self.units: list[Unit] = []  # every unit of this build once, in reading order
        self._in_build: set[int] = set()
        self.file_rank = file_rank or {}
        self._old_memo = memo.get("units", {}) if memo is not None else {}
        self._old_files = memo.get("files", {}) if memo is not None else {}
        self.memo: dict = {}  # the units used in this build: the next build's memo
        self.files: dict = {}  # the same for whole files that include nothing
        self._read: set[Path] = set()  # files read so far in this build
        self._places: dict[Path, _Places] = {}
        # the last build's roots, and the node ids it gave out: an edit of one file re-links that
        # file and splices its units between the last build's before and after it
        self._old_roots: dict[Path, RootLink] = memo.get("roots", {}) if memo is not None else {}
        self._old_ids = memo.get("ids", ({}, {})) if memo is not None else ({}, {})
        self.root_links: dict[Path, RootLink] = {}
        self._spans: dict[Visit, tuple[int, int, _State, _State]] = {}
        self._blocks: dict = {}
        # path -> [start, end) stretches of it read afresh in this build: a later reading of the
        # same place (another root, other macros) takes its claims, labels and references from
        # there, so it is read again too, not replayed with objects of its own (see _may_replay)
        self._fresh: dict[Path, list[list[int]]] = {}

    def memo_for_next(self) -> dict:
        """What the next build's linker starts from."""
        return {"units": self.memo, "files": self.files, "roots": self.root_links,
                "ids": (self.claims, self.sections)}

    # ---- public ------------------------------------------------------------------------------
    def link_root(self, root: Path, visit: Visit, edited=()) -> RootResult:
        """Link one root. ``edited``: the visits whose file was edited since the last build, when
        the walk was kept (then the root's other units may be spliced in as they were)."""
        result = RootResult(root)
        units: list[Unit] = []
        self._spans, self._blocks = {}, {}
        state = self._splice(root, edited, result, units) if edited else None
        if state is None:
            state = _State()
            self._visit(visit, state, result, units)
        self.root_links[root] = RootLink(units, self._spans, state.frozen(), list(result.files), self._blocks)
        problems = list(chain.from_iterable(unit.problems for unit in units if unit.problems))
        for env, path, anchor, start, end in state.envs:
            problems.append(EnvProblem(path, start, end, "unterminated-environment",
                                       f"\\begin{{{env}}} is never closed", anchor))
        result.problems = problems
        result.read(units)  # its label list and references, when asked
        self.roots.append(result)
        self.root_units.append(units)
        return result

    # ---- the walk ----------------------------------------------------------------------------
    def _add_unit(self, unit: Unit, units: list[Unit]) -> None:
        units.append(unit)
        if id(unit) not in self._in_build:
            self._in_build.add(id(unit))
            self.units.append(unit)
        self._read.add(unit.path)
        if unit.exit is not None:  # a replayed unit: a later reading of its places reuses them
            places = self._places.get(unit.path)
            if places is not None:
                places.add(unit)

    def _add_units(self, replayed: list[Unit], units: list[Unit]) -> None:
        """``_add_unit`` for a whole file's units at once (the common case: nothing to check)."""
        units.extend(replayed)
        in_build = self._in_build
        fresh = [u for u in replayed if id(u) not in in_build]
        if fresh:
            in_build.update(map(id, fresh))
            self.units.extend(fresh)
        path = replayed[0].path if replayed else None
        self._read.add(path)
        places = self._places.get(path)
        if places is not None:
            for unit in replayed:
                places.add(unit)

    def _seal(self, unit: Unit, state: _State) -> None:
        unit.exit = state.frozen()
        unit.seal()
        places = self._places.get(unit.path)
        if places is not None:
            places.add(unit)

    def _visit(self, visit: Visit, state: _State, result: RootResult, units: list[Unit],
               record_file: bool = True) -> None:
        if self.reading is None:
            self._read_visit(visit, state, result, units, record_file)
        else:
            self.reading.enter(visit)
            self._read_visit(visit, state, result, units, record_file)
            self.reading.leave(visit)

    def _read_visit(self, visit: Visit, state: _State, result: RootResult, units: list[Unit],
                    record_file: bool = True) -> None:
        if record_file:
            result.files.append(visit.path)
        path = visit.path
        leaf = not visit.children
        if leaf:  # where its units are in the root's, for splicing it in the next build
            span_start, span_entry = len(units), state.frozen()
        # read before in this build (another root, or twice): its places may exist already
        again = path in self._read
        record_key = None
        if not visit.children:  # a file that includes nothing: replayed in one step if it can
            record_key = (path, state.signature())
            record = self.files.get(record_key)
            # made by an earlier reading in this build: replaying it lends that reading's objects,
            # as reading again would; one from the last build only if no earlier reading is new
            this_build = record is not None
            record = record or self._old_files.get(record_key)
            if record is not None and record.chunks is visit.chunks \
                    and (not again or this_build or (record.shared and path not in self._fresh)) \
                    and self._replay(record, state):
                self.files[record.key] = record  # its own key: a replay allocates nothing that lives on
                self._add_units(record.units, units)
                self._spans[visit] = (span_start, len(units), span_entry, record.exit)
                return
            first_unit = len(units)
        for chunk in visit.chunks:
            fa = chunk.analysis
            claim_ids: dict[int, str] = {}
            section_ids: dict[int, str] = {}
            cuts = segments(fa)
            bare_first = not (fa.incoming_labels or fa.incoming_refs or fa.incoming_obligation)
            for number, (lo, hi) in enumerate(cuts):
                if hi - lo == 1 and number < len(cuts) - 1 and (number or bare_first):
                    # nothing but an include (a root's list of chapters): no unit to keep
                    self._include(visit, fa, timeline(fa)[lo], chunk, claim_ids, state, result, units)
                    continue
                key = (path, chunk, number, state.signature(),
                       tuple(claim_ids.items()) if number else (), tuple(section_ids.items()) if number else ())
                unit = self.memo.get(key)
                this_build = unit is not None  # see the record above
                unit = unit or self._old_memo.get(key)
                if unit is not None and unit.analysis is fa and unit.chunk is chunk \
                        and (unit.pinned_line is None or unit.pinned_line == chunk.line) \
                        and (unit.pinned_offset is None or unit.pinned_offset == chunk.start) \
                        and (not again or this_build or self._may_replay(unit, chunk)) and self._replay(unit, state):
                    self.memo[unit.key] = unit
                    self._add_unit(unit, units)
                else:
                    unit = Unit(path, chunk, fa, key[3:], key=key)
                    self._execute(visit, chunk, lo, hi, number == len(cuts) - 1, state, unit, units, claim_ids,
                                  section_ids, again)
                    self.memo[key] = unit
                    self._note_fresh(path, chunk)
                claim_ids.update(unit.claim_ids)
                section_ids.update(unit.section_ids)
                if unit.child is not None:
                    child = visit.children.get(unit.child)
                    if child is not None:
                        self._visit(child, state, result, units)
                        if unit.child_is_subfile:
                            state.ended = False  # a subfile's own \end{document} ends only the subfile
        if leaf:
            self._spans[visit] = (span_start, len(units), span_entry, state.frozen())
        if record_key is not None:
            record = _FileRecord(visit.chunks, units[first_unit:], exit=state.frozen(), key=record_key, shared=again)
            for unit in record.units:
                record.claim_map.update(unit.claim_map)
                record.section_map.update(unit.section_map)
                record.fallbacks += unit.fallbacks
                record.borrowed.extend(unit.borrowed)
            self.files[record_key] = record

    def _note_fresh(self, path: Path, chunk: Chunk) -> None:
        spans = self._fresh.get(path)
        if spans is None:
            self._fresh[path] = [[chunk.start, chunk.end]]
        elif spans[-1][0] <= chunk.start <= spans[-1][1]:  # the next chunk of the same reading
            spans[-1][1] = max(spans[-1][1], chunk.end)
        else:
            spans.append([chunk.start, chunk.end])

    def _may_replay(self, unit: Unit, chunk: Chunk) -> bool:
        """Whether a unit may be replayed where its file was read before in this build: only if
        it was read after another reading last time too (a first reading made objects of its own
        that a later one must take from the earlier reading now) and no earlier reading of its
        place is new (what that one made, this one takes)."""
        if not unit.shared:
            return False
        spans = self._fresh.get(unit.path)
        if spans is None:
            return True
        start, end = chunk.start, max(chunk.end, chunk.start + 1)
        return not any(s < end and start < max(e, s + 1) for s, e in spans)

    def _include(self, visit: Visit, fa: FileAnalysis, item: tuple, chunk: Chunk, claim_ids: dict, state: _State,
                 result: RootResult, units: list[Unit]) -> None:
        """A segment that is one include command: what a unit of it would do, without the unit."""
        offset, _kind, index = item
        if state.ended or (fa.document_end >= 0 and offset > fa.document_end):
            return
        closed = fa.include_last_closed[index]
        if closed is None:
            state.last_claim = None  # proved already, or a section came after it
        elif closed != INCOMING and claim_ids.get(closed) is not None:
            state.last_claim = claim_ids[closed]
        child = visit.children.get(chunk.includes + index)
        if child is not None:
            self._visit(child, state, result, units)
            if fa.includes[index].name == "subfile":
                state.ended = False  # a subfile's own \end{document} ends only the subfile

    def _replay(self, unit, state: _State) -> bool:
        """Replay a unit (or a whole file's units) read in the same state, unless the node ids
        it took are now someone else's, or an id it could not have is free now, or it holds
        objects of another reading that is not part of this build (that one was read afresh)."""
        if unit.borrowed and any(id(lender) not in self._in_build for lender in unit.borrowed):
            return False
        for mine, taken in ((unit.claim_map, self.claims), (unit.section_map, self.sections),
                            (unit.claim_map, self.sections), (unit.section_map, self.claims)):
            if mine and not mine.keys().isdisjoint(taken.keys()):
                for node in mine.keys() & taken.keys():
                    if taken[node] is not mine[node]:
                        return False  # another chunk took one of these node ids meanwhile: link afresh
        if unit.fallbacks and any(wanted not in self.claims and wanted not in self.sections
                                  and wanted not in unit.claim_map and wanted not in unit.section_map
                                  for wanted in unit.fallbacks):
            return False  # an id that had to fall back could now be the label itself
        self.claims.update(unit.claim_map)
        self.sections.update(unit.section_map)
        exit_state = unit.exit
        state.section, state.section_stack = exit_state.section, list(exit_state.section_stack)
        state.last_claim, state.envs, state.ended = exit_state.last_claim, list(exit_state.envs), exit_state.ended
        return True

    def _places_of(self, path: Path) -> _Places:
        places = self._places.get(path)
        if places is None:
            places = self._places[path] = _Places()
            for unit in self.units:  # rare (a file read twice): look through all read so far
                if unit.path == path:
                    places.add(unit)
        return places

    def _execute(self, visit: Visit, chunk: Chunk, lo: int, hi: int, last: bool, state: _State, unit: Unit,
                 units: list[Unit], claim_ids: dict[int, str], section_ids: dict[int, str], again: bool) -> None:
        """Read the timeline items [lo, hi) of a chunk (a segment: up to an include, or the last
        one, to the chunk's end) into ``unit``. Offsets stay relative to the chunk's anchor."""
        fa = chunk.analysis
        path = visit.path
        rank = self.file_rank.get(path, 0)
        places = self._places_of(path) if again else None
        if places is not None:
            unit.shared = True
        entry_section = state.section
        self._add_unit(unit, units)
        reading = _SegmentReading(visit, chunk, unit, places)
        known_claims = dict(claim_ids)  # claims of earlier segments of this chunk, then this one's
        known_sections = dict(section_ids)
        open_proofs: dict[int, PendingProof] = {}  # this segment's proofs, by index: what claims inside them belong to
        if lo == 0:
            reading.add_names(None, fa.incoming_labels, fa.incoming_refs, entry_section)
            if fa.incoming_obligation and entry_section is not None:
                unit.marked_sections.append(entry_section)
        for offset, kind, index in timeline(fa)[lo:hi]:
            if state.ended:
                break
            if fa.document_end >= 0 and offset > fa.document_end:
                break
            if kind == "section":
                srec = fa.sections[index]
                sid = self._section(visit, srec, reading.node_id(srec.label, srec.begin[0]), state, unit, rank, places)
                unit.section_ids[index] = known_sections[index] = sid
                reading.add_names(srec.label, srec.labels, srec.refs, sid)
            elif kind == "claim":
                crec = fa.claims[index]
                section_id = known_sections.get(crec.section) if crec.section != INCOMING else entry_section
                if crec.section != INCOMING and section_id is None:
                    section_id = state.section
                cid = self._claim(visit, crec, reading.node_id(crec.label, crec.begin[0]), section_id, unit, rank,
                                  places)
                unit.claim_ids[index] = known_claims[index] = cid
                reading.add_names(crec.label, crec.inner_labels, crec.refs, cid)
                enclosing = open_proofs.get(crec.in_proof) if crec.in_proof is not None else None
                if enclosing is not None:
                    enclosing.add_nested(cid)
            elif kind == "proof":
                # named or not, the claim it follows is what it proves when no name settles it
                prec = fa.proofs[index]
                fallback = state.last_claim if prec.follows == INCOMING else known_claims.get(prec.follows)
                if fallback is None and prec.follows == INCOMING and prec.aside is not None:
                    fallback = known_claims.get(prec.aside)  # the claim before was proved: the remark's
                open_proofs[index] = reading.add_proof(prec, fallback, rank)
            elif kind == "include":
                closed = fa.include_last_closed[index]
                if closed is None:
                    state.last_claim = None  # proved already, or a section came after it
                elif closed != INCOMING and known_claims.get(closed) is not None:
                    state.last_claim = known_claims[closed]
                unit.child = chunk.includes + index  # visited once this segment is sealed
                unit.child_is_subfile = fa.includes[index].name == "subfile"
            elif kind == "end":
                _close_environment(fa.dangling_ends[index], state, unit, path, chunk.anchor)
        if last:
            _end_of_chunk(fa, state, unit, path, chunk.anchor, known_claims)
        self._seal(unit, state)

    def _unique_id(self, wanted: str, unit: Unit, rel: str, offset: int) -> str:
        if wanted not in self.claims and wanted not in self.sections:
            return wanted
        anchor = unit.chunk.anchor
        unit.pinned_line = unit.chunk.line
        fallback = f"{rel}:{anchor.line_of(offset) + 1}"
        if fallback not in self.claims and fallback not in self.sections:
            return fallback
        unit.pinned_offset = unit.chunk.start
        return f"{fallback}#{offset + unit.chunk.start}"

    def _section(self, visit: Visit, srec, wanted: str, state: _State, unit: Unit, rank: int,
                 places: _Places | None) -> str:
        level = SECTION_RANK.get(srec.level, 2)
        while state.section_stack and state.section_stack[-1][0] >= level:
            state.section_stack.pop()
        parent = state.section_stack[-1][1] if state.section_stack else None
        existing = places.take(places.sections, srec.begin[0] + unit.chunk.start, unit) if places is not None else None
        if existing is None:
            sid = self._unique_id(wanted, unit, visit.rel, srec.begin[0])
            if sid != wanted:
                unit.fallbacks += (wanted,)
            existing = Section(sid, srec.level, srec.title, srec.label.name if srec.label else None, visit.path,
                               srec.obligation, parent, srec.has_content, rel_span=srec.begin, anchor=unit.chunk.anchor,
                               rank=rank)
        unit.section_bases[existing.id] = srec.obligation
        self.sections[existing.id] = existing
        unit.sections.append(existing)
        unit.section_map[existing.id] = existing
        state.section_stack.append((level, existing.id))
        state.section = existing.id
        return existing.id

    def _claim(self, visit: Visit, crec, wanted: str, section_id: str | None, unit: Unit, rank: int,
               places: _Places | None) -> str:
        existing = places.take(places.claims, crec.begin[0] + unit.chunk.start, unit) if places is not None else None
        if existing is not None:
            self.claims[existing.id] = existing
            unit.claims.append((existing, wanted))
            unit.claim_map[existing.id] = existing
            unit.claim_bases[existing.id] = claim_base(crec.obligation, tuple(lab.name for lab in crec.inner_labels))
            return existing.id
        cid = self._unique_id(wanted, unit, visit.rel, crec.begin[0])
        if cid != wanted:
            unit.fallbacks += (wanted,)
        title, style = self.styles.get(crec.env, ("", "plain"))
        role = "definition" if crec.leannode else claim_role(crec.env, title, style)
        end = crec.end if crec.end[0] >= 0 else crec.begin
        inner = [lab.name for lab in crec.inner_labels]
        claim = Claim(
            id=cid, kind=crec.env, title=crec.title, label=crec.label.name if crec.label else None,
            rel_spans=crec.begin + end, anchor=unit.chunk.anchor, rank=rank,
            file=visit.path, statement_span=crec.statement, obligation=crec.obligation,
            lean_decls=list(crec.lean_decls), leanok=crec.leanok, mathlibok=crec.mathlibok,
            notready=crec.notready, needs_proof=role == "assertion", role=role,
            cited=cites_literature(crec.title),
            section=section_id, inner_labels=inner,
        )
        self.claims[cid] = claim
        unit.claims.append((claim, wanted))
        unit.claim_map[cid] = claim
        unit.claim_bases[cid] = claim_base(crec.obligation, tuple(inner))
        return cid


class _SegmentReading:
    """What one segment of a chunk makes of its records: node ids, labels, references and proofs
    into ``unit`` (taken from an earlier reading of the same places, when there is one)."""

    __slots__ = ("visit", "chunk", "unit", "places")

    def __init__(self, visit: Visit, chunk: Chunk, unit: Unit, places: _Places | None):
        self.visit, self.chunk, self.unit, self.places = visit, chunk, unit, places

    def node_id(self, label: LabelRec | None, offset: int) -> str:
        if label is not None:
            return label.name
        self.unit.pinned_line = self.chunk.line
        return f"{self.visit.rel}:{self.chunk.anchor.line_of(offset) + 1}"

    def add_label(self, lrec: LabelRec, owner: str | None, in_proof: bool = False) -> Label:
        places, unit = self.places, self.unit
        if places is not None:
            label = places.take(places.labels, (lrec.start + self.chunk.start, lrec.name), unit)
            if label is not None:
                unit.labels.append(label)
                return label
        label = Label(lrec.name, None, owner, lrec.command, self.visit.path, self.chunk.anchor, lrec.start, lrec.end,
                      in_proof)
        unit.labels.append(label)
        return label

    def add_ref(self, rrec: RefRec, owner: str | None) -> Reference:
        places, unit = self.places, self.unit
        if places is not None:
            ref = places.take(places.refs, (rrec.start + self.chunk.start, rrec.label, rrec.command), unit)
            if ref is not None:
                unit.refs.append(ref)
                return ref
        ref = Reference(rrec.label, rrec.command, None, owner, rrec.part, self.visit.path, self.chunk.anchor,
                        rrec.start, rrec.end)
        unit.refs.append(ref)
        return ref

    def add_names(self, own: LabelRec | None, labels: list[LabelRec], refs: list[RefRec], owner: str | None) -> None:
        """A node's own label, the labels inside it and its references, all owned by it."""
        if own is not None:
            self.add_label(own, owner)
        for label in labels:
            self.add_label(label, owner)
        for ref in refs:
            self.add_ref(ref, owner)

    def add_proof(self, prec: ProofRec, fallback: str | None, rank: int) -> PendingProof:
        """A proof: ``fallback`` is the claim it follows (what it proves unless its name says)."""
        unit, places, path, anchor = self.unit, self.places, self.visit.path, self.chunk.anchor
        # an unnamed proof proves what it follows; a named one is settled by link_state
        owner = fallback if prec.named is None else None
        if prec.named is None and fallback is None:
            unit.problems.append(EnvProblem(path, prec.begin[0], prec.begin[1], "orphan-proof", ORPHAN_PROOF, anchor))
        # most proofs hold no label, some no reference: those share the empty tuple
        refs = [self.add_ref(r, owner) for r in prec.refs] if prec.refs else ()
        labels = [self.add_label(lab, owner, True) for lab in prec.labels] if prec.labels else ()
        pending = places.take(places.pendings, prec.begin[0] + self.chunk.start, unit) if places is not None else None
        if pending is None:
            spans = prec.begin + (prec.end if prec.end[0] >= 0 else prec.begin)
            proof = Proof(path, prec.named, prec.leanok, prec.has_content, prec.obligation, spans, anchor,
                          prec.draft_run, prec.draft_span)
            pending = PendingProof(proof, prec.named, fallback, refs, labels, rank,
                                   owner if prec.named is None else None)
        else:  # another root reads the same proof, perhaps with other macros: kept apart,
            # as this reading may be read afresh while the first is replayed
            more = ([r for r in refs if not any(r is p for p in pending.refs)],
                    [lab for lab in labels if not any(lab is p for p in pending.labels)])
            if more[0] or more[1]:
                pending.add_extra(unit, more)
        unit.pendings.append(pending)
        return pending


def _close_environment(ev: Event, state: _State, unit: Unit, path: Path, anchor: Anchor) -> None:
    """An ``\\end`` whose ``\\begin`` is not in the chunk: it closes the environment left open last."""
    if state.envs and state.envs[-1][0] == ev.name:
        state.envs.pop()
    else:
        unit.problems.append(EnvProblem(path, ev.start, ev.end, "unmatched-end",
                                        f"\\end{{{ev.name}}} has no matching \\begin{{{ev.name}}}", anchor))


def _end_of_chunk(fa: FileAnalysis, state: _State, unit: Unit, path: Path, anchor: Anchor,
                  known_claims: dict[int, str]) -> None:
    """What the end of a chunk leaves for what follows: the environments it leaves open, the
    claim a proof read next follows, whether the document ended."""
    for ev in fa.dangling_begins:
        role, idx = ev.extra
        if role == "claim":
            state.envs.append((ev.name, path, anchor, fa.claims[idx].begin[0], fa.claims[idx].begin[1]))
        elif role == "proof":
            state.envs.append((ev.name, path, anchor, fa.proofs[idx].begin[0], fa.proofs[idx].begin[1]))
        else:
            state.envs.append((ev.name, path, None, 0, 0))
    for err in fa.errors:
        if err.name == "unterminated-environment" and "not closed before" in err.value:
            unit.problems.append(EnvProblem(path, err.start, err.end, err.name, err.value, anchor))
    # the last claim closed, unless it was closed before an include (then the included
    # file's last claim is the one a proof read next follows)
    closed = fa.last_closed
    if closed is None and (not fa.include_last_closed or fa.closed_after_include):
        state.last_claim = None
    elif closed != INCOMING and (not fa.include_last_closed or closed != fa.include_last_closed[-1]) \
            and known_claims.get(closed) is not None:
        state.last_claim = known_claims[closed]
    if fa.document_end >= 0:
        state.ended = True
