"""The index's findings, kept from one build to the next and found again only where the build
changed something they rest on.

A finding is about something: a reference (undefined in some root), a label name (defined twice
in a root, or with a comma), a claim (never referenced, Lean markers), a node of the graph (on a
circle, conditional on an open obligation). Each is kept under that key and found again only
when its inputs changed: a reference's finding when its unit is new or the root's labels of that
name changed, a claim's when the claim or whether its label is referenced changed, and so on
(colosseum.link.state.LinkChange says what changed). Each family of findings (the modules listed
in colosseum.checks.registry) keeps its own and says what it rests on; the few findings about
reading files, includes and environments are found again on every build that may have changed
them. A file's sorted list is put together
again only when one of its findings changed: the list of an untouched file stays the same
object, which is what lets the language server send only what changed.
"""

from __future__ import annotations

from itertools import chain
from pathlib import Path

from colosseum.checks.family import Edit, Entry, Findings
from colosseum.checks.registry import FAMILIES
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic
from colosseum.link.state import LinkChange


class DiagnosticState:
    def __init__(self):
        self.findings = Findings()
        self.families = [family() for family in FAMILIES]
        self.by_file: dict[Path, list[Diagnostic]] = {}
        self.file_roots: dict[Path, list[Path]] = {}
        self.last_dirty = 0  # files whose findings changed in the last update

    def bibliography(self) -> dict:
        """Citation key -> its .bib entry, as the last update read them (colosseum.checks.citations)."""
        for family in self.families:
            if family.name == "citations":
                return family.entries
        return {}

    def update(self, view: BuildView, change: LinkChange | None) -> list[Diagnostic]:
        """Bring the findings up to date with a build (``change``: what it changed, None: judge
        from nothing); returns all of them, sorted (``self.by_file`` holds them per file)."""
        if change is None or change.full:
            self.__init__()
        findings = self.findings
        edit = Edit.of(change)
        for family in self.families:
            family.judge(view, edit, findings)
        if view.file_roots != self.file_roots:  # which roots read a file: part of each message
            findings.dirty.update(view.file_roots.keys() | self.file_roots.keys())
            self.file_roots = {f: list(r) for f, r in view.file_roots.items()}
        multi_root = len(view.roots) > 1
        self.last_dirty = len(findings.dirty)
        for path in findings.dirty:
            found = _assemble(view, findings.of_file(path), multi_root)
            if found:
                self.by_file[path] = found
            else:
                self.by_file.pop(path, None)
        findings.dirty = set()
        self.by_file = dict(sorted(self.by_file.items(), key=lambda item: str(item[0])))
        return list(chain.from_iterable(self.by_file.values()))


def _assemble(view: BuildView, entries: list[Entry], multi_root: bool) -> list[Diagnostic]:
    """One file's findings: each once, with the roots that found it when only some of the roots
    reading the file did, sorted."""
    found: dict[tuple, tuple[Diagnostic, set[Path]]] = {}
    for diag, root in entries:
        key = (diag.range, diag.code, diag.message)
        entry = found.get(key)
        if entry is None:
            found[key] = (diag, {root} if root else set())
        elif root:
            entry[1].add(root)
    out = []
    for diag, roots in found.values():
        if multi_root and roots:
            reading = view.file_roots.get(diag.file, [])
            if len(reading) > 1 and len(roots) < len(reading):
                names = ", ".join(sorted(view.relative(r) for r in roots))
                diag = Diagnostic(diag.file, diag.range, diag.severity, diag.code,
                                  f"{diag.message} (when built from {names})", diag.related)
        out.append(diag)
    out.sort(key=lambda d: (d.range.start.line, d.range.start.character, d.code, d.message))
    return out
