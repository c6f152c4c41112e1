"""The Lean check, engine side: the real leanclient drives a scripted `lake serve` double on PATH
(tests/doubles/lake_serve.py), file by file: declarations that are fine, use sorry or a
non-standard axiom, do not exist, sit in a module that does not build; a server that crashes,
one that hangs past the time limit, a cancelled check, no `lake` at all."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from colosseum.index import ProjectIndex
from colosseum.lean import CancelToken, apply_formal, check_lean, claim_results, formal_ids, lean_diagnostics
from colosseum.lean.findings import CODE_CHECKED, CODE_FAILED, CODE_INLINE
from colosseum.lean.outline import outline
from colosseum.lean.settings import lean_settings
from doubles.lake_serve import alive, install, read_log

BASIC = """\
/-! The paper's lemmas. -/
namespace Paper

theorem good (n : Nat) : n + 0 = n := by
  simp

theorem unmarked : True := trivial

theorem with_sorry : 1 + 1 = 2 := by
  sorry

axiom my_axiom : False

theorem uses_axiom : 2 + 2 = 5 := my_axiom.elim

end Paper
"""
BROKEN = """\
import Paper.Basic

namespace Paper.Broken

theorem bad : 1 = 2 := rfl

theorem fine : True := trivial

end Paper.Broken
"""
MAIN = r"""
\documentclass{article}
\usepackage{amsthm}
\newtheorem{lemma}{Lemma}
\newtheorem{theorem}{Theorem}
\begin{document}
\begin{lemma}\label{lem:good}\lean{Paper.good}\leanok
  Adding zero changes nothing.
\end{lemma}
\begin{proof}\leanok
  Clear.
\end{proof}
\begin{lemma}\label{lem:unmarked}
  \lean{Paper.unmarked}
  Truth holds.
\end{lemma}
\begin{proof}[Proof of the obvious]
  Trivial.
\end{proof}
\begin{lemma}\label{lem:sorry}\lean{Paper.with_sorry}\leanok
  One and one make two.
\end{lemma}
\begin{lemma}\label{lem:axiom}\lean{Paper.uses_axiom}
  Two and two make five.
\end{lemma}
\begin{lemma}\label{lem:missing}\lean{Paper.nowhere}
  Nowhere.
\end{lemma}
\begin{lemma}\label{lem:broken}\lean{Paper.Broken.bad}\leanok
  One is two.
\end{lemma}
\begin{lemma}\label{lem:collateral}\lean{Paper.Broken.fine}
  Fine, but next to a broken one.
\end{lemma}
\begin{theorem}\label{thm:main}
  The main result.
\end{theorem}
\begin{proof}
  By \cref{lem:good}.
