"""The research draft as the ordinary index reads it.

The skeleton is a LaTeX fragment that belongs right after the theorem it proves. The draft is
the author's file that holds the theorem with that fragment (and the proofs found so far) put in
place, given to the project index as an editor overlay: never written to the author's files,
read exactly as the paper will read it once the author adds the fragment. So the DAG, the
statements and the structure checks all come from the LaTeX itself: the document is the single
source of truth, and the pipeline keeps no second copy of the graph."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.latex.macros import SECTION_LEVELS

RANK = {level: i for i, level in enumerate(SECTION_LEVELS)}
_USES = re.compile(r"\\uses\s*\{[^{}]*\}")


class DraftError(ValueError):
    """The theorem cannot take a research draft (no such claim, or it already has a proof)."""


def normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@dataclass
class Structure:
    """What a revision may not change, read from the index: the skeleton's sections in order
    (id, level), its claims (section, statement) and the dependency edges between them."""

    sections: list[tuple[str, str]]
    claims: dict[str, tuple[str | None, str]]
    edges: set[tuple[str, str]] = field(default_factory=set)


class DraftDocument:
    def __init__(self, index, target: str):
        claim = index.claims.get(target)
        if claim is None:
            raise DraftError(f"no claim `{target}` in the project")
        if claim.proof is not None and claim.proof.has_content:
            raise DraftError(f"`{target}` already has a proof: the research pipeline is for a theorem with none yet")
        if claim.cited or claim.mathlibok:
            raise DraftError(f"`{target}` is quoted from the literature (or Mathlib): there is nothing to prove")
        if not claim.needs_proof:
            raise DraftError(f"`{target}` is a {claim.kind}: there is nothing to prove")
        self.index, self.target = index, target
        self.file: Path = claim.file
        ft = index.text_of(claim.file)
        self.original = ft.text
        self.paper_labels = set(index.labels)  # before the skeleton: what a new label may not reuse
        self.paper_claims = set(index.claims)
        # after the theorem; an empty proof of it is replaced (it would otherwise take the
        # skeleton's proof of the theorem: the first proof of a claim wins)
        self.offset, self.replace_to = claim.spans[3], claim.spans[3]
        if claim.proof is not None and claim.proof.file == claim.file and claim.proof.spans[0] >= claim.spans[3]:
            self.replace_to = claim.proof.spans[3]
        self.region_text = ""
        self.region_start = self.offset

    # ---- the text ------------------------------------------------------------------------------
    def virtual_text(self, region: str) -> str:
        return self.original[:self.offset] + "\n\n" + region.strip("\n") + "\n" + self.original[self.replace_to:]

    def set_region(self, region: str) -> None:
        """Put ``region`` in place of the skeleton and index the result (one file rescanned)."""
        region = region.strip("\n")
        self.region_text = region
        self.region_start = self.offset + 2
        self.index.update_documents({self.file: self.virtual_text(region)})

    def draft_line(self, file, line: int | None) -> int | None:
        """The 1-based line of the draft (the skeleton file) that a 1-based line of the overlaid
        file is, or None when it is outside the draft."""
        if line is None or file != self.file:
            return None
        first = self._lines().line_of(self.region_start) + 1
        inside = line - first + 1
        return inside if 1 <= inside <= self.region_text.count("\n") + 1 else None

    @property
    def region_end(self) -> int:
        return self.region_start + len(self.region_text)

    def in_region(self, file: Path, offset: int) -> bool:
        return file == self.file and self.region_start <= offset <= self.region_end

    def _lines(self):
        return self.index.text_of(self.file).lines

    # ---- what the index read -------------------------------------------------------------------
    def region_claims(self) -> list:
        found = [c for c in self.index.claims.values() if self.in_region(c.file, c.spans[0])]
        return sorted(found, key=lambda c: c.spans[0])

    def region_sections(self) -> list:
        lines = self._lines()
        found = [s for s in self.index.sections.values()
                 if s.file == self.file and self.in_region(s.file, lines.offset(s.location.range.start))]
        return sorted(found, key=lambda s: lines.offset(s.location.range.start))

    def obligations(self) -> list[str]:
        """The skeleton's claims that still need a proof, then the theorem."""
        labels = [c.id for c in self.region_claims()
                  if c.needs_proof and not (c.proof is not None and c.proof.has_content)]
        return labels + [self.target]

    def target_proof_in_region(self) -> bool:
        claim = self.index.claims.get(self.target)
        return bool(claim and claim.proof and self.in_region(claim.proof.file, claim.proof.spans[0]))

    def structure(self) -> Structure:
        claims = {c.id: (c.section, normalize(c.statement_text)) for c in self.region_claims()}
        target = self.index.claims.get(self.target)
        if target is not None:
            claims[self.target] = (None, normalize(target.statement_text))
        graph = self.index.graph
        nodes = set(claims)
        edges = {(u, v) for u in nodes for v in graph.succ.get(u, ()) if v in nodes}
        return Structure([(s.id, s.level) for s in self.region_sections()], claims, edges)

    def region_diagnostics(self, codes: tuple[str, ...]) -> list:
        lines = self._lines()
        return [d for d in self.index.diagnostics() if d.file == self.file and d.code in codes
                and self.in_region(d.file, lines.offset(d.range.start))]

    def statement(self, label: str) -> str:
        claim = self.index.claims.get(label)
        return claim.statement_text.strip() if claim is not None else ""

    # ---- edits of the region -------------------------------------------------------------------
    def _rel(self, offset: int) -> int:
        return offset - self.region_start

    def with_proof(self, label: str, proof: str) -> str:
        """The region with ``proof`` as the body of ``label``'s proof (its \\uses lines kept), or
        a proof environment added after the claim when the skeleton gave it none."""
        claim = self.index.claims.get(label)
        if claim is None:
            raise KeyError(f"no claim `{label}` in the draft")
        text = self.region_text
        body = proof.strip()
        if claim.proof is not None and self.in_region(claim.proof.file, claim.proof.spans[1]):
            start, end = self._rel(claim.proof.spans[1]), self._rel(claim.proof.spans[2])
            start = _after_optional_argument(text, start, end)
            uses = "".join(m.group() for m in _USES.finditer(text[start:end]))
            return text[:start] + "\n" + (uses + "\n" if uses else "") + body + "\n" + text[end:]
        if not self.in_region(claim.file, claim.spans[3]):
            raise KeyError(f"`{label}` has no proof in the skeleton to fill")
        at = self._rel(claim.spans[3])
        return text[:at] + "\n\\begin{proof}\n" + body + "\n\\end{proof}" + text[at:]

    def fill(self, label: str, proof: str) -> None:
        self.set_region(self.with_proof(label, proof))

    def section_span(self, section_id: str) -> tuple[int, int]:
        """Region offsets of a section: from its command to the next one of the same or a higher
        level, or to the end of the region."""
        lines = self._lines()
        sections = self.region_sections()
        for i, s in enumerate(sections):
            if s.id != section_id:
                continue
            start = lines.offset(s.location.range.start)
            end = self.region_end
            for later in sections[i + 1:]:
                if RANK.get(later.level, 9) <= RANK.get(s.level, 9):
                    end = lines.offset(later.location.range.start)
                    break
            return self._rel(start), self._rel(end)
        raise KeyError(f"no section `{section_id}` in the skeleton")

    def section_text(self, section_id: str) -> str:
        start, end = self.section_span(section_id)
        return self.region_text[start:end]

    def with_section(self, section_id: str, latex: str) -> str:
        start, end = self.section_span(section_id)
        return self.region_text[:start] + latex.strip("\n") + "\n\n" + self.region_text[end:].lstrip("\n")

    def section_of(self, label: str) -> str | None:
        """The skeleton section that holds a claim (the theorem: the section of its proof)."""
        claim = self.index.claims.get(label)
        if claim is None:
            return None
        lines = self._lines()
        offset = claim.spans[0] if label != self.target or claim.proof is None else claim.proof.spans[0]
        owner = None
        for s in self.region_sections():
            if lines.offset(s.location.range.start) <= offset:
                owner = s.id
        return owner


