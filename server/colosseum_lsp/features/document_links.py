"""Document links: the file named by each \\input, \\include and \\subfile of a document opens on a
click. Only a file that exists inside the project is linked (resolved as LaTeX would, from the
root that reads the document: colosseum.project.files.resolve_include)."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types

from colosseum.core.structure import Range
from colosseum.project.files import is_within, resolve_include
from colosseum_lsp import convert
from colosseum_lsp.context import FeatureContext

_INCLUDE = re.compile(r"\\(input|include|subfile|subfileinclude)\s*\{([^{}\\]*)\}")
_COMMENT = re.compile(r"(?<!\\)%.*")


def include_target(command: str, argument: str, path: Path, root_file: Path, project_dir: Path) -> Path | None:
    """The existing project file an include names, or None (missing, or outside the project)."""
    for candidate in resolve_include(command, argument, None, path, root_file, None):
        resolved = candidate.resolve()
        if resolved.is_file():
            return resolved if is_within(resolved, project_dir.resolve()) else None
    return None


def document_links(fc: FeatureContext) -> list[types.DocumentLink]:
    ft = fc.project.index.text_of(fc.path)
    if ft is None:
        return []
    roots = fc.snapshot.file_roots.get(fc.path) or [fc.path]
    links = []
    for number, line_start in enumerate(ft.lines.line_starts):
        code = _COMMENT.sub("", ft.lines.line_text(number))
        for m in _INCLUDE.finditer(code):
            target = include_target(m.group(1), m.group(2), fc.path, roots[0], fc.project.root_dir)
            if target is None:
                continue
            rng = Range(ft.lines.position(line_start + m.start(2)), ft.lines.position(line_start + m.end(2)))
            links.append(convert.document_link(rng, target))
    return links
