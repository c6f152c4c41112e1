"""The Lean bridge: claims tied to Lean declarations with ``\\lean{...}`` are checked by Lean 4
itself (through leanclient and ``lake serve``): the declaration exists, elaborates, uses no
``sorry`` and no axiom beyond ``propext``, ``Classical.choice`` and ``Quot.sound``. Inline Lean in
the paper is checked too. Passing claims become ``formal`` in the DAG and evidence of kind
``formal`` in the catalog."""

from colosseum.lean.checker import CheckPlan, Progress, check_lean, plan_check, requested_declarations, run_plan
from colosseum.lean.findings import (
    SOURCE,
    ClaimResult,
    apply_cached_results,
    apply_formal,
    claim_results,
    formal_ids,
    lean_diagnostics,
    leanok_insertions,
)
from colosseum.lean.project import LeanProject, find_lean_project, lake_status
from colosseum.lean.results import DeclResult, LeanReport
from colosseum.lean.session import CancelToken, LeanCheckCancelled
from colosseum.lean.settings import LeanSettings, lean_settings

__all__ = [
    "SOURCE", "CancelToken", "apply_cached_results", "CheckPlan", "ClaimResult", "DeclResult", "LeanCheckCancelled", "LeanProject", "LeanReport",
    "LeanSettings", "Progress", "apply_formal", "check_lean", "claim_results", "find_lean_project", "formal_ids",
    "lake_status", "lean_diagnostics", "lean_settings", "leanok_insertions", "plan_check", "requested_declarations", "run_plan",
]