def section_level_for(index, target: str) -> str:
    """The level the skeleton's sections take: one below the section that holds the theorem."""
    claim = index.claims.get(target)
    section = index.sections.get(claim.section) if claim is not None and claim.section else None
    if section is None:
        return "section"
    rank = RANK.get(section.level, 2)
    return SECTION_LEVELS[min(rank + 1, RANK["subsubsection"])]


def reference_command(index) -> str:
    """How the skeleton names the theorem in its proof title: \\cref when the paper loads cleveref."""
    for root in index.roots:
        ft = index.text_of(Path(root))
        if ft is not None and re.search(r"\\usepackage(\[[^\]]*\])?\{[^}]*cleveref", ft.text.split("\\begin{document}")[0]):
            return "\\cref"
    return "Theorem~\\ref"


def _after_optional_argument(text: str, start: int, end: int) -> int:
    """Past a ``[...]`` right after \\begin{proof} (its title, which names the theorem)."""
    i = start
    while i < end and text[i] in " \t":
        i += 1
    if i >= end or text[i] != "[":
        return start
    depth = 0
    for j in range(i, end):
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "]" and depth == 0:
            return j + 1
    return start


BREAKING_CODES = ("colosseum/duplicate-label", "colosseum/undefined-reference", "colosseum/dependency-cycle")


def structure_violations(before: Structure, after: Structure, editable: set[str], *, may_add_claims: bool,
                         may_drop_sections: bool) -> list[str]:
    """The ways ``after`` breaks the skeleton of ``before`` when only the sections in
    ``editable`` were to change: a new section, a reordering, a changed level, a section dropped
    that was not editable, a claim outside the editable sections changed or gone, a new claim
    where none may be added, the theorem's statement changed."""
    problems = []
    old_ids = [s for s, _ in before.sections]
    new_ids = [s for s, _ in after.sections]
    added = [s for s in new_ids if s not in old_ids]
    if added:
        problems.append("new sections: " + ", ".join(added))
    kept = [s for s in old_ids if s in new_ids]
    if [s for s in new_ids if s in old_ids] != kept:
        problems.append("the sections are in a different order")
    dropped = [s for s in old_ids if s not in new_ids]
    if dropped and (not may_drop_sections or any(s not in editable for s in dropped)):
        problems.append("sections removed: " + ", ".join(dropped))
    old_levels, new_levels = dict(before.sections), dict(after.sections)
    relevelled = [s for s in kept if old_levels[s] != new_levels[s]]
    if relevelled:
        problems.append("sections moved to another level: " + ", ".join(relevelled))
    for label, (section, statement) in before.claims.items():
        if section in editable:
            continue
        if label not in after.claims:
            problems.append(f"`{label}` (outside the sections being revised) is gone")
        elif after.claims[label][1] != statement:
            what = "the theorem's statement" if section is None else f"the statement of `{label}`"
            problems.append(f"{what} changed outside the sections being revised")
    new_claims = [label for label in after.claims if label not in before.claims]
    misplaced = [label for label in new_claims if after.claims[label][0] not in editable]
    if misplaced:
        problems.append("new claims outside the sections being revised: " + ", ".join(misplaced))
    elif new_claims and not may_add_claims:
        problems.append("new claims (a revision may not add lemmas): " + ", ".join(new_claims))
    return problems