\end{proof}
\end{document}
"""
SCRIPT = {
    "declarations": {
        "Paper.good": {"module": "Paper.Basic", "axioms": ["propext"]},
        "Paper.unmarked": {"module": "Paper.Basic", "axioms": []},
        "Paper.with_sorry": {"module": "Paper.Basic", "axioms": ["sorryAx"]},
        "Paper.uses_axiom": {"module": "Paper.Basic", "axioms": ["Paper.my_axiom"]},
        "Paper.Broken.fine": {"module": "Paper.Broken", "axioms": []},
    },
    "modules": {"Paper.Broken": {"errors": [
        {"line": 4, "character": 23, "endCharacter": 26,
         "message": "type mismatch\n  rfl\nhas type\n  1 = 1 : Prop\nbut is expected to have type\n  1 = 2 : Prop"}]}},
    "rules": [{"contains": "no_such_lemma", "severity": 1, "message": "unknown identifier 'no_such_lemma'"}],
}


def make_paper(make_project, tmp_path: Path, main: str = MAIN, extra: dict | None = None) -> Path:
    files = {"paper/main.tex": main, "paper/lean/lakefile.toml": 'name = "Paper"\n\n[[lean_lib]]\nname = "Paper"\n',
             "paper/lean/lean-toolchain": "leanprover/lean4:v4.15.0\n", "paper/lean/Paper/Basic.lean": BASIC,
             "paper/lean/Paper/Broken.lean": BROKEN, "paper/lean/Paper.lean": "import Paper.Basic\n"}
    files.update(extra or {})
    return make_project(tmp_path, files) / "paper"


@pytest.fixture
def lake_double(tmp_path, monkeypatch):
    """``use(script) -> log path``: the double as `lake`, first on PATH, with that script."""
    def use(script: dict) -> Path:
        log = tmp_path / "double" / "log.jsonl"
        bin_dir = install(tmp_path / "double", dict(script, log=str(log)))
        monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
        return log
    return use


def starts(log: Path) -> list[dict]:
    return [e for e in read_log(log) if e.get("event") == "start"]


def by_id(index, report):
    return {r.id: r for r in claim_results(index, report)}


def test_each_kind_of_declaration_gets_its_verdict(make_project, tmp_path, lake_double):
    log = lake_double(SCRIPT)
    index = ProjectIndex.open(make_paper(make_project, tmp_path))
    report = check_lean(index)
    assert report.problem is not None and "does not build" in report.problem  # said once, for Paper.Broken
    decls = report.decls
    assert decls["Paper.good"].status == "ok" and decls["Paper.good"].axioms == ["propext"]
    assert decls["Paper.with_sorry"].status == "sorry" and "sorry" in decls["Paper.with_sorry"].message
    assert decls["Paper.uses_axiom"].status == "axioms" and "Paper.my_axiom" in decls["Paper.uses_axiom"].message
    # Lean does not know it, but Paper.Broken was left out (it does not build): it may be there
    assert decls["Paper.nowhere"].status == "unchecked"
    assert "does not know it without Paper.Broken, which does not build" in decls["Paper.nowhere"].message
    # a module that does not build: its own error says which declaration fails, the other is unchecked
    assert decls["Paper.Broken.bad"].status == "error" and "Broken.lean:5" in decls["Paper.Broken.bad"].message
    assert decls["Paper.Broken.fine"].status == "unchecked" and "does not build" in decls["Paper.Broken.fine"].message
    claims = by_id(index, report)
    assert {k: v.status for k, v in claims.items()} == {
        "lem:good": "formal", "lem:unmarked": "formal", "lem:sorry": "statement", "lem:axiom": "statement",
        "lem:missing": "unchecked", "lem:broken": "failed", "lem:collateral": "unchecked"}
    # files: Basic, Broken (its scratch), Broken's own errors, then the one declaration not where the
    # outline put it (none here: Paper.nowhere is in no file, so it was asked with every module)
    assert [(u.name, u.status) for u in report.units] == [
        ("Paper/Basic.lean", "checked"), ("Paper/Broken.lean", "checked"),
        ("Paper/Broken.lean (its own errors)", "checked"), ("declarations outside the project's files (1)", "checked")]
    assert len(starts(log)) == 1  # one server for the whole check


def test_findings_on_the_paper(make_project, tmp_path, lake_double):
    lake_double(SCRIPT)
    root = make_paper(make_project, tmp_path)
    index = ProjectIndex.open(root)
    found = lean_diagnostics(index, check_lean(index))
    lines = (root / "main.tex").read_text().splitlines()
    by_claim = {}
    for d in found:
        by_claim.setdefault(d.message.split("`")[1], []).append(d)
    # \leanok on a failing check is an error, on the \leanok itself
    (sorry,) = by_claim["lem:sorry"]
    assert sorry.severity == "error" and sorry.code == CODE_FAILED and sorry.source == "colosseum-lean"
    line = lines[sorry.range.start.line]
    assert line[sorry.range.start.character:sorry.range.end.character] == "\\leanok"
    (broken,) = by_claim["lem:broken"]
    assert broken.severity == "error" and broken.related
    assert broken.related[0].location.file.name == "Broken.lean" and broken.related[0].location.range.start.line == 4
    # a passing check without \leanok: a hint on \lean{...}, offering to add it
    (hint,) = by_claim["lem:unmarked"]
    assert hint.severity == "hint" and hint.code == CODE_CHECKED
    assert lines[hint.range.start.line].strip() == "\\lean{Paper.unmarked}"
    # not marked and failing: information (a name that does not exist: a warning, see below)
    assert [d.severity for d in by_claim["lem:axiom"]] == ["information"]
    assert "lem:missing" not in by_claim  # unchecked: Paper.Broken, where it might be, does not build
    assert "lem:good" not in by_claim  # formal and marked: nothing to say
    assert "lem:collateral" not in by_claim  # unchecked because the project does not build: said once


def test_formal_claims_in_the_dag_and_leanok_insertions(make_project, tmp_path, lake_double):
    from colosseum.lean import leanok_insertions

    lake_double(SCRIPT)
    root = make_paper(make_project, tmp_path)
    index = ProjectIndex.open(root)
    assert index.graph.status["lem:good"] == "proved"
    results = claim_results(index, check_lean(index))
    assert apply_formal(index, formal_ids(results)) is True
    assert index.graph.status["lem:good"] == "formal" and index.graph.status["lem:unmarked"] == "formal"
    assert index.graph.status["lem:sorry"] == "open"
    assert apply_formal(index, formal_ids(results)) is False  # nothing changed: no rebuild
    index.update_document(root / "main.tex", (root / "main.tex").read_text() + "%\n")
    assert index.graph.status["lem:good"] == "formal"  # kept across rebuilds
    lines = (root / "main.tex").read_text().splitlines()
    places = leanok_insertions(index, index.claims["lem:unmarked"])
    assert [(p.line, lines[p.line][:p.character]) for _f, p in places] == [
        (12, "  \\lean{Paper.unmarked}"), (15, "\\begin{proof}[Proof of the obvious]")]


def test_answers_are_cached_by_lean_sources_and_toolchain(make_project, tmp_path, lake_double):
    log = lake_double(SCRIPT)
    root = make_paper(make_project, tmp_path)
    first = check_lean(ProjectIndex.open(root))
    second = check_lean(ProjectIndex.open(root))
    # an import that did not build is never cached (the build may be fixed without a file changing)
    assert [(u.name, u.status) for u in second.units] == [
        ("Paper/Basic.lean", "cached"), ("Paper/Broken.lean", "checked"),
        ("Paper/Broken.lean (its own errors)", "cached"), ("declarations outside the project's files (1)", "cached")]
    assert {n: d.status for n, d in second.decls.items()} == {n: d.status for n, d in first.decls.items()}
    assert len(starts(log)) == 2
    # one file changed: only what reads it is asked again (the last file leaves Broken out: it does not build)
    (root / "lean" / "Paper" / "Broken.lean").write_text(BROKEN + "-- edited\n")
    third = check_lean(ProjectIndex.open(root))
    assert [u.status for u in third.units] == ["cached", "checked", "checked", "cached"]
    # a file Paper.Broken imports changed: Broken's answers are asked again too
    (root / "lean" / "Paper" / "Basic.lean").write_text(BASIC.replace("simp", "simp only [Nat.add_zero]"))
    assert [u.status for u in check_lean(ProjectIndex.open(root)).units] == ["checked"] * 4
    (root / "lean" / "lean-toolchain").write_text("leanprover/lean4:v4.16.0\n")
    fourth = check_lean(ProjectIndex.open(root))
    assert fourth.toolchain == "leanprover/lean4:v4.16.0" and {u.status for u in fourth.units} == {"checked"}


def test_a_new_process_shows_the_last_results_from_the_cache_alone(make_project, tmp_path, lake_double, monkeypatch):
    from colosseum.lean import apply_cached_results

    log = lake_double(SCRIPT)
    root = make_paper(make_project, tmp_path)
    check_lean(ProjectIndex.open(root))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # and no Lean at all
    index = ProjectIndex.open(root)
    assert apply_cached_results(index) == {"lem:good", "lem:unmarked"}
    assert index.graph.status["lem:good"] == "formal" and len(starts(log)) == 1
    (root / "lean" / "Paper" / "Basic.lean").write_text(BASIC + "-- edited\n")
    assert apply_cached_results(ProjectIndex.open(root)) == set()  # not checked since the edit


def test_no_lake_is_said_once_and_the_cache_still_answers(make_project, tmp_path, lake_double, monkeypatch):
    lake_double(SCRIPT)
    root = make_paper(make_project, tmp_path)
    check_lean(ProjectIndex.open(root))
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (root / "lean" / "Paper" / "Broken.lean").write_text(BROKEN + "\n-- edited\n")
    index = ProjectIndex.open(root)
    report = check_lean(index)
    assert "`lake` is not on PATH" in report.problem and "elan" in report.problem
    # Paper.Basic's answers were cached for these very sources; Broken changed: unchecked
    assert report.decls["Paper.good"].status == "ok" and by_id(index, report)["lem:good"].status == "formal"
    assert report.decls["Paper.Broken.bad"].status == "unchecked"
    assert by_id(index, report)["lem:broken"].status == "unchecked"
    found = lean_diagnostics(index, report)
    assert not [d for d in found if report.problem in d.message]  # not repeated on every claim


def test_a_server_that_does_not_start_is_said_once(make_project, tmp_path, lake_double):
    lake_double(dict(SCRIPT, startup="fail"))
    index = ProjectIndex.open(make_paper(make_project, tmp_path))
    report = check_lean(index)
    assert "`lake serve` exited with code 1 while starting" in report.problem and "lake build" in report.problem
    assert {d.status for d in report.decls.values()} == {"unchecked"}
    assert {u.status for u in report.units} == {"unchecked"}


def test_a_crash_leaves_its_file_unchecked_and_the_next_file_is_checked(make_project, tmp_path, lake_double):
    crashy = "namespace Paper.Crashy\n\ntheorem boom : True := trivial\n\nend Paper.Crashy\n"
    main = MAIN.replace(r"\begin{theorem}", "\\begin{lemma}\\label{lem:crash}\\lean{Paper.Crashy.boom}\n  Boom.\n"
                                             "\\end{lemma}\n\\begin{theorem}")
    script = dict(SCRIPT, modules=dict(SCRIPT["modules"], **{"Paper.Crashy": {"crash": True}}))
    script["declarations"] = dict(SCRIPT["declarations"], **{"Paper.Crashy.boom": {"module": "Paper.Crashy"}})
    log = lake_double(script)
    index = ProjectIndex.open(make_paper(make_project, tmp_path, main, {"paper/lean/Paper/Crashy.lean": crashy}))
    report = check_lean(index)
    crashed = [u for u in report.units if u.status == "crashed"]
    assert [u.name for u in crashed] == ["Paper/Crashy.lean"] and "exit code 1" in crashed[0].message
    assert report.decls["Paper.Crashy.boom"].status == "unchecked"
    assert "stopped while checking" in report.decls["Paper.Crashy.boom"].message
    assert report.decls["Paper.good"].status == "ok"  # checked before the crash
    assert report.decls["Paper.Broken.bad"].status == "error"
    nowhere = report.decls["Paper.nowhere"]  # asked after a restart, without Paper.Crashy (nor Paper.Broken)
    assert nowhere.status == "unchecked" and "without Paper.Broken, Paper.Crashy, which do not build" in nowhere.message
    assert len(starts(log)) == 2


def test_a_file_past_the_time_limit_is_stopped_and_the_others_checked(make_project, tmp_path, lake_double):
    (tmp_path / "paper").mkdir()
    (tmp_path / "paper" / "colosseum.toml").write_text("[lean]\ntime_limit = 1.5\n")
    script = dict(SCRIPT, modules={"Paper.Broken": {"hang": True}})
    log = lake_double(script)
    index = ProjectIndex.open(make_paper(make_project, tmp_path))
    assert lean_settings(index.config).time_limit == 1.5
    report = check_lean(index)
    (late,) = [u for u in report.units if u.status == "timed-out"]
    assert late.name == "Paper/Broken.lean" and "time limit of 1.5 s" in late.message
    assert report.decls["Paper.Broken.bad"].status == "unchecked" and "time limit" in report.decls["Paper.Broken.bad"].message
    assert report.decls["Paper.good"].status == "ok" and report.decls["Paper.nowhere"].status == "unchecked"
    assert any(e.get("method") == "textDocument/didClose" and "Check_" in e["params"]["textDocument"]["uri"]
               for e in read_log(log))  # the late file's worker was closed
    assert not any(u.status == "cached" for u in check_lean(index).units if u.name == "Paper/Broken.lean")


def test_cancelling_kills_lake_serve(make_project, tmp_path, lake_double):
    log = lake_double(dict(SCRIPT, modules={"Paper.Basic": {"hang": True}}))
    index = ProjectIndex.open(make_paper(make_project, tmp_path))
    token = CancelToken()
    seen = []

    def progress(event):
        seen.append(event)
        if event.status == "checking":
            threading.Timer(0.3, token.cancel).start()

    report = check_lean(index, lean_settings(index.config), token=token, progress=progress)
    assert report.cancelled and seen[0].name == "Paper/Basic.lean"
    assert {d.status for d in report.decls.values()} == {"unchecked"}
    (start,) = starts(log)
    assert not alive(start["pid"])
    assert not (index.root_dir / "lean" / ".lake" / "colosseum").exists()  # scratch files removed


def test_inline_lean_lands_on_its_lines(make_project, tmp_path, lake_double):
    lake_double(SCRIPT)
    main = r"""
