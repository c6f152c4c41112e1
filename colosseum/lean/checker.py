"""The Lean check of a paper: for every declaration its claims name with ``\\lean{...}``, Lean is
asked (``#print axioms``, in a scratch file that imports the module the declaration is written in)
whether it exists, and on which axioms its proof rests; when a module does not build, its own
errors say which declarations fail. The paper's inline Lean is checked too.

One file at a time, each within the time limit, each answer cached; the first file that is not in
the cache starts ``lake serve``. Without ``lake``, or when the server does not start, that is said
once (``report.problem``), the declarations are left unchecked, and the check carries on with
what the cache knows."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from colosseum.lean.cache import LeanCache
from colosseum.lean.inline import InlineUnit, inline_units
from colosseum.lean.outline import normalize_name
from colosseum.lean.project import LeanProject, LeanProjectError, find_lean_project, lake_status
from colosseum.lean.results import (
    DeclResult,
    InlineResult,
    LeanMessage,
    LeanReport,
    UnitRecord,
    build_errors,
    first_line,
    header_failure,
    read_axiom_answers,
)
from colosseum.lean.session import CancelToken, LeanCheckCancelled, LeanServerFailed, LeanSession
from colosseum.lean.settings import LeanSettings, lean_settings

_LEAN_NAME = re.compile(r"(?:«[^»\n]*»|[^\s,{}()\[\]:;\"«»])+")  # «...» may hold spaces
LAKEFILE_FAILURE = ("Failed to configure the Lake workspace", "package configuration has errors")
NO_PROJECT = ("no Lean project found (looked for lean/ beside the root file, then for the nearest folder above "
              "it with lakefile.lean or lakefile.toml and lean-toolchain); set `project` in the [lean] table "
              "of colosseum.toml")


@dataclass(slots=True)
class _Answer:
    """Lean's answer about one file: ``status`` checked, cached, timed-out, crashed or unchecked."""

    status: str
    diagnostics: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    message: str = ""
    key: str = ""
    unit: str = ""
    fatal: bool = False


@dataclass(frozen=True, slots=True)
class Progress:
    """Told before (``status`` checking) and after each file Lean is asked about."""

    done: int
    total: int
    name: str
    status: str


def requested_declarations(index) -> list[str]:
    """Every declaration named by a claim's ``\\lean{...}``, once, in reading order."""
    names: dict[str, None] = {}
    for claim in sorted(index.claims.values(), key=lambda c: c.order):
        for name in claim.lean_decls:
            if name.strip():
                names.setdefault(name.strip(), None)
    return list(names)


@dataclass(slots=True)
class CheckPlan:
    """What to check, read from the index in one go (the texts may change while Lean runs)."""

    project_dir: Path
    settings: LeanSettings
    names: list[str] = field(default_factory=list)
    units: list[InlineUnit] = field(default_factory=list)
    lean_root: Path | None = None
    problem: str | None = None


def plan_check(index, settings: LeanSettings | None = None, inline: bool = True) -> CheckPlan:
    """``inline=False``: the declarations only (the paper's inline Lean is not looked for)."""
    settings = settings or lean_settings(index.config)
    plan = CheckPlan(index.root_dir, settings, requested_declarations(index),
                     inline_units(index, settings.inline_imports) if inline else [])
    try:
        plan.lean_root = find_lean_project(index.root_dir, list(index.roots), settings.project)
    except LeanProjectError as exc:
        plan.problem = str(exc)
    if plan.lean_root is None and (plan.names or plan.units):
        plan.problem = plan.problem or NO_PROJECT
    return plan


def check_lean(index, settings: LeanSettings | None = None, **options) -> LeanReport:
    """Check the paper's Lean (see ``run_plan`` for the options)."""
    return run_plan(plan_check(index, settings), **options)


