"""Files a LaTeX run writes and a later line reads back: ``\\input{\\jobname.out}``, the table of
contents, the bibliography (``.bbl``), answer and hint files an exercise package writes. Before
the first build they do not exist; that is no error of the paper (colosseum.project.walk says
so as a hint, ``colosseum/generated-input``, and goes on). A Lean blueprint's files under
``.lake/build/`` (``\\input{../../.lake/build/blueprint/library/X}``) are the same: Lake writes them
(``lake build :blueprint``), and before that build they are not there."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from colosseum.core.lazy_regex import lazy_regex

# what LaTeX, BibTeX/biber, makeindex, glossaries, beamer and hyperref write next to the document
GENERATED_EXTENSIONS = frozenset((
    ".aux", ".out", ".toc", ".bbl", ".lof", ".lot", ".loa", ".ind", ".idx", ".gls", ".glo", ".acr", ".nav",
    ".snm", ".vrb", ".brf", ".bcf", ".thm", ".sol", ".ans", ".hnt", ".soln", ".run.xml",
))
# what a LaTeX run writes beside its logs: never a source to index
BUILD_OUTPUT_EXTENSIONS = GENERATED_EXTENSIONS | frozenset((
    ".log", ".blg", ".ilg", ".glg", ".pdf", ".dvi", ".xdv", ".ps", ".fls", ".fdb_latexmk", ".synctex", ".synctex.gz",
))
# the names exercise packages (answers, exsheets, probsoln, xsim, a \newwrite of the author's) give
# the files of answers, solutions and hints they write
_ANSWER_NAME = lazy_regex(r"(?:^|[^a-z])(answers?|ans|solutions?|sols?|hints?)(?:$|[^a-z])", re.IGNORECASE)
_WRITER = (r"\\(?:immediate\s*)?\\openout\s*\\?[A-Za-z@]+\s*=?\s*\{?\s*NAME(?:\.tex)?\s*\}?"
           r"|\\Opensolutionfile\s*\{[^}]*\}\s*\[\s*NAME\s*\]")


def build_output_kind(path: PurePosixPath) -> str | None:
    """The extension of a file a LaTeX run writes (``.log``, ``.aux``, ``.pdf``...), or None."""
    suffixes = "".join(path.suffixes[-2:]).lower()
    for suffix in (suffixes, path.suffix.lower()):
        if suffix in BUILD_OUTPUT_EXTENSIONS:
            return suffix
    return None


def generated_by_the_build(name: str, texts: list[str]) -> str | None:
    """Why the file ``name`` (as an include names it; it does not exist) is probably written by the
    build, or None: its extension, a ``\\openout``/``\\Opensolutionfile`` of it in ``texts`` (the
    files read so far), or the name of an answer or hint file."""
    path = PurePosixPath(name)
    if _under_lake_build(path):
        return "a Lake build writes it, under .lake/build/"
    if "".join(path.suffixes[-2:]) in GENERATED_EXTENSIONS or path.suffix in GENERATED_EXTENSIONS:
        return f"a {path.suffix} file is written by the build"
    stem = name[:-4] if name.endswith(".tex") else name
    writer = re.compile(_WRITER.replace("NAME", re.escape(stem)))
    if any(writer.search(text) for text in texts if "open" in text or "Open" in text):
        return "the document writes it (\\openout, \\Opensolutionfile) before reading it"
    if _ANSWER_NAME.search(path.name):
        return "an answer, solution or hint file, written by the build"
    return None


def _under_lake_build(path: PurePosixPath) -> bool:
    """Whether ``path`` runs through ``.lake/build/``, the folder a Lake build writes."""
    parts = path.parts
    return any(parts[i] == ".lake" and parts[i + 1] == "build" for i in range(len(parts) - 1))
