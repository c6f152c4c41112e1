"""One consistent state of the project index (``IndexSnapshot``), what readers hold while an update
runs, and what the last build did (``BuildWork``). ``colosseum.index.project_index`` keeps both
importable from where they were."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from colosseum.core.structure import Claim, Diagnostic, Label, Reference, Section
from colosseum.graph.dag import DependencyGraph
from colosseum.link.linker import RootResult, Unit
from colosseum.project.analysis import DEFAULT_THEOREM_ENVIRONMENTS
from colosseum.project.walk import IncludeProblem


@dataclass(slots=True)
class IndexSnapshot:
    """One consistent state of the index. Readers (the language server's handlers) take the
    current snapshot once and use it throughout, so an update running meanwhile is invisible."""

    claims: dict[str, Claim] = field(default_factory=dict)
    sections: dict[str, Section] = field(default_factory=dict)
    labels: dict[str, list[Label]] = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)
    root_results: list[RootResult] = field(default_factory=list)
    include_problems: list[IncludeProblem] = field(default_factory=list)
    theorem_environments: frozenset[str] = DEFAULT_THEOREM_ENVIRONMENTS
    kind_names: dict[str, str] = field(default_factory=dict)  # environment -> the name the paper declared
    file_roots: dict[Path, list[Path]] = field(default_factory=dict)
    graph: DependencyGraph | None = None
    diagnostics: list[Diagnostic] | None = None
    diagnostics_by_file: dict[Path, list[Diagnostic]] = field(default_factory=dict)  # a file's list is
    # the same object from one snapshot to the next while its findings stay the same
    bibliography: dict = field(default_factory=dict)  # citation key -> its .bib entry (None: a \\bibitem)
    units: list[Unit] = field(default_factory=list)  # what each chunk of each file contributed, reading order
    _units_by_path: dict[Path, list[Unit]] | None = None

    def labels_through_documents(self, name: str, path: Path) -> list[Label]:
        """The labels a reference ``name`` in ``path`` names: the project's labels of that name, else
        (xr) the labels ``name`` less a prefix names in the documents that the roots reading
        ``path`` name with ``\\externaldocument[prefix]{doc}``."""
        found = self.labels.get(name)
        if found or not self.external_documents:
            return list(found or ())
        by_root = {result.root: result.labels for result in self.root_results}
        out: list[Label] = []
        for root in self.file_roots.get(path, ()):
            for prefix, doc in self.external_documents.get(root, ()):
                if name.startswith(prefix):
                    out.extend(label for label in by_root.get(doc, {}).get(name[len(prefix):], ())
                               if label not in out)
        return out

    def kind_name(self, kind: str) -> str:
        """A claim's kind as the paper prints it: ``\\newtheorem{lem}{Lemma}`` makes ``lem`` a Lemma."""
        return self.kind_names.get(kind) or kind.capitalize()

    def units_of(self, path: Path) -> list[Unit]:
        """The units (colosseum.link.units.Unit: a chunk's labels, references, claims...) read
        from one file, in reading order."""
        table = self._units_by_path
        if table is None:
            table = {}
            for unit in self.units:
                found = table.get(unit.path)
                if found is None:
                    table[unit.path] = [unit]
                else:
                    found.append(unit)
            self._units_by_path = table
        return table.get(path, [])
    label_owner: dict[str, str | None] = field(default_factory=dict)  # label -> node of its first definition
    # root -> the documents its \externaldocument[prefix]{doc} names (xr): (prefix, the root file of doc)
    external_documents: dict[Path, tuple[tuple[str, Path], ...]] = field(default_factory=dict)


@dataclass(slots=True)
class BuildWork:
    """What the last build did (counted, to show what an edit costs whatever the machine's speed)."""

    files_walked: int = 0  # files whose includes were followed again (0: the last walk was kept)
    chunks_analysed: int = 0  # chunks of text grouped into claims, proofs, sections afresh
    units_linked: int = 0  # chunks read in a new state (the rest replayed as they were)
    units_moved: int = 0  # chunks an edit moved, kept as they were
    nodes_settled: int = 0  # claims and sections whose proof, references, status were looked at again
    files_with_new_findings: int = 0  # files whose list of findings changed