def run_plan(plan: CheckPlan, *, token: CancelToken | None = None, progress: Callable[[Progress], None] | None = None,
             use_cache: bool = True, cache_only: bool = False) -> LeanReport:
    """Run a check. ``cache_only``: answer from the cache alone, never run Lean (what another
    command uses to show the last results). Cancelling ``token`` stops the check within moments:
    the report then says ``cancelled`` and holds what was finished. Never reads the index."""
    token = token or CancelToken()
    report = LeanReport(problem=plan.problem)
    started = time.monotonic()
    if plan.lean_root is None:
        why = plan.problem or NO_PROJECT
        report.decls = {n: DeclResult(n, "unchecked", message=f"not checked: {why}") for n in plan.names}
        report.inline = [InlineResult(u.root, u.text, "unchecked", message=why) for u in plan.units]
        return report
    project = LeanProject.load(plan.lean_root)
    report.lean_project, report.toolchain = project.root, project.toolchain
    runner = _Runner(project, plan.settings, token, progress, LeanCache(plan.project_dir, use_cache), report,
                     cache_only)
    try:
        runner.run(plan.names, plan.units)
    except LeanCheckCancelled:
        report.cancelled = True
    finally:
        runner.close()
    for name in plan.names:
        report.decls.setdefault(name, DeclResult(name, "unchecked", message="not checked: the check was cancelled"
                                                 if report.cancelled else "not checked"))
    report.seconds = time.monotonic() - started
    return report


