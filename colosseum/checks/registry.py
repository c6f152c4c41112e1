"""Every family of findings the index keeps (colosseum.checks.state judges them in this order).

To add a diagnostic: write its family (a module here, or a function in the family it belongs
to) with its codes and the build-view fields it reads, list it below, test it, and add its code
to the README's table of diagnostic codes.
"""

from __future__ import annotations

from collections.abc import Callable

from colosseum.checks.citations import Citations
from colosseum.checks.claims import LeanMarks, UnusedLabels
from colosseum.checks.cycles import Cycles
from colosseum.checks.drafts import DraftProofs
from colosseum.checks.family import Family
from colosseum.checks.inputs import InputProblems
from colosseum.checks.no_claims import NoClaims
from colosseum.checks.obligations import Obligations
from colosseum.checks.references import References
from colosseum.checks.separate_documents import SeparateDocuments
from colosseum.checks.structure import StructureProblems

FAMILIES: tuple[Callable[[], Family], ...] = (
    InputProblems,  # reading files, colosseum.toml, roots, includes
    SeparateDocuments,
    StructureProblems,  # environments, braces, orphan proofs
    References,  # undefined and duplicate labels, near misses
    Citations,  # undefined citations, duplicate .bib keys
    Cycles,
    Obligations,  # conditional on an open obligation
    UnusedLabels,
    LeanMarks,
    DraftProofs,  # a model's proof waiting for a person's decision
    NoClaims,  # a project with no claim at all, and why
)
