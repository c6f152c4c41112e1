"""What the catalog holds as evidence for one claim, by kind, kept apart (contracts: "Evidence
kinds"): a read-only view for the hover, the graph, the reports and the findings.

- computation: a program run on small cases (``colosseum probe``), with the ``range`` it checked
  and its verdict, ``consistent`` or ``counterexample``. Never a proof, whatever it found.
- model review: a ``proof`` item with ``reviewed_by: model`` (refuters of an unrefuted solve).
- person review: a ``proof`` item with ``reviewed_by: person`` (an accepted draft).
- formal: Lean checked it.
- other: ``heuristic`` and ``reference`` items, and a ``proof`` with no reviewer named.

Only active entries count; a retracted or superseded one is evidence no longer."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# the JSON names of the kinds, in the order every view shows them
KINDS = ("computation", "model_review", "person_review", "formal", "other")
_RUN_FOLDER = re.compile(r"(?:^|/)\.colosseum/runs/([^/]+)/")


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One item of evidence: the entry it is in, and what the view says of it."""

    entry: str
    kind: str  # one of KINDS
    description: str
    artifact: str = ""
    run: str = ""  # the run folder's name, where the artifact is a run's record
    checked: dict = field(default_factory=dict)  # computation: {"n": [1, 30]}
    verdict: str = ""  # computation: consistent | counterexample
    counterexample: str = ""  # computation: the case where the claim fails

    def as_json(self) -> dict:
        out = {"entry": self.entry, "description": self.description, "artifact": self.artifact or None,
               "run": self.run or None}
        if self.kind == "computation":
            out.update({"range": self.checked, "verdict": self.verdict,
                        "counterexample": self.counterexample or None})
        return out


def item_from_json(kind: str, data: dict) -> EvidenceItem:
    """An item as ``EvidenceItem.as_json`` wrote it (the JSON of `dag` and `obligations`)."""
    return EvidenceItem(str(data.get("entry") or ""), kind, str(data.get("description") or ""),
                        str(data.get("artifact") or ""), str(data.get("run") or ""), dict(data.get("range") or {}),
                        str(data.get("verdict") or ""), str(data.get("counterexample") or ""))


@dataclass(frozen=True, slots=True)
class ClaimEvidence:
    label: str
    items: tuple[EvidenceItem, ...] = ()

    def of_kind(self, kind: str) -> list[EvidenceItem]:
        return [item for item in self.items if item.kind == kind]

    @property
    def computation(self) -> list[EvidenceItem]:
        return self.of_kind("computation")

    @property
    def counterexamples(self) -> list[EvidenceItem]:
        return [item for item in self.computation if item.verdict == "counterexample"]

    def as_json(self) -> dict:
        """Lists by kind, every kind present (empty when the catalog has none)."""
        return {kind: [item.as_json() for item in self.of_kind(kind)] for kind in KINDS}


def range_text(checked: dict) -> str:
    """``{"n": [1, 30]}`` as "1 ≤ n ≤ 30"."""
    parts = []
    for name, bounds in sorted(checked.items()):
        if isinstance(bounds, (list, tuple)) and len(bounds) == 2:
            parts.append(f"{bounds[0]:g} ≤ {name} ≤ {bounds[1]:g}")
    return ", ".join(parts)


def _kind_of(item: dict) -> str:
    kind = item.get("type")
    if kind == "computation":
        return "computation"
    if kind == "formal":
        return "formal"
    if kind == "proof" and item.get("reviewed_by") == "model":
        return "model_review"
    if kind == "proof" and item.get("reviewed_by") == "person":
        return "person_review"
    return "other"


def _item(entry, raw: dict) -> EvidenceItem:
    kind = _kind_of(raw)
    artifact = str(raw.get("artifact") or "")
    found = _RUN_FOLDER.search(artifact)
    run = found.group(1) if found else str((entry.data.get("provenance") or {}).get("run") or "")
    checked = raw.get("range") if kind == "computation" and isinstance(raw.get("range"), dict) else {}
    verdict = (str(raw.get("verdict") or "consistent")) if kind == "computation" else ""
    return EvidenceItem(entry.id, kind, str(raw.get("description") or "").strip(), artifact, run, dict(checked),
                        verdict, str(raw.get("counterexample") or "").strip() if kind == "computation" else "")


def entry_items(entry) -> list[EvidenceItem]:
    """The evidence items of one entry, as the view reads them."""
    return [_item(entry, raw) for raw in entry.data.get("evidence") or [] if isinstance(raw, dict)]


def _names(entry, label: str) -> bool:
    return label in (entry.links.get("labels") or []) or (entry.data.get("target") or {}).get("label") == label