\documentclass{article}
\begin{document}
Some Lean:
\begin{lean}
import Paper.Basic
theorem inline_ok : True := trivial
theorem inline_gap : 1 = 1 := by sorry
\end{lean}
% \begin{lean}
% theorem commented : no_such_lemma
% \end{lean}
\begin{lstlisting}[language=Python]
no_such_lemma = 1
\end{lstlisting}
\begin{lstlisting}[language=Lean, caption={A bad one}]
  example : True := no_such_lemma
\end{lstlisting}
\begin{minted}{lean4}
example : 2 = 2 := rfl
\end{minted}
\begin{lean}
-- colosseum: no-check
example : no_such_lemma
\end{lean}
\end{document}
"""
    root = make_paper(make_project, tmp_path, main)
    index = ProjectIndex.open(root)
    report = check_lean(index)
    (unit,) = report.inline
    assert unit.status == "checked" and unit.text.startswith("import Paper.Basic\n")
    found = [d for d in lean_diagnostics(index, report) if d.code == CODE_INLINE]
    lines = (root / "main.tex").read_text().splitlines()
    spots = [(d.severity, lines[d.range.start.line][d.range.start.character:d.range.end.character]) for d in found]
    # Lean's warning for sorry sits on the declaration's name
    assert spots == [("warning", "inline_gap"), ("error", "no_such_lemma")]
    assert found[1].range.start.line == 15 and found[1].message == "Lean: unknown identifier 'no_such_lemma'"
    # an edit of the block: its old findings are not shown on the new text
    index.update_document(root / "main.tex", (root / "main.tex").read_text().replace("inline_gap", "inline_gap'"))
    assert not [d for d in lean_diagnostics(index, report) if d.code == CODE_INLINE]


def test_inline_imports_that_do_not_build(make_project, tmp_path, lake_double):
    lake_double(SCRIPT)
    main = "\\documentclass{article}\n\\begin{document}\n\\begin{lean}\nimport Paper.Broken\n" \
           "example : True := trivial\n\\end{lean}\n\\end{document}\n"
    index = ProjectIndex.open(make_paper(make_project, tmp_path, main))
    found = [d for d in lean_diagnostics(index, check_lean(index)) if d.code == CODE_INLINE]
    assert len(found) == 1 and found[0].range.start.line == 2 and found[0].severity == "error"
    assert "the imports of the inline Lean do not build" in found[0].message and "Broken.lean:5" in found[0].message


def test_the_protocol_leanclient_speaks(make_project, tmp_path, lake_double):
    log = lake_double(SCRIPT)
    root = make_paper(make_project, tmp_path)
    check_lean(ProjectIndex.open(root))
    messages = [e for e in read_log(log) if "method" in e]
    methods = [m["method"] for m in messages]
    assert methods[:3] == ["initialize", "initialized", "textDocument/didOpen"]
    assert messages[0]["params"]["rootUri"] == (root / "lean").as_uri()
    opened = messages[2]["params"]
    assert opened["textDocument"]["languageId"] == "lean" and opened["dependencyBuildMode"] == "once"
    assert opened["textDocument"]["uri"].startswith((root / "lean" / ".lake" / "colosseum").as_uri())
    assert opened["textDocument"]["text"].startswith("import Paper.Basic\n")
    assert "#print axioms Paper.good" in opened["textDocument"]["text"]
    assert methods.count("textDocument/didOpen") == methods.count("textDocument/didClose") == 4
    # leanclient asks for the wait only while Lean is still processing the file; when the double's
    # "done" arrived first (it can, on a busy machine) there is nothing to wait for
    waits = [m for m in messages if m["method"] == "textDocument/waitForDiagnostics"]
    assert all(set(w["params"]) == {"uri", "version"} and "id" in w for w in waits)
    assert all(w["params"]["version"] == 0 for w in waits if w["params"]["uri"] == opened["textDocument"]["uri"])
    # the module that does not build was opened itself, from its file in the project
    assert any(m["params"]["textDocument"]["uri"] == (root / "lean" / "Paper" / "Broken.lean").as_uri()
               for m in messages if m["method"] == "textDocument/didOpen")


def test_outline_finds_declarations_in_their_namespaces():
    text = ("import Foo.Bar\nimport Baz -- why\n/-! doc with theorem fake -/\nnamespace A.B\n@[simp] theorem x : True :=\n"
            "  trivial\nprivate lemma hidden : True := trivial\nsection S\nprotected def z := 1\nend S\n"
            "instance : Inhabited Nat := ⟨0⟩\ninstance instQ : Inhabited Nat := ⟨0⟩\ntheorem _root_.top : True := by\n"
            "  trivial\nend A.B\ndef s := \"-- not a comment\"\nnoncomputable def w := 2\n")
    found = outline(text)
    assert found.imports == ["Foo.Bar", "Baz"] and found.header_lines == 2
    assert found.declarations == {"A.B.x": (4, 5), "A.B.z": (8, 8), "A.B.instQ": (11, 11), "top": (12, 13),
                                  "s": (15, 15), "w": (16, 16)}


def test_lean_settings_are_checked_key_by_key(make_project, tmp_path):
    root = make_project(tmp_path, {"colosseum.toml": '[lean]\ntime_limit = -3\ncheck_on_save = "yes"\n'
                                                      'inline_imports = ["Mathlib.Tactic"]\nproject = "formal"\n'
                                                      'colour = 1\n',
                                   "main.tex": "\\documentclass{article}\\begin{document}\\end{document}\n"})
    settings = lean_settings(ProjectIndex.open(root).config)
    assert sorted(p.key for p in settings.problems) == ["lean.check_on_save", "lean.colour", "lean.time_limit"]
    assert settings.time_limit == 300.0 and settings.check_on_save is True
    assert settings.inline_imports == ["Mathlib.Tactic"] and settings.project == "formal"
    report = check_lean(ProjectIndex.open(root))  # a configured project that is not there: said, not raised
    assert "[lean] project = 'formal'" in report.problem
