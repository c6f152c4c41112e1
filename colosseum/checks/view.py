"""What the checks read of a build: a narrow, read-only view, not the whole index.

The index (colosseum.index) makes a ``BuildView`` of each build it judges; the checks never import
the index. Each family of findings (colosseum.checks.registry) says which fields it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from colosseum.core.structure import Claim, Label, Section
from colosseum.graph.dag import DependencyGraph
from colosseum.link.units import RootResult, Unit
from colosseum.project.chunks import Chunk
from colosseum.project.files import FileText, PathProblem
from colosseum.project.walk import IncludeProblem


class ConfigProblem(Protocol):
    """A problem of colosseum.toml (colosseum.settings)."""

    @property
    def line(self) -> int: ...

    @property
    def message(self) -> str: ...


class LinkedReadings(Protocol):
    """The units of a build and how they are filed (colosseum.link.state.LinkState)."""

    @property
    def units(self) -> Sequence[Unit]: ...

    @property
    def by_ref(self) -> Mapping[str, Unit | Set[Unit]]:
        """label name -> the units that refer to it (a lone unit itself: read with link.units.filed)"""
        ...

    @property
    def root_units(self) -> Mapping[Path, list[Unit]]:
        """root -> its units, in its reading order"""
        ...


@dataclass(frozen=True, slots=True)
class BuildView:
    """One build of the index, as the checks read it."""

    root_dir: Path
    roots: Sequence[Path]
    root_problems: Sequence[str | PathProblem]  # why a configured root could not be used; links out
    config_path: Path | None  # colosseum.toml, when there is one
    config_problems: Sequence[ConfigProblem]
    file_roots: Mapping[Path, list[Path]]  # file -> the roots that read it
    root_results: Sequence[RootResult]
    include_problems: Sequence[IncludeProblem]
    file_chunks: Mapping[Path, list[Chunk]]  # the chunks of each file's first reading
    claims: Mapping[str, Claim]
    sections: Mapping[str, Section]
    labels: Mapping[str, list[Label]]  # every definition of each label, in reading order
    label_owner: Mapping[str, str | None]
    graph: DependencyGraph
    links: LinkedReadings
    text_of: Callable[[Path], FileText | None]
    relative: Callable[[Path], str]  # a path as the messages name it
    tex_files: Sequence[Path] = ()  # every .tex file of the project folder (none when one file was given)
    # root -> (prefix, root file) of each document its \externaldocument names (xr, xr-hyper, zref-xr)
    external_documents: Mapping[Path, tuple[tuple[str, Path], ...]] = field(default_factory=dict)
    read_only_paths: Sequence[Path] = ()  # outside the project, readable (the user's config): a shared .bib


class BuildSource(Protocol):
    """Anything that can show its current build to the checks (the index)."""

    def build_view(self) -> BuildView: ...
