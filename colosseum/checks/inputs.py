"""Findings about reading the project: files that cannot be read as they are, a broken
colosseum.toml or root, and includes that cannot be followed (colosseum.project.walk)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from colosseum.checks.family import Entry, EveryBuild, code, range_at
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic, Position, Range
from colosseum.project.files import PathProblem
from colosseum.settings.boundary import PATH_OUTSIDE_PROJECT

_START = Range(Position(0, 0), Position(0, 0))


class InputProblems(EveryBuild):
    name = "inputs"
    codes = ("encoding", "binary-file", "file-too-large", "unreadable-file", "config-error", "config-unknown-key",
             "missing-input", "generated-input", "include-cycle", "unreadable-input", "unresolved-input", "path-outside-project")
    depends_on = ("file_roots", "text_of", "config_path", "config_problems", "root_problems", "root_dir",
                  "include_problems")

    def find(self, view: BuildView) -> Iterator[Entry]:
        # a file too large to read is reported where the project's files are listed (it may be a root)
        listed = {(p.path, p.code) for p in view.root_problems if isinstance(p, PathProblem)}
        for path in view.file_roots:
            ft = view.text_of(path)
            if ft is not None and ft.problem is not None and (path, ft.problem[1]) not in listed:
                severity, name, message = ft.problem
                yield Diagnostic(path, _START, severity, code(name), message), None
        for problem in view.config_problems:
            assert view.config_path is not None
            pos = Position(problem.line, 0)
            yield (Diagnostic(view.config_path, Range(pos, pos), problem.severity, code(problem.code), problem.message),
                   None)
        for message in view.root_problems:
            if isinstance(message, PathProblem):  # a link or `% !TEX root` out of the project: where it is
                at = Range(Position(message.line, 0), Position(message.line, 0))
                yield Diagnostic(message.path, at, message.severity, code(message.code), message.message), None
                continue
            target = view.config_path or view.root_dir
            yield Diagnostic(target, _START, "error", code("config-error"), message), None
        yield from _include_findings(view)


def _include_findings(view: BuildView) -> Iterator[Entry]:
    """A finding per include problem, except that a path outside the project is reported once per
    run (contracts, "Trust and boundaries"): at its first include in reading order, saying how many
    other places include it."""
    outside: dict[Path, list] = {}
    for problem in view.include_problems:
        if problem.code == PATH_OUTSIDE_PROJECT and problem.target is not None:
            outside.setdefault(problem.target, []).append(problem)
    for problem in view.include_problems:
        message = problem.message
        if problem.code == PATH_OUTSIDE_PROJECT and problem.target is not None:
            same = outside[problem.target]
            if same[0] is not problem:
                continue
            others = len({(p.file, p.start) for p in same}) - 1
            if others:
                message += f"; also included at {others} other place{'s' if others > 1 else ''}"
        yield (Diagnostic(problem.file, range_at(view, problem.file, problem.start, problem.end),
                          problem.severity, code(problem.code), message), problem.root)
