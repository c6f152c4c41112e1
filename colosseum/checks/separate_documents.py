"""Separate documents in one project folder: roots that read no file in common.

A blueprint's ``web.tex`` and ``print.tex`` share their chapters and are one argument. An old copy
of the paper in ``old/``, or two papers side by side, share nothing, yet labels, the dependency
graph and rename are matched across the whole project folder: where two such documents define the
same label, a reference in one can resolve into the other. That is said once per root, with the
way out, instead of mixing the documents up in silence.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from colosseum.checks.family import Edit, Entry, EveryBuild, Findings, code
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic, Position, Range
from colosseum.link.units import RootResult

CODE = code("separate-documents")
EXAMPLES = 3  # labels named in the message


class SeparateDocuments(EveryBuild):
    name = "separate-documents"
    codes = ("separate-documents",)
    depends_on = ("root_results", "relative", "text_of")

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        # which labels two documents both define changes with any label that comes or goes, an
        # edit that changes no structure
        if edit.full or edit.change.structural or (edit.change.names and len(view.root_results) > 1):
            self.publish(view, findings)

    def find(self, view: BuildView) -> Iterator[Entry]:
        return ((diag, None) for diag in separate_document_findings(view))


def document_groups(root_results: Sequence[RootResult]) -> list[list[Path]]:
    """The roots grouped into documents: two roots that read a common file are one document."""
    parent: dict[Path, Path] = {}

    def find(root: Path) -> Path:
        while parent[root] != root:
            parent[root] = root = parent[parent[root]]
        return root

    first_reader: dict[Path, Path] = {}
    for result in root_results:
        parent.setdefault(result.root, result.root)
        for f in result.files:
            reader = first_reader.setdefault(f, result.root)
            parent[find(result.root)] = find(reader)
    groups: dict[Path, list[Path]] = {}
    for root in parent:
        groups.setdefault(find(root), []).append(root)
    return sorted(sorted(g) for g in groups.values())


def separate_document_findings(view: BuildView) -> list[Diagnostic]:
    if len(view.root_results) < 2:
        return []
    groups = document_groups(view.root_results)
    if len(groups) < 2:
        return []
    labels_of_root = {result.root: result.labels.keys() for result in view.root_results}
    defined = [set().union(*(labels_of_root[root] for root in group)) for group in groups]
    out = []
    for i, group in enumerate(groups):
        clashing: set[str] = set()
        others: list[Path] = []
        for j, other in enumerate(groups):
            common = defined[i] & defined[j] if j != i else set()
            if common:
                clashing |= common
                others.extend(other)
        if not clashing:
            continue
        names = sorted(clashing)
        shown = ", ".join(f"`{n}`" for n in names[:EXAMPLES])
        more = f" and {len(names) - EXAMPLES} more labels" if len(names) > EXAMPLES else ""
        other_names = ", ".join(view.relative(p) for p in sorted(others))
        for root in group:
            message = (f"{view.relative(root)} and {other_names} are separate documents (they read no file in "
                       f"common) but both define {shown}{more}: labels are matched across the whole folder, so "
                       "references, the dependency graph and rename would mix them up. Name the root in "
                       "colosseum.toml (root = \"...\"), or give each document its own folder with a colosseum.toml")
            out.append(Diagnostic(root, _documentclass_range(view, root), "warning", CODE, message))
    return out


def _documentclass_range(view: BuildView, root: Path) -> Range:
    ft = view.text_of(root)
    if ft is not None:
        at = ft.text.find("\\documentclass")
        if at >= 0:
            return ft.lines.range(at, at + len("\\documentclass"))
    return Range(Position(0, 0), Position(0, 0))
