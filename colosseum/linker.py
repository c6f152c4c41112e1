"""Joins the per-file analyses of every root, in reading order, into one project structure.

Each root is walked as LaTeX reads it: a file's claims, proofs and sections interleaved with the
files it includes at the offsets of the include commands. What a file left open for its
surroundings (its first paragraph's section, a leading proof's claim, environments that span
files) is settled here. Shared files (a blueprint's ``web.tex`` and ``print.tex``) yield one
claim, one label and one reference per place however many roots read them; labels and undefined
references are judged per root.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from colosseum.file_analysis import INCOMING, FileAnalysis, LabelRec, RefRec, claim_role
from colosseum.project_files import FileText
from colosseum.structure import Claim, Label, Location, Proof, Reference, Section

SECTION_RANK = {"part": 0, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4,
                "paragraph": 5, "subparagraph": 6}


@dataclass(slots=True)
class Visit:
    """One file as read by one root, with the files it includes (by include index)."""

    path: Path
    rel: str
    text: FileText
    scan: object  # the ScanResult this visit read
    analysis: FileAnalysis | None = None
    children: dict[int, "Visit"] = field(default_factory=dict)


@dataclass(slots=True)
class EnvProblem:
    file: Path
    start: int
    end: int
    code: str
    message: str


@dataclass
class RootResult:
    root: Path
    label_list: list[Label] = field(default_factory=list)  # every definition, in reading order
    references: list[Reference] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    problems: list[EnvProblem] = field(default_factory=list)
    _labels: dict[str, list[Label]] | None = None

    @property
    def labels(self) -> dict[str, list[Label]]:
        """Label name -> its definitions in this build."""
        if self._labels is None:
            table: dict[str, list[Label]] = {}
            for label in self.label_list:
                found = table.get(label.name)
                if found is None:
                    table[label.name] = [label]
                else:
                    found.append(label)
            self._labels = table
        return self._labels


@dataclass(slots=True)
class _State:
    section: str | None = None
    section_stack: list[tuple[int, str]] = field(default_factory=list)
    last_claim: str | None = None
    envs: list[tuple[str, Path, int, int]] = field(default_factory=list)  # dangling begins
    ended: bool = False  # \end{document} was read: LaTeX stops there

    def signature(self) -> tuple:
        return (self.section, tuple(self.section_stack), self.last_claim, tuple(self.envs), self.ended)

    def copy(self) -> "_State":
        return _State(self.section, list(self.section_stack), self.last_claim, list(self.envs), self.ended)


@dataclass(slots=True)
class _PendingProof:
    proof: Proof
    named: str | None
    fallback: str | None
    refs: list[Reference]
    labels: list[Label]


@dataclass(slots=True)
class _Recording:
    """What one visit of a file (with no includes of its own) contributed: replayed as is when
    the same analysis is entered in the same state again, which is what makes an edit cheap."""

    analysis: FileAnalysis
    claims: list[tuple[Claim, tuple, str, bool, tuple[str, ...]]] = field(default_factory=list)
    sections: list[tuple[Section, tuple, bool]] = field(default_factory=list)
    problems: list[EnvProblem] = field(default_factory=list)
    marked_sections: list[str] = field(default_factory=list)
    exit: _State | None = None
    # the same, as mappings ready for dict.update
    claim_map: dict = field(default_factory=dict)
    claim_keys: dict = field(default_factory=dict)
    claim_bases: dict = field(default_factory=dict)
    section_map: dict = field(default_factory=dict)
    section_keys: dict = field(default_factory=dict)
    section_bases: dict = field(default_factory=dict)
    label_map: dict = field(default_factory=dict)
    ref_map: dict = field(default_factory=dict)
    pending_map: dict = field(default_factory=dict)

    def seal(self) -> None:
        for claim, key, _wanted, obligation, inner in self.claims:
            self.claim_map[claim.id] = claim
            self.claim_keys[key] = claim
            self.claim_bases[claim.id] = (obligation, inner)
        for section, key, base in self.sections:
            self.section_map[section.id] = section
            self.section_keys[key] = section
            self.section_bases[section.id] = base


class Linker:
    def __init__(self, root_dir: Path, theorem_styles: dict[str, tuple[str, str]],
                 memo: dict | None = None):
        self.root_dir = root_dir
        self.styles = theorem_styles  # env -> (title, style)
        self.claims: dict[str, Claim] = {}
        self.sections: dict[str, Section] = {}
        self._claim_keys: dict[tuple[Path, int], Claim] = {}
        self._section_keys: dict[tuple[Path, int], Section] = {}
        self._claim_base: dict[str, tuple[bool, tuple[str, ...]]] = {}
        self._section_base: dict[str, bool] = {}
        self._marked_sections: set[str] = set()
        self._ref_keys: dict[tuple, Reference] = {}
        self._label_keys: dict[tuple, Label] = {}
        self._pending: dict[tuple, _PendingProof] = {}
        self.roots: list[RootResult] = []
        self.label_owner: dict[str, str | None] = {}
        self._order = 0
        self._old_memo = memo if memo is not None else {}
        self.memo: dict = {}  # the recordings used in this run: the next run's memo
        self._recording: _Recording | None = None

    def _next_order(self) -> int:
        self._order += 1
        return self._order

    # ---- public ------------------------------------------------------------------------------
    def link_root(self, root: Path, visit: Visit) -> RootResult:
        result = RootResult(root)
        state = _State()
        self._visit(visit, state, result)
        for env, path, start, end in state.envs:
            result.problems.append(EnvProblem(path, start, end, "unterminated-environment",
                                              f"\\begin{{{env}}} is never closed"))
        self.roots.append(result)
        return result

    def finish(self) -> None:
        """Attach proofs to claims once every label of every root is known. Idempotent on the
        (reused) claim objects: everything it sets is first reset to what the files say."""
        # the new values are computed first and assigned once, so that a reader of the last
        # snapshot (which may share these objects) never sees a half-reset claim
        obligation = {cid: base[0] for cid, base in self._claim_base.items()}
        inner_labels = {cid: list(base[1]) for cid, base in self._claim_base.items()}
        proofs: dict[str, Proof] = {}
        for sid, section in self.sections.items():
            marked = self._section_base[sid] or sid in self._marked_sections
            if section.obligation != marked:
                section.obligation = marked
        label_owner: dict[str, str | None] = {}
        for label in self._label_keys.values():
            label_owner.setdefault(label.name, label.owner)
        for pending in self._pending.values():
            target = pending.fallback
            if pending.named is not None:
                owner = label_owner.get(pending.named)
                if owner in self.claims:
                    target = owner
            for ref in pending.refs:
                ref.owner = target
            for label in pending.labels:
                label.owner = target
            if target in self.claims:
                current = proofs.get(target)
                if current is None or (not current.has_content and pending.proof.has_content):
                    proofs[target] = pending.proof
                if pending.proof.obligation:
                    obligation[target] = True
                inner_labels[target].extend(label.name for label in pending.labels)
        # again, now that the labels inside proofs have their owners
        label_owner = {}
        for label in self._label_keys.values():
            label_owner.setdefault(label.name, label.owner)
        self.label_owner = label_owner
        by_owner: dict[str, list[Reference]] = {}
        for ref in self._ref_keys.values():
            if ref.owner is not None:
                by_owner.setdefault(ref.owner, []).append(ref)
        for cid, claim in self.claims.items():
            claim.proof = proofs.get(cid)
            claim.obligation = obligation[cid]
            claim.inner_labels = inner_labels[cid]
            claim.references = by_owner.get(cid, [])
        for sid, section in self.sections.items():
            section.references = by_owner.get(sid, [])

    def labels(self) -> dict[str, list[Label]]:
        out: dict[str, list[Label]] = {}
        for label in self._label_keys.values():
            out.setdefault(label.name, []).append(label)
        return out

    def references(self) -> list[Reference]:
        return list(self._ref_keys.values())

    # ---- the walk ----------------------------------------------------------------------------
    def _visit(self, visit: Visit, state: _State, result: RootResult) -> None:
        fa = visit.analysis
        result.files.append(visit.path)
        leaf = not visit.children
        if leaf:
            key = (visit.path, state.signature())  # roots reading a file in the same state share it
            recording = self.memo.get(key) or self._old_memo.get(key)
            if recording is not None and recording.analysis is fa and self._replay(recording, state, result):
                self.memo[key] = recording
                return
            self._recording = _Recording(fa)
        self._execute(visit, state, result)
        if leaf:
            self._recording.exit = state.copy()
            self._recording.seal()
            self.memo[key] = self._recording
            self._recording = None

    def _replay(self, rec: _Recording, state: _State, result: RootResult) -> bool:
        for mine, taken in ((rec.claim_map, self.claims), (rec.section_map, self.sections)):
            for node in mine.keys() & taken.keys():
                if taken[node] is not mine[node]:
                    return False  # another file took one of these node ids meanwhile: link afresh
        if any(wanted != claim.id and wanted not in self.claims for claim, _k, wanted, _o, _i in rec.claims):
            return False  # an id that had to fall back could now be the label itself
        # bulk updates: replaying an unchanged file costs a few C-level dict operations
        self.claims.update(rec.claim_map)
        self._claim_keys.update(rec.claim_keys)
        self._claim_base.update(rec.claim_bases)
        self.sections.update(rec.section_map)
        self._section_keys.update(rec.section_keys)
        self._section_base.update(rec.section_bases)
        self._label_keys.update(rec.label_map)
        self._ref_keys.update(rec.ref_map)
        self._pending.update(rec.pending_map)
        result.label_list.extend(rec.label_map.values())
        result.references.extend(rec.ref_map.values())
        result.problems.extend(rec.problems)
        self._marked_sections.update(rec.marked_sections)
        exit_state = rec.exit
        state.section, state.section_stack = exit_state.section, list(exit_state.section_stack)
        state.last_claim, state.envs, state.ended = exit_state.last_claim, list(exit_state.envs), exit_state.ended
        return True

    def _execute(self, visit: Visit, state: _State, result: RootResult) -> None:
        fa = visit.analysis
        rec = self._recording
        entry_section = state.section
        claim_ids: dict[int, str] = {}
        section_ids: dict[int, str] = {}
        lines = fa.lines
        path = visit.path
        locations = fa.locations

        def loc(start: int, end: int) -> Location:
            found = locations.get((start, end))
            if found is None:
                found = locations[(start, end)] = Location(path, lines.range(start, end))
            return found

        def node_id(label: LabelRec | None, offset: int) -> str:
            if label is not None:
                return label.name
            return f"{visit.rel}:{lines.line_of(offset) + 1}"

        def add_label(lrec: LabelRec, owner: str | None) -> Label:
            key = (path, lrec.start, lrec.name)
            label = self._label_keys.get(key)
            if label is None:
                label = Label(lrec.name, None, owner, lrec.command, path, lines, lrec.start, lrec.end)
                self._label_keys[key] = label
            result.label_list.append(label)
            if rec is not None:
                rec.label_map[key] = label
            return label

        def add_ref(rrec: RefRec, owner: str | None) -> Reference:
            key = (path, rrec.start, rrec.label, rrec.command)
            ref = self._ref_keys.get(key)
            if ref is None:
                ref = Reference(rrec.label, rrec.command, None, owner, rrec.part, path, lines, rrec.start, rrec.end)
                self._ref_keys[key] = ref
            result.references.append(ref)
            if rec is not None:
                rec.ref_map[key] = ref
            return ref

        def problem(p: EnvProblem) -> None:
            result.problems.append(p)
            if rec is not None:
                rec.problems.append(p)

        for label in fa.incoming_labels:
            add_label(label, entry_section)
        for ref in fa.incoming_refs:
            add_ref(ref, entry_section)
        if fa.incoming_obligation and entry_section is not None:
            self._marked_sections.add(entry_section)
            if rec is not None:
                rec.marked_sections.append(entry_section)

        for offset, kind, index in _timeline(fa):
            if state.ended:
                break
            if fa.document_end >= 0 and offset > fa.document_end:
                break
            if kind == "section":
                srec = fa.sections[index]
                sid = self._section(visit, srec, node_id(srec.label, srec.begin[0]), loc, state)
                section_ids[index] = sid
                if srec.label is not None:
                    add_label(srec.label, sid)
                for label in srec.labels:
                    add_label(label, sid)
                for ref in srec.refs:
                    add_ref(ref, sid)
            elif kind == "claim":
                crec = fa.claims[index]
                section_id = section_ids.get(crec.section) if crec.section != INCOMING else entry_section
                if crec.section != INCOMING and section_id is None:
                    section_id = state.section
                cid = self._claim(visit, crec, node_id(crec.label, crec.begin[0]), loc, section_id)
                claim_ids[index] = cid
                if crec.label is not None:
                    add_label(crec.label, cid)
                for label in crec.inner_labels:
                    add_label(label, cid)
                for ref in crec.refs:
                    add_ref(ref, cid)
                if not crec.leannode:
                    state.last_claim = cid
            elif kind == "proof":
                prec = fa.proofs[index]
                key = (path, prec.begin[0])
                fallback = state.last_claim if prec.attach == INCOMING else claim_ids.get(prec.attach)
                if prec.attach is None:  # named: fall back on position if the name is unknown
                    fallback = state.last_claim
                pending = self._pending.get(key)
                refs = [add_ref(r, None) for r in prec.refs]
                labels = [add_label(lab, None) for lab in prec.labels]
                if pending is None:
                    proof = Proof(path, prec.named, prec.leanok, prec.has_content, prec.obligation,
                                  prec.begin + (prec.end if prec.end[0] >= 0 else prec.begin), lines)
                    pending = self._pending[key] = _PendingProof(proof, prec.named, fallback, refs, labels)
                else:  # another root reads the same proof, perhaps with other macros
                    pending.refs.extend(r for r in refs if not any(r is p for p in pending.refs))
                    pending.labels.extend(lab for lab in labels if not any(lab is p for p in pending.labels))
                if rec is not None:
                    rec.pending_map[key] = pending
            elif kind == "include":
                child = visit.children.get(index)
                if child is not None:
                    self._visit(child, state, result)
                    if fa.includes[index].name == "subfile":
                        state.ended = False  # a subfile's own \end{document} ends only the subfile
            elif kind == "end":
                ev = fa.dangling_ends[index]
                if state.envs and state.envs[-1][0] == ev.name:
                    state.envs.pop()
                else:
                    problem(EnvProblem(path, ev.start, ev.end, "unmatched-end",
                                       f"\\end{{{ev.name}}} has no matching \\begin{{{ev.name}}}"))
        for ev in fa.dangling_begins:
            role, idx = ev.extra
            if role == "claim":
                state.envs.append((ev.name, path, fa.claims[idx].begin[0], fa.claims[idx].begin[1]))
            elif role == "proof":
                state.envs.append((ev.name, path, fa.proofs[idx].begin[0], fa.proofs[idx].begin[1]))
            else:
                state.envs.append((ev.name, path, 0, 0))
        for err in fa.errors:
            if err.name == "unterminated-environment" and "not closed before" in err.value:
                problem(EnvProblem(path, err.start, err.end, err.name, err.value))
        if fa.document_end >= 0:
            state.ended = True

    def _unique_id(self, wanted: str, key: tuple[Path, int], rel: str, line: int, table: dict) -> str:
        if wanted not in table:
            return wanted
        fallback = f"{rel}:{line}"
        return fallback if fallback not in table else f"{fallback}#{key[1]}"

    def _section(self, visit: Visit, srec, wanted: str, loc, state: _State) -> str:
        key = (visit.path, srec.begin[0])
        rank = SECTION_RANK.get(srec.level, 2)
        while state.section_stack and state.section_stack[-1][0] >= rank:
            state.section_stack.pop()
        parent = state.section_stack[-1][1] if state.section_stack else None
        existing = self._section_keys.get(key)
        if existing is None:
            sid = self._unique_id(wanted, key, visit.rel, visit.analysis.lines.line_of(srec.begin[0]) + 1, self.sections)
            existing = Section(sid, srec.level, srec.title, srec.label.name if srec.label else None,
                               loc(*srec.begin), visit.path, srec.obligation, parent, srec.has_content,
                               order=self._next_order())
            self._section_keys[key] = existing
            self.sections[sid] = existing
            self._section_base[sid] = srec.obligation
        if self._recording is not None:  # also when another visit made it: a replay needs it
            self._recording.sections.append((existing, key, self._section_base[existing.id]))
        state.section_stack.append((rank, existing.id))
        state.section = existing.id
        return existing.id

    def _claim(self, visit: Visit, crec, wanted: str, loc, section_id: str | None) -> str:
        key = (visit.path, crec.begin[0])
        existing = self._claim_keys.get(key)
        if existing is not None:
            if self._recording is not None:  # a replay of this visit must bring the claim too
                self._recording.claims.append((existing, key, wanted, *self._claim_base[existing.id]))
            return existing.id
        cid = self._unique_id(wanted, key, visit.rel, visit.analysis.lines.line_of(crec.begin[0]) + 1, self.claims)
        title, style = self.styles.get(crec.env, ("", "plain"))
        role = "definition" if crec.leannode else claim_role(crec.env, title, style)
        claim = Claim(
            id=cid, kind=crec.env, title=crec.title, label=crec.label.name if crec.label else None,
            spans=crec.begin + (crec.end if crec.end[0] >= 0 else crec.begin), lines=visit.analysis.lines,
            file=visit.path, statement_text=crec.statement_text, obligation=crec.obligation,
            lean_decls=list(crec.lean_decls), leanok=crec.leanok, mathlibok=crec.mathlibok,
            notready=crec.notready, needs_proof=role == "assertion", role=role, order=self._next_order(),
            cited=bool(crec.title and ("\\cite" in crec.title or "\\textcite" in crec.title)),
            section=section_id, inner_labels=[lab.name for lab in crec.inner_labels],
        )
        self._claim_keys[key] = claim
        self.claims[cid] = claim
        base = (crec.obligation, tuple(claim.inner_labels))
        self._claim_base[cid] = base
        if self._recording is not None:
            self._recording.claims.append((claim, key, wanted, *base))
        return cid


def _timeline(fa: FileAnalysis) -> list[tuple[int, str, int]]:
    if fa.timeline is not None:
        return fa.timeline
    items: list[tuple[int, str, int]] = []
    items += [(s.begin[0], "section", i) for i, s in enumerate(fa.sections)]
    items += [(c.begin[0], "claim", i) for i, c in enumerate(fa.claims)]
    items += [(p.begin[0], "proof", i) for i, p in enumerate(fa.proofs)]
    items += [(ev.start, "include", i) for i, ev in enumerate(fa.includes)]
    items += [(ev.start, "end", i) for i, ev in enumerate(fa.dangling_ends)]
    items.sort(key=lambda item: (item[0], item[1] != "section"))
    fa.timeline = items
    return items
