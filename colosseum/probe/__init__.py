"""Computational probes: a model's Python, run in a sandbox on small cases (issue 18).

``run_python(code, limits, handed_files)`` runs code in bubblewrap under CPU, wall, memory, output
and process limits and says which limit stopped it; ``sandbox_problem()`` says once why bubblewrap
cannot run here; ``probe_trust`` is the trust check every probe asks first."""

from __future__ import annotations

from colosseum.probe.limits import LIMITS, ProbeLimits, probe_limits
from colosseum.probe.runner import ExecutionResult, run_python
from colosseum.probe.sandbox import SandboxUnavailable, sandbox_problem
from colosseum.probe.trust import probe_trust

__all__ = ["LIMITS", "ExecutionResult", "ProbeLimits", "SandboxUnavailable", "probe_limits", "probe_trust",
           "run_python", "sandbox_problem"]