class _Runner:
    def __init__(self, project: LeanProject, settings: LeanSettings, token: CancelToken, progress, cache: LeanCache,
                 report: LeanReport, cache_only: bool):
        self.project, self.settings, self.token, self.cache, self.report = project, settings, token, cache, report
        self.progress = progress or (lambda event: None)
        self.session: LeanSession | None = None
        self.unavailable: str | None = None
        if cache_only:
            self.unavailable = "not checked yet (results are read from the cache only)"
        else:
            lake = lake_status()
            if not lake.available:
                self.unavailable = report.problem = lake.problem
        self.done = 0
        self.total = 0
        self.avoid: set[str] = set()  # modules that did not build, time out or crash: not imported again

    def close(self) -> None:
        if self.session is not None:
            self.session.close()

    # ---- plan --------------------------------------------------------------------------------------
    def run(self, names: list[str], units: list[InlineUnit]) -> None:
        by_module: dict[str, list[str]] = {}
        elsewhere: list[str] = []
        for name in names:
            if not _LEAN_NAME.fullmatch(name):
                self.report.decls[name] = DeclResult(name, "missing", message=f"`{name}` is not a Lean name")
                continue
            found = self.project.locate(name)
            if found is None:
                private = self.project.locate_private(name)
                if private is not None:
                    where = f"{self.project.relative(private[0].path)}:{private[1] + 1}"
                    self._set(DeclResult(name, "unchecked", message=f"`{name}` not checked: it is private ({where}), "
                                                                    f"and a private declaration cannot be checked "
                                                                    f"from another file"))
                    continue
                elsewhere.append(name)
            elif not found[0].importable:
                relative = self.project.relative(found[0].path)
                self._set(DeclResult(name, "unchecked", message=(
                    f"`{name}` not checked: it is declared in {relative}, which no lean_lib of the lakefile "
                    f"includes, so Lean cannot import it (add the file to a library's roots or globs)")))
            else:
                by_module.setdefault(found[0].module, []).append(name)
        self.total = len(by_module) + (1 if elsewhere else 0) + len(units)
        for module in sorted(by_module):
            for name in self._declarations(module, by_module[module]):
                if not elsewhere:
                    self.total += 1  # one more file: the declarations asked about with every module
                if name not in elsewhere:
                    elsewhere.append(name)
        if elsewhere:
            self._declarations(None, elsewhere)
        for unit in units:
            self._inline(unit)

    # ---- asking Lean -------------------------------------------------------------------------------
    def _ask(self, name: str, kind: str, key: str, text: str | None, path=None) -> _Answer:
        """What Lean says about one file, from the cache or from Lean. Nothing is cached here:
        the caller keeps (``_keep``) only an answer that is complete and about the project."""
        if self.token.cancelled:
            raise LeanCheckCancelled()
        cached = self.cache.get(key)
        if cached is not None:
            return self._record(name, kind, _Answer("cached", cached, key=key))
        if self.unavailable:
            return self._record(name, kind, _Answer("unchecked", message=self.unavailable))
        self.progress(Progress(self.done, self.total, name, "checking"))
        if self.session is None:
            self.session = LeanSession(self.project, self.settings.time_limit, self.token)
        if path is None:
            path = self.session.write_scratch(f"Check_{key[:16]}", text)
        try:
            outcome = self.session.check(path, name)
        except LeanServerFailed as exc:
            self.unavailable = str(exc)
            self.report.problem = self.report.problem or str(exc)
            return self._record(name, kind, _Answer("unchecked", message=str(exc)))
        if outcome.status == "done":
            return self._record(name, kind, _Answer("checked", outcome.diagnostics, outcome.seconds, "", key, name,
                                                    outcome.fatal))
        return self._record(name, kind, _Answer(outcome.status, seconds=outcome.seconds, message=outcome.message))

    def _record(self, name: str, kind: str, answer: _Answer) -> _Answer:
        self.report.units.append(UnitRecord(name, kind, answer.status, answer.seconds, answer.message))
        self.done += 1
        self.progress(Progress(self.done, self.total, name, answer.status))
        return answer

    def _keep(self, answer: _Answer) -> None:
        """Cache a fresh answer. Only complete answers about the project itself are kept: never a
        fatal one, an import that did not build, or an answer that leaves names out (those say
        something about this machine's build, which may change without any file changing)."""
        if answer.status == "checked" and not answer.fatal:
            self.cache.put(answer.key, answer.unit, self.project.toolchain, answer.diagnostics)

    def _lakefile_broken(self, failure: str) -> bool:
        """Lake could not read the lakefile: `lake serve` fell back to plain `lean --server` and
        every file fails the same way. Said once; nothing more is asked."""
        if not any(sign in failure for sign in LAKEFILE_FAILURE):
            return False
        problem = (f"the lakefile of {self.project.root} has errors, so `lake serve` fell back to plain "
                   f"`lean --server` and no file of the Lean project can be checked ({build_errors(failure)}). "
                   f"Run `lake build` there to see the errors, fix the lakefile, and check again.")
        self.unavailable = self.report.problem = problem
        return True

    # ---- declarations ------------------------------------------------------------------------------
    def _declarations(self, module: str | None, names: list[str]) -> list[str]:
        """Ask about ``names`` in a scratch file importing ``module`` (None: every module of the
        project's libraries, and Mathlib when it is a dependency). Returns the names Lean did not
        find there."""
        left_out: list[str] = []
        if module is not None:
            imports = [module]
            label = self.project.relative(self.project.sources[module].path)
        else:
            imports, left_out = [], []
            for m in self.project.importable:
                (left_out if self.avoid.intersection(self.project.imports_closure([m])) else imports).append(m)
            if self.project.has_mathlib and "Mathlib" not in self.project.sources:
                imports.append("Mathlib")
            label = f"declarations outside the project's files ({len(names)})"
        header = [f"import {m}" for m in imports]
        lines = header + ["-- Colosseum: the axioms of the declarations the paper names"]
        answers_at = {len(lines) + i: n for i, n in enumerate(names)}
        text = "\n".join(lines + [f"#print axioms {normalize_name(n)}" for n in names]) + "\n"
        key = "decls-" + self.project.fingerprint(text, [m for m in imports if m in self.project.sources])
        answer = self._ask(label, "declarations", key, text)
        not_here: list[str] = []
        if answer.status not in ("checked", "cached"):
            self.avoid.update([module] if module else [])
            for n in names:
                self._set(DeclResult(n, "unchecked", message=f"`{n}` not checked: {answer.message}"))
            return not_here
        failure = header_failure(answer.diagnostics, len(header))
        if failure is not None:
            self.avoid.update([module] if module else [])
            if self._lakefile_broken(failure):
                for n in names:
                    self._set(DeclResult(n, "unchecked", message=f"`{n}` not checked: {self.report.problem}"))
                return not_here
            self.report.problem = self.report.problem or (
                f"the Lean project does not build ({', '.join(imports) if module else 'its modules'}): "
                f"{build_errors(failure)}. The declarations that need it are left unchecked; run `lake build` "
                f"in {self.project.root} to see every error.")
            if module is not None:
                self._source_errors(module, names, failure)
            else:
                for n in names:
                    self._set(DeclResult(n, "unchecked", message=f"`{n}` not checked: the Lean project does not "
                                                                 f"build ({build_errors(failure)})"))
            return not_here
        answers = read_axiom_answers(answer.diagnostics, answers_at, self.project.root / "scratch.lean")
        if all(n in answers for n in names):
            self._keep(answer)
        for n in names:
            result = answers.get(n) or DeclResult(n, "unchecked", message=f"Lean gave no answer about `{n}`")
            if result.status == "missing" and module is not None:
                not_here.append(n)  # the outline guessed the file wrong: ask with every module
                continue
            if result.status == "missing" and left_out:
                # it may be declared in a module left out because it does not build: Lean cannot tell
                result = DeclResult(n, "unchecked", message=(
                    f"`{n}` not checked: Lean does not know it without {', '.join(left_out)}, which "
                    f"{'does' if len(left_out) == 1 else 'do'} not build (or could not be checked)"))
            self._set(result)
        return not_here

    def _source_errors(self, module: str, names: list[str], failure: str) -> None:
        """``module`` does not build: its own errors say which declarations fail."""
        source = self.project.sources[module]
        relative = self.project.relative(source.path)
        key = "source-" + self.project.fingerprint(source.text, [module])
        self.total += 1
        answer = self._ask(f"{relative} (its own errors)", "source", key, None, source.path)
        if answer.status not in ("checked", "cached"):
            for n in names:
                self._set(DeclResult(n, "unchecked", message=f"`{n}` not checked: {relative} does not build "
                                                             f"({build_errors(failure)}); {answer.message}"))
            return
        errors = [LeanMessage.from_lsp(source.path, d) for d in answer.diagnostics if d.get("severity", 1) == 1]
        own_header = [e for e in errors if e.line < max(1, source.outline.header_lines)]
        if not own_header:
            self._keep(answer)  # the file's own errors, not a failure of what it imports
        for n in names:
            span = source.outline.declarations.get(normalize_name(n))
            inside = [e for e in errors if span and span[0] <= e.line <= span[1]]
            if inside and not own_header:
                first = inside[0]
                self._set(DeclResult(n, "error", message=f"`{n}` does not elaborate: {first_line(first.message)} "
                                                         f"({relative}:{first.line + 1})", errors=inside))
                continue
            where = own_header or errors
            why = (f"{relative}:{where[0].line + 1}: {first_line(where[0].message)}" if where
                   else build_errors(failure))
            self._set(DeclResult(n, "unchecked", message=f"`{n}` not checked: {relative} does not build ({why})"))

    def _set(self, result: DeclResult) -> None:
        found = self.project.locate(result.name) or self.project.locate_private(result.name)
        if found is not None:
            result.source, result.line = found[0].path, found[1]
        self.report.decls[result.name] = result

    # ---- inline Lean -------------------------------------------------------------------------------
    def _inline(self, unit: InlineUnit) -> None:
        local = [m for m in unit.imports if m in self.project.sources]
        key = "inline-" + self.project.fingerprint(unit.text, local)
        answer = self._ask(unit.name, "inline", key, unit.text)
        failure = header_failure(answer.diagnostics, unit.header_lines) if answer.status == "checked" else None
        if failure is not None and self._lakefile_broken(failure):
            self.report.inline.append(InlineResult(unit.root, unit.text, "unchecked", [], self.report.problem))
            return
        if failure is None:
            self._keep(answer)  # imports that do not build are this machine's state: asked again next time
        self.report.inline.append(InlineResult(unit.root, unit.text, answer.status, answer.diagnostics,
                                               answer.message))

