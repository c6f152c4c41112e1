"""Roots that get their ``\\documentclass`` from a shared preamble: a chapter compiled on its own as
``\\input{preamble}`` (the preamble holds ``\\documentclass``) then ``\\begin{document}``.

LaTeX compiles such a chapter as a document, so it is a root; the preamble itself, read by the
chapters, is a part of their documents (colosseum.project.walk drops a root other roots read).
Read with patterns, not the scanner: discovery looks at every file of the project.
"""

from __future__ import annotations

import re
from pathlib import Path

from colosseum.core.lazy_regex import lazy_regex

_BEGIN_DOCUMENT = lazy_regex(r"^[^%\n]*?\\begin\s*\{document\}", re.MULTILINE)
# what a preamble reads: \input{x}, \include{x}, \input x (TeX's primitive form)
_PREAMBLE_INPUT = lazy_regex(r"^[^%\n]*?\\(?:input|include)(?:\s*\{([^{}\\%]+)\}|[ \t]+([^\s{}%\\]+))",
                             re.MULTILINE)
MAX_PREAMBLE_DEPTH = 8  # a preamble read through a preamble read through ... stops somewhere


def begins_document(text: str) -> re.Match | None:
    """The file's own ``\\begin{document}`` (not one in a comment)."""
    return _BEGIN_DOCUMENT.search(text) if "\\begin" in text and "{document}" in text else None


def preamble_inputs(text: str) -> tuple[str, ...]:
    """The names a file reads before its own ``\\begin{document}`` (every name without one)."""
    begin = begins_document(text)
    head = text[:begin.start()] if begin is not None else text
    if "\\in" not in head:
        return ()
    return tuple((m.group(1) or m.group(2)).strip() for m in _PREAMBLE_INPUT.finditer(head))


def _named(name: str, directory: Path, texts: dict[Path, str]) -> Path | None:
    for candidate in ((directory / name), directory / (name + ".tex")):
        for probe in (candidate, candidate.resolve()):
            if probe in texts:
                return probe
    return None


def preamble_roots(texts: dict[Path, str], class_files: set[Path]) -> list[Path]:
    """The files without a ``\\documentclass`` of their own (``class_files`` are those with one, of a
    class that makes a document) that begin the document after reading, through their inputs,
    a file of ``class_files``."""
    found = []
    for path, text in texts.items():
        if path in class_files or begins_document(text) is None:
            continue
        if _reaches_class(path, text, texts, class_files):
            found.append(path)
    return found


def never_compiled(roots: list[Path], texts: dict[Path, str]) -> set[Path]:
    """The roots that begin no document, in themselves or in what they read (a template copied to
    start a chapter, a preamble): no document of their own, when other roots are. One root is
    kept whatever it is: a project is never left without one."""
    alone = {root for root in roots if not _begins_through(root, texts)}
    return alone if len(alone) < len(roots) else set()


_OTHER_INCLUDES = lazy_regex(r"\\(?:sub)?(?:import|subfile|inputfrom|includefrom|subinputfrom|subincludefrom)\b")


def reads_by_other_includes(text: str) -> bool:
    """Whether the text reads files through \\import and kin (see _begins_through)."""
    return _OTHER_INCLUDES.search(text) is not None


def _begins_through(path: Path, texts: dict[Path, str]) -> bool:
    """Whether the file begins a document, itself or in what it reads (where that cannot be told
    by patterns, \\import and kin, it may: the file is kept a root)."""
    seen = {path}
    frontier = [(texts[path], 0)]
    while frontier:
        current, depth = frontier.pop()
        if begins_document(current) is not None or _OTHER_INCLUDES.search(current):
            return True
        for name in preamble_inputs(current):
            target = _named(name, path.parent, texts)
            if target is not None and target not in seen and depth + 1 < MAX_PREAMBLE_DEPTH:
                seen.add(target)
                frontier.append((texts[target], depth + 1))
    return False


def _reaches_class(path: Path, text: str, texts: dict[Path, str], class_files: set[Path]) -> bool:
    seen = {path}
    frontier = [(text, 0)]
    while frontier:
        current, depth = frontier.pop()
        for name in preamble_inputs(current):
            target = _named(name, path.parent, texts)  # a root's inputs are read from its folder
            if target is None or target in seen:
                continue
            if target in class_files:
                return True
            seen.add(target)
            if depth + 1 < MAX_PREAMBLE_DEPTH:
                frontier.append((texts[target], depth + 1))
    return False
