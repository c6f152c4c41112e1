"""The families of findings (colosseum.checks.registry): each declares its codes and the fields of
the build view it reads, and keeps to them."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from colosseum.checks.family import Edit, Findings
from colosseum.checks.findings import compute_diagnostics
from colosseum.checks.registry import FAMILIES
from colosseum.checks.view import BuildView
from colosseum.index import ProjectIndex

README = Path(__file__).resolve().parent.parent / "README.md"
FIELDS = {f.name for f in dataclasses.fields(BuildView)}

# a project with something for every family to find, in two documents and an include
FILES = {
    "colosseum.toml": "[index]\nroots = [\"main.tex\", \"other.tex\"]\n",
    "main.tex": (
        "\\documentclass{article}\n\\usepackage{amsthm}\n\\newtheorem{lemma}{Lemma}\n\\begin{document}\n"
        "\\section{One}\\label{sec:one}\n"
        "\\begin{lemma}\\label{lem:a}A \\lean{A.a}\\end{lemma}\n"
        "\\begin{proof}By \\cref{lem:b}.\\end{proof}\n"
        "\\begin{lemma}\\label{lem:b}B\\obligation\\end{lemma}\n"
        "\\begin{proof}By \\cref{lem:a}.\\end{proof}\n"
        "\\begin{lemma}\\label{lem:o}\\obligation O\\end{lemma}\n"
        "\\begin{lemma}\\label{lem:c}C\\end{lemma}\n\\begin{proof}By \\cref{lem:o}.\\end{proof}\n"
        "\\begin{lemma}\\label{lem:unused,x}D\\end{lemma}\n"
        "\\begin{proof}An orphan.\\end{proof}\\begin{proof}Another.\\end{proof}\n"
        "See \\cref{lem:aa} and \\cref{lem:c}.\\label{lem:c}\n"
        "\\input{missing}\n\\input{part}\n\\end{itemize}\n"
        "\\end{document}\n"
    ),
    "part.tex": "A brace { never closed.\n\\begin{lemma}\\label{lem:p}P\\end{lemma}\n\\label{lem:p}\n",
    "other.tex": "\\documentclass{article}\n\\begin{document}\n\\label{lem:a}\\end{document}\n",
}


class RecordingView:
    """A build view that notes which fields are read."""

    def __init__(self, view: BuildView):
        self._view = view
        self.read: set[str] = set()

    def __getattr__(self, name: str):
        self.read.add(name)
        return getattr(self._view, name)


def test_each_family_declares_its_codes_and_what_it_reads():
    names, codes = set(), []
    for make in FAMILIES:
        family = make()
        assert family.name not in names
        names.add(family.name)
        assert family.codes and all(re.fullmatch(r"[a-z-]+", c) for c in family.codes)
        codes.extend(family.codes)
        assert set(family.depends_on) <= FIELDS, family.name
    assert len(codes) == len(set(codes)), "a code belongs to one family"


def test_every_code_is_in_the_readme_table():
    table = README.read_text(encoding="utf-8").split("### Diagnostic codes", 1)[1].split("\n\n", 2)[1]
    documented = set(re.findall(r"`colosseum/([a-z-]+)`", table))
    missing = {c for make in FAMILIES for c in make().codes} - documented
    assert not missing, f"codes missing from the README's table: {sorted(missing)}"


def test_the_catalogs_codes_are_in_the_readme_table_with_their_severity():
    from colosseum.catalog.checks import CATALOG_CODES, COUNTEREXAMPLE_SEVERITY

    table = README.read_text(encoding="utf-8").split("### Diagnostic codes", 1)[1].split("\n\n", 2)[1]
    missing = {c for c in CATALOG_CODES} - set(re.findall(r"`colosseum/([a-z-]+)`", table))
    assert not missing, f"catalog codes missing from the README's table: {sorted(missing)}"
    row = next(line for line in table.splitlines() if "`colosseum/counterexample-found`" in line)
    assert row.split("|")[2].strip() == COUNTEREXAMPLE_SEVERITY


def _project(make_project, tmp_path) -> ProjectIndex:
    return ProjectIndex.open(make_project(tmp_path, FILES))


def test_families_read_only_what_they_declare_and_find_only_their_codes(make_project, tmp_path):
    index = _project(make_project, tmp_path)
    full = Edit.of(None)
    index.update_document(index.root_dir / "main.tex",
                          FILES["main.tex"].replace("\\label{lem:c}C", "\\label{lem:cc}C"))
    edit = Edit.of(index.last_change)
    found_codes = set()
    for make in FAMILIES:
        family, findings = make(), Findings()
        view = RecordingView(index.build_view())
        family.judge(view, full, findings)
        family.judge(view, edit, findings)
        assert view.read <= set(family.depends_on), (family.name, view.read - set(family.depends_on))
        made = {diag.code.removeprefix("colosseum/") for entries in findings.items.values() for diag, _ in entries}
        assert made <= set(family.codes), (family.name, made - set(family.codes))
        found_codes |= made
    # the project above gives every family something to find
    assert {"undefined-reference", "duplicate-label", "label-with-comma", "dependency-cycle",
            "depends-on-open-obligation", "unused-label", "lean-without-leanok", "orphan-proof",
            "missing-input", "unmatched-end", "unbalanced-brace", "separate-documents"} <= found_codes


def test_the_registry_finds_what_the_index_keeps(make_project, tmp_path):
    """Judged from nothing, the families find exactly what the index kept by difference."""
    index = _project(make_project, tmp_path)
    index.update_document(index.root_dir / "main.tex",
                          FILES["main.tex"].replace("See \\cref{lem:aa}", "See \\cref{lem:ab}"))
    assert compute_diagnostics(index) == index.diagnostics()
