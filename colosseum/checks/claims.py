"""Findings about single claims: a claim's label that nothing references (unused labels), and the
blueprint's Lean bookkeeping (``\\lean``, ``\\leanok``, ``\\notready``) that does not add up.

A claim's findings are judged again when the claim was read afresh (or moved, when it had
findings); whether its label is used, also when a reference to it (or to a label inside it) came
or went."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping

from colosseum.checks.family import Edit, Findings, code
from colosseum.checks.view import BuildView, LinkedReadings
from colosseum.core.structure import Claim, Diagnostic, Label
from colosseum.link.units import filed


def unused_label_findings(claim: Claim, is_referenced: bool, labels: Mapping[str, list[Label]]) -> list[Diagnostic]:
    if is_referenced:
        return []
    label = labels[claim.label][0]
    return [Diagnostic(label.location.file, label.location.range, "hint", code("unused-label"),
                       f"{claim.kind} `{claim.label}` is never referenced")]


def lean_mark_findings(claim: Claim) -> list[Diagnostic]:
    out = []
    if claim.lean_decls and not claim.leanok and not claim.mathlibok:
        out.append(Diagnostic(claim.location.file, claim.location.range, "hint", code("lean-without-leanok"),
                              f"{claim.kind} `{claim.id}` names Lean declaration(s) "
                              f"{', '.join(claim.lean_decls)} but is not marked \\leanok (not formalized yet)"))
    if claim.leanok and not claim.lean_decls:
        out.append(Diagnostic(claim.location.file, claim.location.range, "warning", code("leanok-without-lean"),
                              f"{claim.kind} `{claim.id}` is marked \\leanok but names no Lean declaration (\\lean{{...}})"))
    if claim.notready and claim.leanok:
        out.append(Diagnostic(claim.location.file, claim.location.range, "warning", code("leanok-but-notready"),
                              f"{claim.kind} `{claim.id}` is marked both \\notready and \\leanok"))
    return out


def claim_findings(claim: Claim, is_referenced: bool, labels: Mapping[str, list[Label]]) -> list[Diagnostic]:
    """Every finding about one claim (both families')."""
    return unused_label_findings(claim, is_referenced, labels) + lean_mark_findings(claim)


class _PerClaim(ABC):
    """A family keyed by claim: its findings are dropped with the claim."""

    # no set of the claims judged (it held every claim id, in each family): a claim's findings
    # are its key in Findings, and clearing a key that holds nothing does nothing
    name: str

    def _touched(self, view: BuildView, edit: Edit, findings: Findings) -> set[str]:
        if edit.full:
            return set(view.claims)
        # a claim that only moved has new findings only if it had some (at the old place)
        return edit.change.nodes | {cid for cid in edit.moved_nodes if (self.name, cid) in findings.items}

    def _set(self, findings: Findings, view: BuildView, todo: Iterable[str]) -> None:
        for cid in todo:
            claim = view.claims.get(cid)
            if claim is None or claim.kind == "leannode":
                findings.set((self.name, cid), [])
                continue
            findings.set((self.name, cid), [(d, None) for d in self.find(view, claim)])

    @abstractmethod
    def find(self, view: BuildView, claim: Claim) -> list[Diagnostic]:
        """The findings about one claim."""


class LeanMarks(_PerClaim):
    name = "lean-marks"
    codes = ("lean-without-leanok", "leanok-without-lean", "leanok-but-notready")
    depends_on = ("claims",)

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        self._set(findings, view, self._touched(view, edit, findings))

    def find(self, view: BuildView, claim: Claim) -> list[Diagnostic]:
        return lean_mark_findings(claim)


class UnusedLabels(_PerClaim):
    name = "unused-label"
    codes = ("unused-label",)
    depends_on = ("claims", "labels", "links")

    def __init__(self):
        super().__init__()
        self.referenced: dict[str, int] = {}  # label -> how many references make it used

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        referenced = self.referenced
        flipped = set()
        units = (view.links.units, []) if edit.full else (edit.change.added, edit.change.removed)
        for sign, group in ((+1, units[0]), (-1, units[1])):
            for unit in group:
                for ref in unit.refs:
                    if ref.part != "proof-title" or ref.command == "proves":
                        name = ref.label
                        count = referenced.get(name, 0) + sign
                        if count > 0:
                            referenced[name] = count
                        else:
                            referenced.pop(name, None)
                        # any change, not only a flip: a label inside a claim is used only from elsewhere
                        flipped.add(name)
        todo = self._touched(view, edit, findings)
        claims, labels = view.claims, view.labels
        for name in flipped | (set() if edit.full else edit.change.names):
            for label in labels.get(name, ()):
                if label.owner in claims:
                    todo.add(label.owner)
        self._set(findings, view, todo)

    def find(self, view: BuildView, claim: Claim) -> list[Diagnostic]:
        referenced = self.referenced
        is_referenced = not claim.label or claim.label in referenced \
            or any(name in referenced and _used_elsewhere(view.links, name, claim.id) for name in claim.inner_labels)
        return unused_label_findings(claim, is_referenced, view.labels)


def _used_elsewhere(links: LinkedReadings, name: str, cid: str) -> bool:
    """Whether a label inside claim ``cid`` (a second label, an equation, an item) is referenced
    from outside the claim and its proof: an item of an exercise that names its sibling is no use."""
    return any(ref.owner != cid and (ref.part != "proof-title" or ref.command == "proves")
               for unit in filed(links.by_ref, name) for ref in filed(unit.refs_by_label, name))
