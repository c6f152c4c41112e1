"""Completion of what a LaTeX author types besides labels: environment names in \\begin{ (the
theorem environments the paper declares, then the standard ones), project file names in
\\input{, \\include{ and \\subfile{, and citation keys in \\cite{ (the keys the project already
cites and those of its catalog entries; reading .bib files is left to the bibliography checks)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types

from colosseum.project.files import is_within, list_tex_files
from colosseum_lsp import convert
from colosseum_lsp.context import FeatureContext
from colosseum_lsp.features.catalog_view import project_catalog
from colosseum_lsp.features.completion import bounded_list

_BEGIN = re.compile(r"\\begin\s*\{([A-Za-z@*]*)$")
_FILE = re.compile(r"\\(input|include|subfile|subfileinclude)\s*\{([^{}\\\s]*)$")
_CITE = re.compile(r"\\[A-Za-z]*cite[A-Za-z]*\*?(?:\[[^\]]*\])*\{([^{}\\]*)$")
_CITED = re.compile(r"\\[A-Za-z]*cite[A-Za-z]*\*?(?:\[[^\]]*\])*\{([^{}\\]*)\}")
_COMMENT = re.compile(r"(?<!\\)%[^\n]*")

STANDARD_ENVIRONMENTS = (
    "proof", "equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
    "itemize", "enumerate", "description", "figure", "table", "tabular", "center", "abstract", "quote",
    "cases", "matrix", "pmatrix", "bmatrix", "array", "verbatim", "minipage", "document",
)


@dataclass
class _Cached:
    """Per project: the candidates built from one index snapshot (by kind)."""

    by_project: dict[Path, tuple[object, dict]] = field(default_factory=dict)
    # per file: the keys it cites, with the text they were read from (an edit rereads one file)
    cited: dict[Path, tuple[str, tuple[str, ...]]] = field(default_factory=dict)


def _cached(fc: FeatureContext, kind: str, build) -> list[tuple[str, types.CompletionItem]]:
    cache = fc.state(_Cached).by_project
    snap, found = cache.get(fc.project.root_dir, (None, {}))
    if snap is not fc.snapshot:
        found = {}
        cache[fc.project.root_dir] = (fc.snapshot, found)
    if kind not in found:
        found[kind] = [(item.label.lower(), item) for item in build(fc)]
    return found[kind]


def _environments(fc: FeatureContext) -> list[types.CompletionItem]:
    snap = fc.snapshot
    declared = sorted(snap.kind_names)
    items = [convert.completion_item(env, "environment", f"theorem environment · {snap.kind_name(env)}", "", "0" + env)
             for env in declared]
    items += [convert.completion_item(env, "environment", "environment", "", "1" + env)
              for env in STANDARD_ENVIRONMENTS if env not in snap.kind_names]
    return items


def _files(fc: FeatureContext, base: Path) -> list[types.CompletionItem]:
    """The project's .tex files under ``base``, as LaTeX names them from there (no .tex)."""
    root_dir = fc.project.root_dir.resolve()
    items = []
    for path in list_tex_files(fc.project.root_dir):
        resolved = path.resolve()
        if resolved == fc.path or not is_within(resolved, root_dir) or not is_within(resolved, base):
            continue
        name = resolved.relative_to(base).with_suffix("").as_posix()
        items.append(convert.completion_item(name, "file", "file", "", name))
    return items


def _keys_cited_in(text: str) -> tuple[str, ...]:
    if "cite" not in text:
        return ()
    return tuple(key.strip() for m in _CITED.finditer(_COMMENT.sub("", text))
                 for key in m.group(1).split(",") if key.strip())


def _cite_keys(fc: FeatureContext) -> list[types.CompletionItem]:
    index = fc.project.index
    keys: dict[str, str] = {}
    for entry in sorted(project_catalog(fc.project).entries.values(), key=lambda e: e.id):
        key = (entry.data.get("source") or {}).get("key")
        if key:
            keys.setdefault(str(key), f"catalog · {entry.title}")
    cited = fc.state(_Cached).cited
    for path in index.files():
        ft = index.text_of(path)
        if ft is None:
            continue
        found = cited.get(path)
        if found is None or found[0] is not ft.text:
            found = cited[path] = (ft.text, _keys_cited_in(ft.text))
        for key in found[1]:
            keys.setdefault(key, "cited in the project")
    return [convert.completion_item(key, "citation", detail, "", key) for key, detail in sorted(keys.items())]


def latex_items(fc: FeatureContext, text_before: str) -> tuple[str, list[tuple[str, types.CompletionItem]]] | None:
    """(the partial name typed, the candidates) when the cursor is in \\begin{, an include or a
    \\cite; None elsewhere (the label completion then looks)."""
    current = text_before.rsplit("\n", 1)[-1]  # these arguments are written on one line
    m = _BEGIN.search(current)
    if m:
        return m.group(1), _cached(fc, "environment", _environments)
    m = _FILE.search(current)
    if m:
        if m.group(1).startswith("subfile"):
            base = fc.path.parent
        else:
            roots = fc.snapshot.file_roots.get(fc.path) or [fc.path]
            base = roots[0].parent
        base = base.resolve()
        return m.group(2), _cached(fc, f"file:{base}", lambda fc: _files(fc, base))
    m = _CITE.search(current)
    if m:
        return m.group(1).split(",")[-1].strip(), _cached(fc, "citation", _cite_keys)
    return None


def completions(fc: FeatureContext, text_before: str, line_after: str = "", position: tuple[int, int] | None = None,
                insert_replace: bool = False) -> types.CompletionList | None:
    """As completion.completions, for an environment, a file or a citation key; None when the
    cursor is in none of these (the label completion answers then)."""
    found = latex_items(fc, text_before)
    if found is None:
        return None
    wanted = found[0].lower()
    items = [item for lowered, item in found[1] if wanted in lowered]
    return bounded_list(items, text_before, line_after, position, insert_replace)