def claim_evidence(catalog, label: str) -> ClaimEvidence:
    """The evidence the catalog's active entries give for ``label``, in entry order."""
    items: list[EvidenceItem] = []
    for entry in sorted(catalog.entries.values(), key=lambda e: e.id):
        if entry.status != "active" or not _names(entry, label):
            continue
        items += [_item(entry, raw) for raw in entry.data.get("evidence") or [] if isinstance(raw, dict)]
    return ClaimEvidence(label, tuple(items))


def labels_named(catalog) -> set[str]:
    """The labels the catalog's active entries name: the only claims it has evidence for."""
    named: set[str] = set()
    for entry in catalog.entries.values():
        if entry.status == "active":
            named.update(entry.links.get("labels") or [])
            named.add((entry.data.get("target") or {}).get("label"))
    named.discard(None)
    return named


def evidence_by_claim(catalog, labels) -> dict[str, ClaimEvidence]:
    """``claim_evidence`` of every label in ``labels`` (one pass over the catalog)."""
    wanted = set(labels)
    found: dict[str, list[EvidenceItem]] = {label: [] for label in wanted}
    for entry in sorted(catalog.entries.values(), key=lambda e: e.id):
        if entry.status != "active":
            continue
        named = set(entry.links.get("labels") or []) | {(entry.data.get("target") or {}).get("label")}
        for label in sorted(named & wanted):
            found[label] += [_item(entry, raw) for raw in entry.data.get("evidence") or [] if isinstance(raw, dict)]
    return {label: ClaimEvidence(label, tuple(items)) for label, items in found.items()}


def computation_line(item: EvidenceItem) -> str:
    """One computation as every view words it: what was checked, what it found, which run."""
    where = range_text(item.checked)
    checked = f"checked for {where}" if where else "checked on the cases its run lists"
    run = f" (run {item.run})" if item.run else f" (entry {item.entry})"
    if item.verdict == "counterexample":
        return f"{checked} — counterexample found: {item.counterexample or 'see the run'}{run}"
    return f"{checked} — consistent{run}"


def review_line(item: EvidenceItem) -> str:
    return _shortened(item.description) + (f" (run {item.run})" if item.run else f" (entry {item.entry})")


def _shortened(text: str, limit: int = 400) -> str:
    """``text`` cut between words with "…" when longer than ``limit``, keeping its last sentence when
    that is short: the curator ends a model review with who read it ("Not yet read by a person.")."""
    if len(text) <= limit:
        return text
    head, _, last = text.rstrip().rpartition(". ")
    tail = last if head and len(last) <= 80 else ""
    room = limit - len(tail) - 3
    return text[:room].rsplit(" ", 1)[0] + " …" + (f" {tail}" if tail else "")


SECTION_TITLES = {"computation": "Computation (not a proof)", "model_review": "Model review",
                  "person_review": "Review by a person", "formal": "Formal (Lean)", "other": "Other evidence"}


def evidence_sections(evidence: ClaimEvidence, heading: str = "**{}**") -> list[str]:
    """Markdown: one section per kind of evidence the claim has, computation first. Computation is
    worded as what was checked and found, never as a proof."""
    lines: list[str] = []
    for kind in KINDS:
        items = evidence.of_kind(kind)
        if not items:
            continue
        if lines:
            lines.append("")
        lines += [heading.format(SECTION_TITLES[kind]), ""]
        describe = computation_line if kind == "computation" else review_line
        lines += [f"- {describe(item)}" for item in items]
    return lines


def computation_report_section(evidence: ClaimEvidence) -> list[str]:
    """A run's report: the catalog's computations on the claim, in a section of their own."""
    items = evidence.computation
    lines = ["## Computation (not a proof)", ""]
    if not items:
        return lines + ["No probe has checked this claim on small cases (`colosseum probe`).", ""]
    lines += [f"- {computation_line(item)}" for item in items]
    return lines + ["", "A probe checks small cases with code a model wrote; it is evidence apart from model "
                    "review and from Lean, never a proof.", ""]


def claims_computation_section(by_label: dict, heading: str = "## Computation (not a proof)") -> list[str]:
    """A document's report: every claim's computations (label -> EvidenceItem list), apart."""
    lines = [heading, ""]
    if not by_label:
        return lines + ["No claim has been checked on small cases (`colosseum probe`).", ""]
    for label, items in sorted(by_label.items()):
        lines += [f"- `{label}`: {computation_line(item)}" for item in items]
    return lines + ["", "Probes check small cases with code a model wrote: evidence apart from the review above "
                    "and from Lean, never a proof.", ""]
