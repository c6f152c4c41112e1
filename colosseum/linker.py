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


@dataclass(slots=True)
class RootResult:
    root: Path
    labels: dict[str, list[Label]] = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    problems: list[EnvProblem] = field(default_factory=list)


@dataclass(slots=True)
class _State:
    section: str | None = None
    section_stack: list[tuple[int, str]] = field(default_factory=list)
    last_claim: str | None = None
    envs: list[tuple[str, Path, int, int]] = field(default_factory=list)  # dangling begins
    ended: bool = False  # \end{document} was read: LaTeX stops there


@dataclass(slots=True)
class _PendingProof:
    proof: Proof
    named: str | None
    fallback: str | None
    refs: list[Reference]
    labels: list[Label]


class Linker:
    def __init__(self, root_dir: Path, theorem_styles: dict[str, tuple[str, str]]):
        self.root_dir = root_dir
        self.styles = theorem_styles  # env -> (title, style)
        self.claims: dict[str, Claim] = {}
        self.sections: dict[str, Section] = {}
        self._claim_keys: dict[tuple[Path, int], Claim] = {}
        self._section_keys: dict[tuple[Path, int], Section] = {}
        self._ref_keys: dict[tuple, Reference] = {}
        self._label_keys: dict[tuple, Label] = {}
        self._pending: dict[tuple[Path, int], _PendingProof] = {}
        self.roots: list[RootResult] = []
        self._order = 0

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
        """Attach proofs to claims once every label of every root is known."""
        label_owner = {name: labels[0].owner for name, labels in self.labels().items() if labels}
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
            claim = self.claims.get(target) if target else None
            if claim is not None:
                claim.references.extend(r for r in pending.refs)
                if claim.proof is None or (not claim.proof.has_content and pending.proof.has_content):
                    claim.proof = pending.proof
                if pending.proof.obligation:
                    claim.obligation = True
                claim.inner_labels.extend(label.name for label in pending.labels)

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
        entry_section = state.section
        claim_ids: dict[int, str] = {}
        section_ids: dict[int, str] = {}
        lines = fa.lines
        path = visit.path

        def loc(start: int, end: int) -> Location:
            return Location(path, lines.range(start, end))

        def node_id(label: LabelRec | None, offset: int) -> str:
            if label is not None:
                return label.name
            return f"{visit.rel}:{lines.line_of(offset) + 1}"

        def add_label(rec: LabelRec, owner: str | None) -> Label:
            key = (path, rec.start, rec.name)
            label = self._label_keys.get(key)
            if label is None:
                label = Label(rec.name, loc(rec.start, rec.end), owner, rec.command)
                self._label_keys[key] = label
            result.labels.setdefault(rec.name, []).append(label)
            return label

        def add_ref(rec: RefRec, owner: str | None) -> Reference:
            key = (path, rec.start, rec.label, rec.command)
            ref = self._ref_keys.get(key)
            if ref is None:
                ref = Reference(rec.label, rec.command, loc(rec.start, rec.end), owner, rec.part)
                self._ref_keys[key] = ref
            result.references.append(ref)
            return ref

        for label in fa.incoming_labels:
            add_label(label, entry_section)
        for ref in fa.incoming_refs:
            r = add_ref(ref, entry_section)
            if entry_section in self.sections:
                self._add_unique(self.sections[entry_section].references, r)
        if fa.incoming_obligation and entry_section in self.sections:
            self.sections[entry_section].obligation = True

        for offset, kind, index in _timeline(fa):
            if state.ended:
                break
            if fa.document_end >= 0 and offset > fa.document_end:
                break
            if kind == "section":
                rec = fa.sections[index]
                sid = self._section(visit, rec, index, node_id(rec.label, rec.begin[0]), loc, state)
                section_ids[index] = sid
                if rec.label is not None:
                    add_label(rec.label, sid)
                section = self.sections[sid]
                for label in rec.labels:
                    add_label(label, sid)
                for ref in rec.refs:
                    self._add_unique(section.references, add_ref(ref, sid))
            elif kind == "claim":
                rec = fa.claims[index]
                section_id = section_ids.get(rec.section) if rec.section != INCOMING else entry_section
                if rec.section != INCOMING and section_id is None:
                    section_id = state.section
                cid = self._claim(visit, rec, node_id(rec.label, rec.begin[0]), loc, section_id)
                claim_ids[index] = cid
                claim = self.claims[cid]
                if rec.label is not None:
                    add_label(rec.label, cid)
                for label in rec.inner_labels:
                    add_label(label, cid)
                for ref in rec.refs:
                    self._add_unique(claim.references, add_ref(ref, cid))
                if not rec.leannode:
                    state.last_claim = cid
            elif kind == "proof":
                rec = fa.proofs[index]
                key = (path, rec.begin[0])
                fallback = state.last_claim if rec.attach == INCOMING else claim_ids.get(rec.attach)
                if rec.attach is None:  # named: fall back on position if the name is unknown
                    fallback = state.last_claim
                pending = self._pending.get(key)
                refs = [add_ref(r, None) for r in rec.refs]
                labels = [add_label(lab, None) for lab in rec.labels]
                if pending is None:
                    proof = Proof(loc(*rec.begin), loc(*rec.end) if rec.end[0] >= 0 else loc(*rec.begin),
                                  rec.named, rec.leanok, rec.has_content, rec.obligation)
                    self._pending[key] = _PendingProof(proof, rec.named, fallback, refs, labels)
                else:  # another root reads the same proof, perhaps with other macros
                    pending.refs.extend(r for r in refs if not any(r is p for p in pending.refs))
                    pending.labels.extend(lab for lab in labels if not any(lab is p for p in pending.labels))
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
                    result.problems.append(EnvProblem(path, ev.start, ev.end, "unmatched-end",
                                                      f"\\end{{{ev.name}}} has no matching \\begin{{{ev.name}}}"))
        for ev in fa.dangling_begins:
            role, idx = ev.extra
            if role == "claim":
                rec = fa.claims[idx]
                state.envs.append((ev.name, path, rec.begin[0], rec.begin[1]))
            elif role == "proof":
                rec = fa.proofs[idx]
                state.envs.append((ev.name, path, rec.begin[0], rec.begin[1]))
            else:
                state.envs.append((ev.name, path, 0, 0))
        for err in fa.errors:
            if err.name == "unterminated-environment" and "not closed before" in err.value:
                result.problems.append(EnvProblem(path, err.start, err.end, err.name, err.value))
        if fa.document_end >= 0:
            state.ended = True

    @staticmethod
    def _add_unique(items: list[Reference], ref: Reference) -> None:
        if not items or items[-1] is not ref:
            if ref not in items[-3:]:
                items.append(ref)

    def _unique_id(self, wanted: str, key: tuple[Path, int], rel: str, line: int, table: dict) -> str:
        if wanted not in table:
            return wanted
        fallback = f"{rel}:{line}"
        return fallback if fallback not in table else f"{fallback}#{key[1]}"

    def _section(self, visit: Visit, rec, index: int, wanted: str, loc, state: _State) -> str:
        key = (visit.path, rec.begin[0])
        rank = SECTION_RANK.get(rec.level, 2)
        while state.section_stack and state.section_stack[-1][0] >= rank:
            state.section_stack.pop()
        parent = state.section_stack[-1][1] if state.section_stack else None
        existing = self._section_keys.get(key)
        if existing is None:
            sid = self._unique_id(wanted, key, visit.rel, visit.analysis.lines.line_of(rec.begin[0]) + 1, self.sections)
            existing = Section(sid, rec.level, rec.title, rec.label.name if rec.label else None,
                               loc(*rec.begin), visit.path, rec.obligation, parent, rec.has_content,
                               order=self._next_order())
            self._section_keys[key] = existing
            self.sections[sid] = existing
        state.section_stack.append((rank, existing.id))
        state.section = existing.id
        return existing.id

    def _claim(self, visit: Visit, rec, wanted: str, loc, section_id: str | None) -> str:
        key = (visit.path, rec.begin[0])
        existing = self._claim_keys.get(key)
        if existing is not None:
            return existing.id
        cid = self._unique_id(wanted, key, visit.rel, visit.analysis.lines.line_of(rec.begin[0]) + 1, self.claims)
        title, style = self.styles.get(rec.env, ("", "plain"))
        role = "definition" if rec.leannode else claim_role(rec.env, title, style)
        claim = Claim(
            id=cid, kind=rec.env, title=rec.title, label=rec.label.name if rec.label else None,
            location=loc(*rec.begin), end=loc(*rec.end) if rec.end[0] >= 0 else loc(*rec.begin),
            file=visit.path, statement_text=rec.statement_text, obligation=rec.obligation,
            lean_decls=list(rec.lean_decls), leanok=rec.leanok, mathlibok=rec.mathlibok,
            notready=rec.notready, needs_proof=role == "assertion", role=role, order=self._next_order(),
            cited=bool(rec.title and ("\\cite" in rec.title or "\\textcite" in rec.title)),
            section=section_id, inner_labels=[lab.name for lab in rec.inner_labels],
        )
        self._claim_keys[key] = claim
        self.claims[cid] = claim
        return cid


def _timeline(fa: FileAnalysis) -> list[tuple[int, str, int]]:
    cached = getattr(fa, "_timeline", None)
    if cached is not None:
        return cached
    items: list[tuple[int, str, int]] = []
    items += [(s.begin[0], "section", i) for i, s in enumerate(fa.sections)]
    items += [(c.begin[0], "claim", i) for i, c in enumerate(fa.claims)]
    items += [(p.begin[0], "proof", i) for i, p in enumerate(fa.proofs)]
    items += [(ev.start, "include", i) for i, ev in enumerate(fa.includes)]
    items += [(ev.start, "end", i) for i, ev in enumerate(fa.dangling_ends)]
    items.sort(key=lambda item: (item[0], item[1] != "section"))
    return items
