"""The Lean check when Lean or the machine fails, against the scripted `lake serve` double
(tests/doubles/lake_serve.py) driven by the real leanclient: a file's worker that crashes while the
server goes on, failures of this machine's build (imports that do not build, a lakefile Lake
cannot read, an answer that leaves names out) that must never be cached as Lean's verdict, a name
Lean cannot know because its module was left out, the time `initialize` may take, and processes
`lake serve` leaves behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from colosseum.index import ProjectIndex
from colosseum.lean import check_lean, claim_results, lean_diagnostics
from colosseum.lean.findings import CODE_FAILED, CODE_UNCHECKED
from doubles.lake_serve import alive, read_log
from test_lean_engine import MAIN, SCRIPT, lake_double, make_paper, starts  # noqa: F401 - lake_double: a fixture

CRASHY = "namespace Paper.Crashy\n\ntheorem boom : True := trivial\n\nend Paper.Crashy\n"
CRASH_MAIN = MAIN.replace(r"\begin{theorem}", "\\begin{lemma}\\label{lem:crash}\\lean{Paper.Crashy.boom}\\leanok\n"
                                               "  Boom.\n\\end{lemma}\n\\begin{theorem}")




@pytest.mark.parametrize("when", [True, "on_wait"], ids=["at-open", "while-waited-for"])
def test_a_crashed_worker_is_unchecked_never_a_clean_cached_answer(make_project, tmp_path, lake_double, when):
    script = dict(SCRIPT, modules=dict(SCRIPT["modules"], **{"Paper.Crashy": {"worker_crash": when}}))
    script["declarations"] = dict(SCRIPT["declarations"], **{"Paper.Crashy.boom": {"module": "Paper.Crashy"}})
    log = lake_double(script)
    root = make_paper(make_project, tmp_path, CRASH_MAIN, {"paper/lean/Paper/Crashy.lean": CRASHY})
    index = ProjectIndex.open(root)
    report = check_lean(index)
    (crashed,) = [u for u in report.units if u.status == "crashed"]
    assert crashed.name == "Paper/Crashy.lean" and "Lean's worker for Paper/Crashy.lean crashed" in crashed.message
    boom = report.decls["Paper.Crashy.boom"]
    assert boom.status == "unchecked" and "crashed" in boom.message
    assert report.decls["Paper.good"].status == "ok"  # the server went on: the other files are checked
    assert len(starts(log)) == 1  # only the worker died: the server was not restarted
    result = {r.id: r for r in claim_results(index, report)}["lem:crash"]
    assert result.status == "unchecked"
    (finding,) = [d for d in lean_diagnostics(index, report) if "lem:crash" in d.message]
    assert finding.code == CODE_UNCHECKED and finding.severity == "information"  # not an error, not formal
    again = check_lean(ProjectIndex.open(root))
    assert [u.status for u in again.units if u.name == "Paper/Crashy.lean"] == ["crashed"]  # asked again


def test_imports_that_do_not_build_yet_are_asked_again(make_project, tmp_path, lake_double):
    """Mathlib not downloaded yet: the inline Lean's import fails. Once it is there the same text
    is checked again, not answered from the cache with the old failure."""
    main = ("\\documentclass{article}\n\\begin{document}\n\\begin{lean}\nimport Mathlib.Tactic\n"
            "example : True := trivial\n\\end{lean}\n\\end{document}\n")
    lake_double(SCRIPT)
    root = make_paper(make_project, tmp_path, main)
    index = ProjectIndex.open(root)
    first = check_lean(index)
    (error,) = [d for d in lean_diagnostics(index, first) if d.severity == "error"]
    assert "unknown module prefix 'Mathlib'" in error.message
    lake_double(dict(SCRIPT, modules={"Mathlib.Tactic": {"external": True}}))  # `lake exe cache get` ran
    second = check_lean(ProjectIndex.open(root))
    assert [u.status for u in second.units] == ["checked"]
    assert [d for d in lean_diagnostics(index, second) if d.severity == "error"] == []


def test_a_lakefile_lake_cannot_read_is_said_once_and_nothing_is_cached(make_project, tmp_path, lake_double):
    lake_double(dict(SCRIPT, startup="invalid_config"))
    root = make_paper(make_project, tmp_path)
    index = ProjectIndex.open(root)
    report = check_lean(index)
    assert "the lakefile of" in report.problem and "fell back to plain `lean --server`" in report.problem
    assert {d.status for d in report.decls.values()} == {"unchecked"}
    assert [u.status for u in report.units][:1] == ["checked"]  # the first file told; the rest are not asked
    assert {u.status for u in report.units[1:]} == {"unchecked"}
    assert [d for d in lean_diagnostics(index, report) if d.severity in ("error", "warning")] == []
    assert [d for d in lean_diagnostics(index, report) if report.problem in d.message] == []  # said once
    lake_double(SCRIPT)  # the lakefile fixed
    fixed = check_lean(ProjectIndex.open(root))
    assert fixed.decls["Paper.good"].status == "ok" and "cached" not in {u.status for u in fixed.units}


def test_an_answer_that_leaves_names_out_is_not_cached(make_project, tmp_path, lake_double):
    script = dict(SCRIPT, declarations=dict(SCRIPT["declarations"],
                                            **{"Paper.unmarked": {"module": "Paper.Basic", "no_answer": True}}))
    lake_double(script)
    root = make_paper(make_project, tmp_path)
    first = check_lean(ProjectIndex.open(root))
    assert first.decls["Paper.unmarked"].status == "unchecked" and "no answer" in first.decls["Paper.unmarked"].message
    lake_double(SCRIPT)
    second = check_lean(ProjectIndex.open(root))
    assert [u.status for u in second.units if u.name == "Paper/Basic.lean"] == ["checked"]
    assert second.decls["Paper.unmarked"].status == "ok"


def test_a_name_the_outline_cannot_see_in_a_module_that_does_not_build_is_unchecked(make_project, tmp_path,
                                                                                     lake_double):
    """An equation lemma (or a to_additive name, a structure field) of Paper.Broken: the file that
    asks about it leaves Paper.Broken out, so Lean cannot know it there. Not "missing", and no
    error on its \\leanok."""
    script = dict(SCRIPT, declarations=dict(SCRIPT["declarations"],
                                            **{"Paper.Broken.fine.eq_1": {"module": "Paper.Broken"}}))
    lake_double(script)
    main = MAIN.replace(r"\lean{Paper.Broken.fine}", r"\lean{Paper.Broken.fine.eq_1}\leanok")
    index = ProjectIndex.open(make_paper(make_project, tmp_path, main))
    report = check_lean(index)
    generated = report.decls["Paper.Broken.fine.eq_1"]
    assert generated.status == "unchecked" and "without Paper.Broken" in generated.message
    (finding,) = [d for d in lean_diagnostics(index, report) if "lem:collateral" in d.message]
    assert finding.severity == "information" and finding.code == CODE_UNCHECKED


def test_a_name_lean_does_not_know_is_missing_when_every_module_builds(make_project, tmp_path, lake_double):
    lake_double(dict(SCRIPT, modules={}))
    index = ProjectIndex.open(make_paper(make_project, tmp_path))
    report = check_lean(index)
    assert report.decls["Paper.nowhere"].status == "missing" and "does not exist" in report.decls["Paper.nowhere"].message
    (finding,) = [d for d in lean_diagnostics(index, report) if "lem:missing" in d.message]
    assert finding.severity == "warning" and finding.code == CODE_FAILED


def test_initialize_gets_the_whole_time_limit(make_project, tmp_path, lake_double, monkeypatch):
    """`lake serve` answers `initialize` only after elan installed the toolchain and Lake read the
    dependencies: the wait is the per-file time limit, not leanclient's 120 s."""
    from leanclient import LeanLSPClient

    waits: dict[str, list] = {}
    original = LeanLSPClient._send_request_sync

    def spy(self, method, params, timeout=120.0):
        waits.setdefault(method, []).append(timeout)
        return original(self, method, params, timeout=timeout)

    monkeypatch.setattr(LeanLSPClient, "_send_request_sync", spy)
    lake_double(dict(SCRIPT, startup_delay=1.0))
    root = make_paper(make_project, tmp_path)
    (root / "colosseum.toml").write_text("[lean]\ntime_limit = 1800\n")
    report = check_lean(ProjectIndex.open(root))
    assert waits["initialize"] == [1800] and report.decls["Paper.good"].status == "ok"


