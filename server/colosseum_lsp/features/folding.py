"""Folding ranges: a section runs to the next section of its level or above (or the end of its
file), a claim from \\begin to \\end, and its proof likewise."""

from __future__ import annotations

from lsprotocol import types

from colosseum.latex.macros import SECTION_LEVELS
from colosseum_lsp import convert
from colosseum_lsp.context import FeatureContext


def _section_spans(fc: FeatureContext, last_line: int) -> list[tuple[int, int]]:
    here = sorted((s.location.range.start.line, SECTION_LEVELS.index(s.level) if s.level in SECTION_LEVELS else 99)
                  for s in fc.snapshot.sections.values() if s.file == fc.path)
    spans = []
    for i, (line, depth) in enumerate(here):
        # the line before the next section that is not inside this one
        end = next((later - 1 for later, other in here[i + 1:] if other <= depth), last_line)
        spans.append((line, end))
    return spans


def _environment_spans(fc: FeatureContext) -> list[tuple[int, int]]:
    spans = []
    for claim in fc.snapshot.claims.values():
        if claim.file != fc.path or claim.kind == "leannode":
            continue
        spans.append((claim.location.range.start.line, claim.end.range.end.line))
        proof = claim.proof
        if proof is not None and proof.file == fc.path and proof.anchor is not None:
            spans.append((proof.location.range.start.line, proof.end.range.end.line))
    return spans


def folding_ranges(fc: FeatureContext) -> list[types.FoldingRange]:
    ft = fc.project.index.text_of(fc.path)
    if ft is None:
        return []
    text = ft.text.rstrip("\n")
    last_line = text.count("\n")
    spans = sorted(set(_section_spans(fc, last_line) + _environment_spans(fc)))
    return [convert.folding_range(start, end) for start, end in spans if end > start]
