"""The Lean project as Lake sees it, read without Lake: its libraries (only their modules can be
imported), source folders, private and «quoted» names, what the cache key covers, and showing the
last results from the cache cheaply. Checks run against the scripted `lake serve` double
(tests/doubles/lake_serve.py), which refuses an import real Lake could not resolve."""

from __future__ import annotations

from pathlib import Path

from colosseum.index import ProjectIndex
from colosseum.lean import apply_cached_results, check_lean
from colosseum.lean.lakefile import Glob, read_lakefile
from colosseum.lean.outline import normalize_name, outline
from colosseum.lean.project import LeanProject
from doubles.lake_serve import read_log
from test_lean_engine import BASIC, SCRIPT, lake_double, make_paper  # noqa: F401 - lake_double: a fixture

PAPER = r"""
\documentclass{article}
\usepackage{amsthm}
\newtheorem{lemma}{Lemma}
\begin{document}
%s
\end{document}
"""


def lemma(label: str, names: str) -> str:
    return f"\\begin{{lemma}}\\label{{{label}}}\\lean{{{names}}}\n  Text.\n\\end{{lemma}}\n"


def opened_texts(log: Path) -> list[str]:
    return [e["params"]["textDocument"]["text"] for e in read_log(log) if e.get("method") == "textDocument/didOpen"]


def test_only_modules_of_a_library_are_imported(make_project, tmp_path, lake_double):
    """Scratch.lean sits beside the lakefile but in no lean_lib: Lake cannot build it, so the file
    that asks about names the outline does not place must not import it."""
    log = lake_double(dict(SCRIPT, modules={}, declarations=dict(
        SCRIPT["declarations"], **{"Paper.generated": {"module": "Paper.Basic"}})))
    main = PAPER % (lemma("lem:gen", "Paper.generated") + lemma("lem:stray", "Scratch.thing"))
    extra = {"paper/lean/Scratch.lean": "namespace Scratch\n\ntheorem thing : True := trivial\n\nend Scratch\n"}
    index = ProjectIndex.open(make_paper(make_project, tmp_path, main, extra))
    report = check_lean(index)
    assert report.problem is None, report.problem
    assert report.decls["Paper.generated"].status == "ok"
    stray = report.decls["Scratch.thing"]
    assert stray.status == "unchecked" and "Scratch.lean, which no lean_lib of the lakefile includes" in stray.message
    (fallback,) = [t for t in opened_texts(log) if "#print axioms Paper.generated" in t]
    assert "import Paper.Basic\n" in fallback and "import Scratch" not in fallback


def test_lakefile_lean_libraries_are_read():
    root = Path("/tmp/lake-project")
    lakefile = read_lakefile_text(root, "lakefile.lean", '''
import Lake
open Lake DSL

package «my paper» where
  srcDir := "src"

require mathlib from git "https://github.com/leanprover-community/mathlib4.git"

/-- The paper's library. lean_lib Commented -/
@[default_target]
lean_lib «Paper» where
  roots := #[`Paper, `Extra.«Odd Name»]
  globs := #[.submodules `Gen, Glob.one `Solo]

lean_lib Other {
  srcDir := "other"
}
-- lean_lib Ignored
''')
    paper, other = lakefile.libraries
    assert lakefile.package_src_dir == root / "src"
    assert (paper.name, paper.src_dir, paper.roots) == ("Paper", root / "src", [("Paper",), ("Extra", "Odd Name")])
    assert paper.globs == [Glob("submodules", ("Gen",)), Glob("one", ("Solo",))]
    assert (other.name, other.src_dir, other.roots, other.globs) == ("Other", root / "src" / "other", [("Other",)],
                                                                      [Glob("one", ("Other",))])
    assert paper.is_local(("Paper", "Basic")) and paper.is_local(("Gen", "A")) and paper.is_local(("Solo",))
    assert not paper.is_local(("Gen",)) and not paper.is_local(("Solo", "X")) and not paper.is_local(("Scratch",))


def test_lakefile_toml_libraries_are_read():
    root = Path("/tmp/lake-project")
    lakefile = read_lakefile_text(root, "lakefile.toml", '''
name = "paper"
srcDir = "src"

[[lean_lib]]
name = "Paper"
srcDir = "lib"
globs = ["Gen.+", "All.*", "One"]

[[lean_lib]]
name = "Plain"
''')
    paper, plain = lakefile.libraries
    assert paper.src_dir == root / "src" / "lib"  # a library's srcDir is under the package's
    assert paper.globs == [Glob("submodules", ("Gen",)), Glob("andSubmodules", ("All",)), Glob("one", ("One",))]
    assert paper.is_local(("Paper", "X")) and paper.is_local(("All",)) and not paper.is_local(("Gen",))
    assert (plain.src_dir, plain.roots, plain.globs) == (root / "src", [("Plain",)], [Glob("one", ("Plain",))])