def test_a_server_that_answers_initialize_too_late_is_said_once(make_project, tmp_path, lake_double):
    lake_double(dict(SCRIPT, startup_delay=3.0))
    root = make_paper(make_project, tmp_path)
    (root / "colosseum.toml").write_text("[lean]\ntime_limit = 1\n")
    report = check_lean(ProjectIndex.open(root))
    assert "did not answer within 1 s while starting" in report.problem
    assert {d.status for d in report.decls.values()} == {"unchecked"}


@pytest.mark.parametrize("cancel", [False, True], ids=["closed", "cancelled"])
def test_every_process_lake_serve_started_is_stopped(make_project, tmp_path, lake_double, cancel):
    """A process of lake serve's whose parent already exited (it is nobody's child any more, so a
    walk over lake serve's children misses it) is stopped with the rest of its process group."""
    import threading
    import time

    from colosseum.lean import CancelToken
    from colosseum.lean.settings import lean_settings

    modules = {"Paper.Basic": {"hang": True}} if cancel else SCRIPT["modules"]
    log = lake_double(dict(SCRIPT, orphan_child=True, modules=modules))
    index = ProjectIndex.open(make_paper(make_project, tmp_path))
    token = CancelToken()

    def progress(event):
        if cancel and event.status == "checking":
            threading.Timer(0.3, token.cancel).start()

    try:
        report = check_lean(index, lean_settings(index.config), token=token, progress=progress)
        assert report.cancelled is cancel
        (child,) = [e["pid"] for e in read_log(log) if e.get("event") == "child"]
        for _ in range(100):  # the kill is sent; the process may take a moment to go (bounded)
            if not alive(child):
                break
            time.sleep(0.05)
        assert not alive(child)
    finally:
        for pid in [e["pid"] for e in read_log(log) if e.get("event") == "child"]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_wrapped_axiom_lists_are_read_whole(make_project, tmp_path, lake_double):
    """Lean wraps a message past 120 columns; the axioms of the wrapped list are all read."""
    many = ["propext", "Classical.choice", "Quot.sound", "Paper.first_long_axiom_name_for_wrapping",
            "Paper.second_long_axiom_name_for_wrapping", "Paper.third_long_axiom_name_for_wrapping"]
    log = lake_double(dict(SCRIPT, declarations=dict(SCRIPT["declarations"],
                                                     **{"Paper.uses_axiom": {"module": "Paper.Basic",
                                                                             "axioms": many}})))
    report = check_lean(ProjectIndex.open(make_paper(make_project, tmp_path)))
    assert sorted(report.decls["Paper.uses_axiom"].axioms) == sorted(many)
    assert report.decls["Paper.uses_axiom"].status == "axioms"
    assert report.decls["Paper.good"].axioms == ["propext"]
    assert any(e.get("event") == "start" for e in read_log(log))


def test_the_double_lists_axioms_as_lean_does():
    """Lean sorts the axioms with Name.lt (fewer components first) and wraps past width 120."""
    from doubles.lake_serve import DoubleServer

    server = DoubleServer({}, Path("."))
    plain = server.print_axioms(0, "X", {"X": {"module": "M", "axioms": ["Quot.sound", "propext", "Classical.choice"]}},
                                {"M"})
    assert plain["message"] == "'X' depends on axioms: [propext, Classical.choice, Quot.sound]"
    long = server.print_axioms(0, "X", {"X": {"module": "M", "axioms": ["sorryAx"] + [f"A{i}.long_axiom_name_{i}"
                                                                                      for i in range(6)]}}, {"M"})
    assert long["message"].startswith("'X' depends on axioms: [sorryAx,\n A0.long_axiom_name_0,\n")
