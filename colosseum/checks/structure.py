"""Findings about the structure of the text: environments never closed or closed twice, braces
that do not balance (the scanner's errors), and proofs that prove nothing (colosseum.link.linker)."""

from __future__ import annotations

from collections.abc import Iterator

from colosseum.checks.family import Entry, EveryBuild, code, range_at
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic


class StructureProblems(EveryBuild):
    name = "structure"
    codes = ("unterminated-environment", "unmatched-end", "orphan-proof", "unbalanced-brace")
    depends_on = ("root_results", "file_chunks", "text_of")

    def find(self, view: BuildView) -> Iterator[Entry]:
        for result in view.root_results:
            for problem in result.problems:
                where = (problem.anchor.range(problem.start, problem.end) if problem.anchor is not None
                         else range_at(view, problem.file, problem.start, problem.end))
                severity = "hint" if problem.code == "orphan-proof" else "error"
                yield Diagnostic(problem.file, where, severity, code(problem.code), problem.message), result.root
        for path, chunks in view.file_chunks.items():
            for chunk in chunks:
                for err in chunk.analysis.errors:
                    if err.name == "unterminated-environment" and "not closed before" in err.value:
                        continue  # reported per root by the linker
                    yield (Diagnostic(path, chunk.anchor.range(err.start, err.end), "error", code(err.name), err.value),
                           None)