def read_lakefile_text(root: Path, name: str, text: str):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / name).write_text(text)
        found = read_lakefile(Path(folder))
    # the same libraries, named from ``root`` rather than the temporary folder
    for library in found.libraries:
        library.src_dir = root / library.src_dir.relative_to(Path(folder).resolve())
    found.package_src_dir = root / found.package_src_dir.relative_to(Path(folder).resolve())
    return found


def test_a_library_source_folder_is_under_the_package_source_folder(make_project, tmp_path, lake_double):
    lake_double(dict(SCRIPT, modules={}))
    lakefile = 'name = "Paper"\nsrcDir = "src"\n\n[[lean_lib]]\nname = "Paper"\nsrcDir = "lib"\n'
    root = make_project(tmp_path, {
        "paper/main.tex": PAPER % lemma("lem:good", "Paper.good"), "paper/lean/lakefile.toml": lakefile,
        "paper/lean/lean-toolchain": "leanprover/lean4:v4.15.0\n", "paper/lean/src/lib/Paper/Basic.lean": BASIC}) / "paper"
    project = LeanProject.load(root / "lean")
    assert list(project.sources) == ["Paper.Basic"] and project.importable == ["Paper.Basic"]
    report = check_lean(ProjectIndex.open(root))
    assert report.problem is None and report.decls["Paper.good"].status == "ok"


def test_a_local_path_dependency_is_part_of_the_cache_key(make_project, tmp_path, lake_double):
    lake_double(dict(SCRIPT, modules={}))
    manifest = '{"version": "1.1.0", "packages": [{"type": "path", "name": "dep", "dir": "../dep", "inherited": false}]}'
    root = make_paper(make_project, tmp_path, PAPER % lemma("lem:good", "Paper.good"),
                      {"paper/lean/lake-manifest.json": manifest, "paper/dep/Dep.lean": "def dep := 1\n"})
    check_lean(ProjectIndex.open(root))
    assert [u.status for u in check_lean(ProjectIndex.open(root)).units] == ["cached"]
    (root / "dep" / "Dep.lean").write_text("def dep := 2\n")  # what Paper may import changed
    assert [u.status for u in check_lean(ProjectIndex.open(root)).units] == ["checked"]


def test_private_and_quoted_names(make_project, tmp_path, lake_double):
    basic = BASIC.replace("end Paper", "private theorem hidden : True := trivial\n\n"
                                       "theorem «my lemma» : True := trivial\n\nend Paper")
    lake_double(dict(SCRIPT, modules={}, declarations=dict(
        SCRIPT["declarations"], **{"Paper.«my lemma»": {"module": "Paper.Basic", "axioms": ["propext"]}})))
    main = PAPER % (lemma("lem:hidden", "Paper.hidden") + lemma("lem:quoted", "Paper.«my lemma»"))
    report = check_lean(ProjectIndex.open(make_paper(make_project, tmp_path, main,
                                                     {"paper/lean/Paper/Basic.lean": basic})))
    hidden = report.decls["Paper.hidden"]
    assert hidden.status == "unchecked" and "private" in hidden.message and "from another file" in hidden.message
    assert hidden.source.name == "Basic.lean" and hidden.line == 15
    assert report.decls["Paper.«my lemma»"].status == "ok"


def test_outline_private_only_on_its_own_declaration_and_quoted_names():
    text = ("namespace A\nstructure Point where\n  private mk ::\n  x : Nat\n"
            "private\ntheorem hidden : True := trivial\ntheorem «b c».«d» : True := trivial\n"
            "@[simp] theorem «plain» : True := trivial\nend A\n")
    found = outline(text)
    assert set(found.declarations) == {"A.Point", "A.«b c».d", "A.plain"}
    assert set(found.private) == {"A.hidden"}
    # names as Lean prints them: guillemets only where a component needs them (spaces, keywords)
    assert [normalize_name(n) for n in ("«Foo».bar", "Foo.«end»", "A.«b c»")] == ["Foo.bar", "Foo.«end»", "A.«b c»"]


def test_cached_results_are_applied_cheaply_when_nothing_changed(make_project, tmp_path, lake_double, monkeypatch):
    lake_double(SCRIPT)
    root = make_paper(make_project, tmp_path)
    check_lean(ProjectIndex.open(root))
    index = ProjectIndex.open(root)
    loads = []
    original = LeanProject.load
    monkeypatch.setattr(LeanProject, "load", classmethod(lambda cls, r: loads.append(r) or original(r)))

    def no_rebuild(*args, **kwargs):
        raise AssertionError("statuses are set without a rebuild")

    monkeypatch.setattr(index, "rebuild", no_rebuild)
    assert apply_cached_results(index) == {"lem:good", "lem:unmarked"} == apply_cached_results(index)
    assert len(loads) == 1 and index.graph.status["lem:good"] == "formal"
    basic = root / "lean" / "Paper" / "Basic.lean"
    basic.write_text(basic.read_text() + "-- edited\n")  # a Lean file changed: read again, not checked since
    assert apply_cached_results(index) == set() and len(loads) == 2
    assert index.graph.status["lem:good"] == "proved"
