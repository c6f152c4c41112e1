"""Go to definition, find references, and hover on a reference or label."""

from __future__ import annotations

from lsprotocol import types

from colosseum.core.structure import Position
from colosseum.graph.status import section_summary, status_words
from colosseum_lsp.context import FeatureContext
from colosseum_lsp.convert import location, markdown_hover, utf16_to_index
from colosseum_lsp.features.catalog_view import cite_key_at, claim_catalog_lines, claim_evidence_text, literature_text
from colosseum_lsp.features.statement_text import as_text


def _label_name_at(fc: FeatureContext, pos: Position) -> str | None:
    hit = fc.project.item_at(fc.path, pos)
    if hit is None:
        return None
    kind, item = hit
    return item.label if kind == "ref" else item.name


def definition(fc: FeatureContext, pos: Position) -> list[types.Location] | None:
    name = _label_name_at(fc, pos)
    if name is None:
        return None
    # a label of another document, named through xr's \externaldocument[prefix]{doc}, too
    return [location(label.location) for label in fc.snapshot.labels_through_documents(name, fc.path)] or None


def references(fc: FeatureContext, pos: Position, include_declaration: bool) -> list[types.Location] | None:
    name = _label_name_at(fc, pos)
    if name is None:
        return None
    snap = fc.snapshot
    out = [location(ref.location) for ref in snap.references if ref.label == name]
    if include_declaration:
        out = [location(label.location) for label in snap.labels.get(name, [])] + out
    return out


def _describer(snap):
    """Names a label as \\cref prints it: the kind of the claim it is in, then the label."""
    def describe(label: str) -> str:
        labels = snap.labels.get(label)
        owner = labels[0].owner if labels else None
        claim = snap.claims.get(owner) if owner else None
        return f"{snap.kind_name(claim.kind)} {label}" if claim is not None else label
    return describe


def _undefined_text(snap, path, name: str, where) -> str:
    """Why a name is undefined, as its finding says it: the hover said "not defined anywhere in the
    project" right beside a finding naming the file (read by no root) where its \\label stands."""
    for diag in snap.diagnostics or ():
        if diag.code == "colosseum/undefined-reference" and diag.file == path and diag.range == where:
            return f"**`{name}`** is undefined: " + diag.message.split(": ", 1)[-1]
    return f"**`{name}`** has no \\label in the files this build reads"


def hover(fc: FeatureContext, pos: Position) -> types.Hover | None:
    hit = fc.project.item_at(fc.path, pos)
    if hit is None:
        return _cite_hover(fc, pos)
    kind, item = hit
    project, snap = fc.project, fc.snapshot
    name = item.label if kind == "ref" else item.name
    labels = snap.labels_through_documents(name, fc.path)
    if not labels:
        return markdown_hover(_undefined_text(snap, fc.path, name, item.location.range), item.location.range)
    owner = labels[0].owner
    claim = snap.claims.get(owner) if owner else None
    section = snap.sections.get(owner) if owner else None
    if claim is not None:
        status = snap.graph.status.get(owner, "open")
        rests_on = len(snap.graph.ancestors(owner))
        describe = _describer(snap)
        title = as_text(claim.title, describe, limit=200).replace("\n", " ") if claim.title else ""
        head = f"**{snap.kind_name(claim.kind)}** `{owner}`" + (f" — {title}" if title else "")
        if name != owner:
            head += f" (label `{name}` inside it)"
        body = as_text(claim.statement_text, describe)
        facts = f"status: **{status_words(status)}** · rests on {rests_on} result{'s' if rests_on != 1 else ''}"
        assumed = snap.graph.assumptions_of(owner, snap.claims)
        if assumed:  # what it is proved from without being conditional on it (claim roles)
            facts += " · assumes " + ", ".join(f"{snap.kind_name(snap.claims[a].kind)} `{a}`" for a in assumed)
        if claim.proof is not None and claim.proof.draft_run is not None:
            run = f" from run `{claim.proof.draft_run}`" if claim.proof.draft_run else ""
            facts += f" · its proof is a model's draft{run}: accept or reject it"
        if claim.lean_decls:
            facts += " · Lean: " + ", ".join(f"`{d}`" for d in claim.lean_decls) + (" ✓" if claim.leanok else "")
        value = (f"{head}\n\n{facts}\n\n---\n\n```text\n{body}\n```" + claim_evidence_text(project, owner)
                 + claim_catalog_lines(project, owner))
    elif section is not None:
        # what it holds ("all 5 claims proved", "nothing owed"): "proved" is said of results
        value = f"**{section.level.capitalize()}** `{owner}` — {section.title}\n\nholds: **{section_summary(snap.graph, owner)}**"
    else:
        loc = labels[0].location
        value = f"label `{name}` at {loc.file.name}:{loc.range.start.line + 1}"
    return markdown_hover(value, item.location.range)


def _cite_hover(fc: FeatureContext, pos: Position) -> types.Hover | None:
    """On a \\cite key: its bibliography entry (author, title, year), then the catalog's
    statement of that result, hypotheses and source."""
    project = fc.project
    ft = project.index.text_of(fc.path) if project.index is not None else None
    if ft is None or pos.line >= len(ft.lines.line_starts):
        return None
    line = ft.lines.line_text(pos.line)
    key = cite_key_at(line, utf16_to_index(line, pos.character))
    if key is None:
        return None
    parts = [text for text in (_bib_entry_text(fc.snapshot.bibliography.get(key)), literature_text(project, key))
             if text]
    return markdown_hover("\n\n---\n\n".join(parts)) if parts else None


def _bib_entry_text(entry) -> str | None:
    """A .bib entry as hover shows it: its title, authors and year, and where it appeared."""
    if entry is None:
        return None
    fields = entry.fields
    head = f"**{fields.get('title', '(no title)')}**"
    lines = [head, fields.get("author") or fields.get("editor") or ""]
    venue = fields.get("journal") or fields.get("booktitle") or fields.get("publisher") or ""
    year = fields.get("year") or fields.get("date") or ""
    lines.append(", ".join(x for x in (venue, year) if x))
    return "\n\n".join(x for x in lines if x) + f"\n\n`@{entry.entry_type}{{{entry.key}}}`"
