"""Checking the paper's Lean, set up once for the CLI and the editor: the settings with the
command's time limit, the check in a worker thread (leanclient is synchronous) stopped through a
CancelToken, and what the check makes of the claims (formal claims, findings, catalog evidence)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Callable

from colosseum.app.knowledge import catalog_directory
from colosseum.settings.trust import Trust, is_trusted
from colosseum.lean import (
    CancelToken,
    apply_formal,
    claim_results,
    formal_ids,
    lean_diagnostics,
    lean_settings,
    plan_check,
    run_plan,
)

log = logging.getLogger(__name__)
WAIT_SECONDS = 0.2  # how often a terminal's wait wakes up to notice Ctrl-C
CANCEL_GRACE_SECONDS = 30  # how long a cancelled check may take to end (lake serve is killed at once)


def lean_trust(project_dir, *, flag: bool = False, editor_trusted: bool | None = None) -> Trust:
    """Whether the Lean check may run in this project: ``lake serve`` elaborates the project's
    lakefile.lean (code from the project) and may install a toolchain, so it asks for the
    author's trust first (colosseum/settings/trust.py)."""
    return is_trusted(project_dir, flag=flag, editor_trusted=editor_trusted)


def lean_setup(index, time_limit: float | None = None):
    """``[lean]`` with the command's time limit per file; its ``problems`` say what the file got wrong."""
    settings = lean_settings(index.config)
    if time_limit is not None:
        settings.time_limit = time_limit
    return settings


def plan_lean_check(index, settings):
    """Which declarations and inline Lean the check asks about, and where its Lean project is."""
    return plan_check(index, settings)


@dataclass
class LeanOutcome:
    """What one check found: the claims' results and the findings on the paper; ``recorded`` are
    the catalog entries that took its formal evidence."""

    report: object
    results: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)
    recorded: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """A \\leanok whose claim fails, inline Lean with errors, a declaration missing or not elaborating."""
        return any(r.status == "failed" for r in self.results) or any(d.severity == "error" for d in self.diagnostics)

    @property
    def unchecked(self) -> bool:
        return (any(r.status == "unchecked" for r in self.results) or self.report.problem is not None
                or any(u.status not in ("checked", "cached") for u in self.report.units))

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)


def results_and_findings(index, report) -> tuple[list, list]:
    """The claims Lean made formal set in the index, and the findings placed on it."""
    results = claim_results(index, report)
    apply_formal(index, formal_ids(results))
    return results, lean_diagnostics(index, report, results)


def record_evidence(index, settings, results, report) -> list[str]:
    """The passing checks as formal evidence in the catalog (when ``[lean]`` says so); the catalog
    is a record of the check, never a reason to lose its findings."""
    if not settings.record_in_catalog or not any(r.status == "formal" for r in results):
        return []
    from colosseum.lean.evidence import record_formal_evidence

    try:
        return record_formal_evidence(catalog_directory(index.root_dir), results, report)
    except Exception:  # noqa: BLE001
        log.exception("recording Lean evidence in the catalog failed")
        return []


def conclude(index, settings, report, record_in_catalog: bool = True) -> LeanOutcome:
    results, diagnostics = results_and_findings(index, report)
    recorded = record_evidence(index, settings, results, report) if record_in_catalog else []
    return LeanOutcome(report, results, diagnostics, recorded)


def check_in_terminal(check_plan, progress: Callable, use_cache: bool) -> object | None:
    """The check's report, waited for in the main thread so that Ctrl-C cancels it (the token kills
    lake serve); None when it was cancelled so (what was finished is cached)."""
    token, box = CancelToken(), {}

    def work() -> None:
        try:
            box["report"] = run_plan(check_plan, token=token, progress=progress, use_cache=use_cache)
        except BaseException as exc:  # handed to the main thread
            box["error"] = exc

    worker = threading.Thread(target=work, name="colosseum-lean", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(WAIT_SECONDS)
    except KeyboardInterrupt:
        token.cancel()  # kills lake serve: the worker returns at once
        worker.join(CANCEL_GRACE_SECONDS)
        return None
    if "error" in box:
        raise box["error"]
    return box["report"]
