"""Findings about citations: a ``\\cite``-family key no entry of the project's bibliography
defines (with near misses: "did you mean"), a key two .bib entries define, a bibliography file
that cannot be found or read, and a .bib entry that cannot be read to its end.

The bibliography is every file the project names with ``\\bibliography{...}`` or biblatex's
``\\addbibresource{...}``, inside the project folder (or a read-only path of the user's config),
and the keys of ``\\bibitem`` (``thebibliography``). A project with neither has no findings here:
its citations are resolved elsewhere, or not at all. Judged on every build, from readings cached
per file text: a keystroke costs a look at each file's text object, and a .bib changed on disk
(the index reads it again) is seen at the next build.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from colosseum.checks.family import Edit, Entry, EveryBuild, Findings, code, range_at
from colosseum.checks.references import similar_labels
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic, RelatedInfo, Location
from colosseum.latex.citations import Citations as FileCitations
from colosseum.latex.citations import read_citations, reread
from colosseum.latex.incremental import common_prefix, common_suffix
from colosseum.project.bibliography import BibEntry, BibFile, read_bib
from colosseum.settings.boundary import Boundary

MAX_PLACES = 5


class Citations(EveryBuild):
    name = "citations"
    codes = ("undefined-citation", "duplicate-bib-key", "missing-bibliography", "bib-syntax")
    depends_on = ("file_roots", "root_results", "text_of", "root_dir", "relative", "read_only_paths")

    def __init__(self):
        self._readings: dict[Path, tuple[str, FileCitations]] = {}  # file -> (its text, its reading)
        self.full_readings = 0  # files read afresh (not from their reading before an edit), counted
        super().__init__()
        self._bibs: dict[Path, tuple[str, BibFile]] = {}
        # per root: its keys, and the near misses of each undefined name among them
        self._near: dict[Path, tuple[frozenset[str], dict[str, list[str]]]] = {}
        # every key the bibliography defines -> its first .bib entry (None: a \\bibitem), what
        # hover shows and the quick fix chooses from
        self.entries: dict[str, BibEntry | None] = {}

    def _reading(self, view: BuildView, path: Path) -> FileCitations | None:
        ft = view.text_of(path)
        if ft is None:
            return None
        kept = self._readings.get(path)
        if kept is None or kept[0] is not ft.text:
            reading = None
            if kept is not None:  # an edit of a paragraph changes no citation: the items only move
                prefix = common_prefix(kept[0], ft.text)
                suffix = common_suffix(kept[0], ft.text, min(len(kept[0]), len(ft.text)) - prefix)
                reading = reread(kept[0], ft.text, kept[1], prefix, suffix)
            if reading is None:
                self.full_readings += 1
                reading = read_citations(ft.text)
            kept = self._readings[path] = (ft.text, reading)
        return kept[1]

    def _bib(self, view: BuildView, path: Path) -> BibFile | None:
        ft = view.text_of(path)
        if ft is None or ft.problem is not None:
            return None
        kept = self._bibs.get(path)
        if kept is None or kept[0] is not ft.text:
            kept = self._bibs[path] = (ft.text, read_bib(ft.text))
        return kept[1]

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        # every build: a .bib file changes no reading of the LaTeX (its readings are cached per text)
        self.publish(view, findings)

    def find(self, view: BuildView) -> Iterator[Entry]:
        """Per root, as LaTeX judges each build: its citations against its own bibliography."""
        readings = {path: r for path in view.file_roots if (r := self._reading(view, path)) is not None}
        self._readings = {p: self._readings[p] for p in readings}
        self.entries = {}
        used_bibs: set[Path] = set()
        for result in view.root_results:
            of_root = {path: readings[path] for path in dict.fromkeys(result.files) if path in readings}
            if any(r.resources or r.thebibliography for r in of_root.values()):
                for diag in self._find_in_root(view, result.root, of_root, used_bibs):
                    yield diag, result.root
        self._bibs = {p: self._bibs[p] for p in used_bibs if p in self._bibs}
        roots = {result.root for result in view.root_results}
        self._near = {root: kept for root, kept in self._near.items() if root in roots}

    def _find_in_root(self, view: BuildView, root: Path, readings: dict[Path, FileCitations],
                      used_bibs: set[Path]) -> Iterator[Diagnostic]:
        defined: dict[str, list[tuple[Path, int, int]]] = {}
        complete = yield from self._read_bibliography(view, readings, defined, used_bibs)
        for path, reading in readings.items():
            for key, start, end in reading.bibitems:
                defined.setdefault(key, []).append((path, start, end))
                self.entries.setdefault(key, None)
        yield from _duplicates(view, defined)
        if not complete:
            return
        keys = frozenset(defined)
        kept = self._near.get(root)
        if kept is None or kept[0] != keys:
            kept = self._near[root] = (keys, {})  # near misses are looked up again only when the keys changed
        near = kept[1]
        for path, reading in readings.items():
            for key, start, end in reading.keys:
                if key not in defined:
                    if key not in near:
                        near[key] = _near_misses(key, keys)
                    yield _undefined(view, path, key, start, end, near[key])

    def _read_bibliography(self, view: BuildView, readings: dict[Path, FileCitations],
                           defined: dict[str, list[tuple[Path, int, int]]], used_bibs: set[Path]) -> Iterator[Diagnostic]:
        """Reads every .bib the project names into ``defined``; yields what could not be read;
        returns whether every one was read (else a key may be in the one that was not)."""
        boundary = Boundary.of(view.root_dir, view.read_only_paths)
        complete, seen, bibs = True, set(), {}
        for path, reading in readings.items():
            for command, name, start, end in reading.resources:
                # \bibliography{\jobname}, a macro's parameter, biblatex's remote resource: not followed
                if "\\" in name or "#" in name or "://" in name:
                    complete = False
                    continue
                found = _bib_path(view, path, command, name)
                where = range_at(view, path, start, end)
                if found is None or not boundary.may_read(found):
                    complete = False
                    why = "is outside the project folder (not read)" if found is not None else "is not found"
                    yield Diagnostic(path, where, "warning", code("missing-bibliography"),
                                     f"bibliography file `{name}` {why}: its citations are not checked")
                    continue
                if found in seen:
                    continue
                seen.add(found)
                bib = self._bib(view, found)
                if bib is None:
                    complete = False
                    yield Diagnostic(path, where, "warning", code("missing-bibliography"),
                                     f"bibliography file `{name}` cannot be read: its citations are not checked")
                    continue
                bibs[found] = bib
        used_bibs.update(bibs)
        for bib_path, bib in bibs.items():
            for offset, message in bib.problems:
                yield Diagnostic(bib_path, range_at(view, bib_path, offset, offset), "warning", code("bib-syntax"),
                                 f"{message}: the entries after it may be missing")
            for entry in bib.entries:
                defined.setdefault(entry.key, []).append((bib_path, entry.start, entry.end))
                self.entries.setdefault(entry.key, entry)
        return complete


def _bib_path(view: BuildView, citing: Path, command: str, name: str) -> Path | None:
    """Where a bibliography file is: from the folder of a root that reads the citing file (LaTeX
    runs there), then the citing file's own, then the project's. ``\\bibliography{refs}`` adds
    ``.bib``; ``\\addbibresource`` names the file whole."""
    file = name if command != "bibliography" or name.endswith(".bib") else name + ".bib"
    folders = [root.parent for root in view.file_roots.get(citing, ())] + [citing.parent, view.root_dir]
    for folder in dict.fromkeys(folders):
        candidate = folder / file
        if candidate.is_file():
            return candidate.resolve()
    return None


def _near_misses(key: str, keys: frozenset[str]) -> list[str]:
    """The keys the author may have meant: one that differs only in case first (the author surely
    meant it), then the similar ones."""
    folded = key.casefold()
    same = sorted(k for k in keys if k.casefold() == folded)
    return same + [k for k in similar_labels(key, keys) if k not in same]


def _duplicates(view: BuildView, defined: dict[str, list[tuple[Path, int, int]]]) -> Iterator[Diagnostic]:
    yield from _case_only_duplicates(view, defined)
    for key, places in defined.items():
        if len(places) < 2:
            continue
        for i, (path, start, end) in enumerate(places):
            others = [p for j, p in enumerate(places[:MAX_PLACES + 1]) if j != i][:MAX_PLACES]
            where = ", ".join(f"{view.relative(p)}:{range_at(view, p, s, e).start.line + 1}" for p, s, e in others)
            related = tuple(RelatedInfo(Location(p, range_at(view, p, s, e)), f"`{key}` is also defined here")
                            for p, s, e in others)
            yield Diagnostic(path, range_at(view, path, start, end), "error", code("duplicate-bib-key"),
                             f"bibliography key `{key}` is defined {len(places)} times (also at {where})", related)


def _case_only_duplicates(view: BuildView, defined: dict[str, list[tuple[Path, int, int]]]) -> Iterator[Diagnostic]:
    """Keys that differ only in case: BibTeX lowercases keys to look entries up (a repeated entry,
    the second one lost), biber keeps them apart. A warning at each, since the outcome depends on
    the tool."""
    by_folded: dict[str, list[str]] = {}
    for key in defined:
        by_folded.setdefault(key.casefold(), []).append(key)
    for spellings in by_folded.values():
        if len(spellings) < 2:
            continue
        shown = " and ".join(f"`{k}`" for k in spellings[:MAX_PLACES])
        for key in spellings:
            path, start, end = defined[key][0]
            yield Diagnostic(path, range_at(view, path, start, end), "warning", code("duplicate-bib-key"),
                             f"bibliography keys {shown} differ only in case: BibTeX reads them as one key "
                             "(a repeated entry, one of them lost), biber as two; rename one")


def _undefined(view: BuildView, path: Path, key: str, start: int, end: int, near: list[str]) -> Diagnostic:
    message = f"undefined citation `{key}`: no entry in the project's bibliography"
    if near and near[0].casefold() == key.casefold():
        message = (f"undefined citation `{key}`: it differs from the entry `{near[0]}` only in case (biber "
                   "does not match them; BibTeX does, with a case-mismatch warning)")
    if near:
        message += "; did you mean " + " or ".join(f"`{n}`" for n in near) + "?"
    return Diagnostic(path, range_at(view, path, start, end), "warning", code("undefined-citation"), message)
