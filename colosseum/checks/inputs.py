"""Findings about reading the project: files that cannot be read as they are, a broken
colosseum.toml or root, and includes that cannot be followed (colosseum.project.walk)."""

from __future__ import annotations

from collections.abc import Iterator

from colosseum.checks.family import Entry, EveryBuild, code, range_at
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic, Position, Range
from colosseum.project.files import PathProblem

_START = Range(Position(0, 0), Position(0, 0))


class InputProblems(EveryBuild):
    name = "inputs"
    codes = ("encoding", "binary-file", "file-too-large", "unreadable-file", "config-error", "config-unknown-key",
             "missing-input", "include-cycle", "unreadable-input", "unresolved-input", "path-outside-project")
    depends_on = ("file_roots", "text_of", "config_path", "config_problems", "root_problems", "root_dir",
                  "include_problems")

    def find(self, view: BuildView) -> Iterator[Entry]:
        for path in view.file_roots:
            ft = view.text_of(path)
            if ft is not None and ft.problem is not None:
                severity, name, message = ft.problem
                yield Diagnostic(path, _START, severity, code(name), message), None
        for problem in view.config_problems:
            assert view.config_path is not None
            pos = Position(problem.line, 0)
            yield (Diagnostic(view.config_path, Range(pos, pos), problem.severity, code(problem.code), problem.message),
                   None)
        for message in view.root_problems:
            if isinstance(message, PathProblem):  # a symbolic link out of the project: at the link
                yield Diagnostic(message.path, _START, message.severity, code(message.code), message.message), None
                continue
            target = view.config_path or view.root_dir
            yield Diagnostic(target, _START, "error", code("config-error"), message), None
        for problem in view.include_problems:
            yield (Diagnostic(problem.file, range_at(view, problem.file, problem.start, problem.end),
                              problem.severity, code(problem.code), problem.message), problem.root)
