"""Completion of what a LaTeX author types besides labels: environment names in \\begin{ (the
theorem environments the paper declares, then the standard ones), project file names in
\\input{, \\include{ and \\subfile{, and citation keys in \\cite{ (the keys the project already
cites and those of its catalog entries; reading .bib files is left to the bibliography checks)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from colosseum.project.files import is_within, list_tex_files
from colosseum_lsp import convert
from colosseum_lsp.context import FeatureContext
from colosseum_lsp.features.catalog_view import project_catalog
from colosseum_lsp.features.completion import MAX_ITEMS, CompletionRequest, bounded_list

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


def _cached(fc: FeatureContext, kind: str, build) -> list[tuple[str, dict]]:
    cache = fc.state(_Cached).by_project
    snap, found = cache.get(fc.project.root_dir, (None, {}))
    if snap is not fc.snapshot:
        found = {}
        cache[fc.project.root_dir] = (fc.snapshot, found)
    if kind not in found:
        found[kind] = [(item["label"].lower(), item) for item in build(fc)]
    return found[kind]


def _environments(fc: FeatureContext) -> list[dict]:
    snap = fc.snapshot
    declared = sorted(snap.kind_names)
    items = [convert.completion_item(env, "environment", f"theorem environment · {snap.kind_name(env)}")
             for env in declared]
    items += [convert.completion_item(env, "environment", "environment")
              for env in STANDARD_ENVIRONMENTS if env not in snap.kind_names]
    return items


def _files(fc: FeatureContext, base: Path) -> list[dict]:
    """The project's .tex files under ``base``, as LaTeX names them from there (no .tex)."""
    root_dir = fc.project.root_dir.resolve()
    items = []
    for path in list_tex_files(fc.project.root_dir):
        resolved = path.resolve()
        if resolved == fc.path or not is_within(resolved, root_dir) or not is_within(resolved, base):
            continue
        name = resolved.relative_to(base).with_suffix("").as_posix()
        items.append(convert.completion_item(name, "file", "file"))
    return items


def _keys_cited_in(text: str) -> tuple[str, ...]:
    if "cite" not in text:
        return ()
    return tuple(key.strip() for m in _CITED.finditer(_COMMENT.sub("", text))
                 for key in m.group(1).split(",") if key.strip())


def _cite_keys(fc: FeatureContext) -> list[dict]:
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
    return [convert.completion_item(key, "citation", detail) for key, detail in sorted(keys.items())]


def latex_items(fc: FeatureContext, text_before: str) -> tuple[str, list[tuple[str, dict]]] | None:
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


def _begin_completed_here(request: CompletionRequest) -> bool:
    """Whether completing \\begin{ here may add the \\end: the line holds nothing after the name
    but perhaps its closing brace (else an existing \\begin is being renamed)."""
    rest = request.line_after
    return rest[len(re.match(r"[A-Za-z@*]*", rest).group(0)):].strip() in ("", "}")


def _with_end(name: str, request: CompletionRequest) -> tuple[str, bool]:
    """What completing environment ``name`` inserts: the name, the brace and a matching \\end{name}
    on a line of its own, with the line's indentation (a snippet puts the cursor inside)."""
    indent = re.match(r"[ \t]*", request.text_before.rsplit("\n", 1)[-1]).group(0)
    if request.client.snippets:  # in a snippet, \ and } are escaped
        return f"{name}\\}}\n{indent}\t$0\n{indent}\\\\end{{{name}\\}}", True
    return f"{name}}}\n{indent}\n{indent}\\end{{{name}}}", False


def completions(fc: FeatureContext, request: CompletionRequest) -> dict | None:
    """As completion.completions, for an environment, a file or a citation key; None when the
    cursor is in none of these (the label completion answers then)."""
    found = latex_items(fc, request.text_before)
    if found is None:
        return None
    wanted = found[0].lower()
    matching = [item for lowered, item in found[1] if wanted in lowered]
    # those that start with what was typed first, each group in its own order
    items = [item for item in matching if item["label"].lower().startswith(wanted)]
    items += [item for item in matching if not item["label"].lower().startswith(wanted)]
    if _BEGIN.search(request.text_before.rsplit("\n", 1)[-1]) and _begin_completed_here(request):
        # the name's closing brace, when the editor typed it already, is replaced too
        edited = {item["label"]: _with_end(item["label"], request) for item in items[:MAX_ITEMS]}
        return bounded_list(items, False, request, edited, closing_brace=True)
    return bounded_list(items, False, request)
