"""What the dependency graph reads of a build: a narrow, read-only view, not the whole index.

The index (colosseum.index) hands the graph a ``GraphInput`` on every build; the graph package
never imports the index. ``DrawnProject`` is what the drawings and the JSON of the graph
(colosseum.graph.export, colosseum.graph.html) read of a project.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from colosseum.core.structure import Claim, Section
from colosseum.link.units import RootResult, Unit

if TYPE_CHECKING:
    from colosseum.graph.dag import DependencyGraph


class LinkedUnits(Protocol):
    """The units of a build and how they are filed (colosseum.link.state.LinkState)."""

    @property
    def units(self) -> Sequence[Unit]: ...

    @property
    def unit_set(self) -> Set[Unit]: ...

    @property
    def by_ref(self) -> Mapping[str, Unit | Set[Unit]]:
        """label name -> the units that refer to it (a lone unit itself: read with link.units.filed)"""
        ...

    @property
    def by_node(self) -> Mapping[str, Unit | Set[Unit]]:
        """node id -> the units that feed its data (a lone unit itself: read with link.units.filed)"""
        ...


@dataclass(frozen=True, slots=True)
class GraphInput:
    """One build, as the graph reads it."""

    claims: Mapping[str, Claim]
    sections: Mapping[str, Section]
    label_owner: Mapping[str, str | None]  # label -> the node of its first definition
    links: LinkedUnits
    formal_labels: frozenset[str]  # claims whose Lean proof was checked: their status is "formal"
    # xr: per root, the documents it names with \externaldocument[prefix]{doc} (prefix, doc.tex),
    # and each root's labels: \ref{prefix+x} uses the claim of label x in doc
    external_documents: Mapping[Path, tuple[tuple[str, Path], ...]] = field(default_factory=dict)
    root_results: Sequence[RootResult] = ()
    # False: the graph is made for one report and never updated (ProjectIndex(for_edits=False)):
    # the reference counts an update starts from are not kept
    for_edits: bool = True


class DrawnProject(Protocol):
    """What a drawing or an export of the graph reads of a project."""

    @property
    def graph(self) -> DependencyGraph: ...

    @property
    def claims(self) -> Mapping[str, Claim]: ...

    @property
    def sections(self) -> Mapping[str, Section]: ...

    def relative(self, path: Path) -> str: ...
