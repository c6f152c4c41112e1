"""Retraction, and writes to the catalog that lose nothing: concurrent writers, and a writer
killed in the middle of a write."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from colosseum.catalog.store import load_catalog, read_entry
from colosseum.catalog.checks import catalog_diagnostics, suspect_entries
from colosseum.index import ProjectIndex
from catalog_files import written_entry

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "lll-symmetric-erdos-lovasz"


def copy_example(tmp_path) -> Path:
    project = tmp_path / "paper"
    shutil.copytree(ROOT / "example-project", project, ignore=shutil.ignore_patterns(".colosseum"))
    return project


def test_retraction_marks_dependent_entries_and_claims_as_suspect(tmp_path):
    project = copy_example(tmp_path)
    (project / "knowledge" / "uses-lll.md").write_text(
        (project / "knowledge" / "smallest-uniformity-per-degree.md").read_text()
        .replace("id: smallest-uniformity-per-degree", "id: uses-lll").replace("entries: []", f"entries: [{ENTRY}]"))
    run = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "retract", str(project), ENTRY,
                          "--reason", "Misquoted condition."], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "uses-lll" in run.stdout
    catalog = load_catalog(project / "knowledge")
    assert catalog.entries[ENTRY].status == "retracted" and not catalog.malformed()
    assert suspect_entries(catalog)["uses-lll"] == ["uses-lll", ENTRY]
    found = catalog_diagnostics(catalog, ProjectIndex.open(project))
    suspect = {d.message.split("`")[1] for d in found if d.code == "colosseum/suspect"}
    assert "thm:lll" in suspect  # linked directly
    assert "thm:main" in suspect  # its proof rests on thm:lll
    assert "thm:main" in suspect and "lem:mono-prob" not in suspect
    check = subprocess.run([sys.executable, "-m", "colosseum", "check", str(project)], capture_output=True, text=True,
                           timeout=60)
    assert "colosseum/suspect" in check.stdout


WRITER = """
import sys
from pathlib import Path
from colosseum.catalog.write import catalog_lock, update_front_matter, write_atomically
path, tag, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(n):
    with catalog_lock(path.parent):  # read-modify-write: add one tag
        text = path.read_text()
        text = text.replace("tags: [", f"tags: [{tag}{i}, ", 1)
        write_atomically(path, text)
"""


def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    project = copy_example(tmp_path)
    path = project / "knowledge" / f"{ENTRY}.md"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, "25"]) for tag in ("a", "b")]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    text = path.read_text()
    assert all(f"{tag}{i}," in text for tag in ("a", "b") for i in range(25))
    entry, problems = read_entry(path)
    assert entry is not None and problems == []


def test_a_writer_killed_mid_write_leaves_the_old_entry_or_the_new_one(tmp_path):
    project = copy_example(tmp_path)
    path = project / "knowledge" / f"{ENTRY}.md"
    before = path.read_text()
    env = {**os.environ, "COLOSSEUM_TEST_PAUSE_BEFORE_RENAME": "5"}
    proc = subprocess.Popen([sys.executable, "-m", "colosseum", "knowledge", "retract", str(project), ENTRY,
                             "--reason", "killed before it could finish"], env=env)
    deadline = time.time() + 30
    while time.time() < deadline and not list(path.parent.glob(".*.tmp")):
        time.sleep(0.05)  # wait until the new text is written to its temporary file
    assert list(path.parent.glob(".*.tmp")), "the writer never got to its temporary file"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert path.read_text() == before  # the old entry, whole
    catalog = load_catalog(path.parent)
    assert catalog.entries[ENTRY].status == "active" and not catalog.malformed()  # the stray .tmp is no entry


async def test_the_curator_records_failed_routes_merges_repeats_and_leaves_people_alone(tmp_path):
    from colosseum.catalog.curator import record_failed_routes
    from colosseum.loops.inner.records import InnerLoopConfig
    from colosseum.loops.inner.solve import solve
    from colosseum.models.scripted_provider import ScriptedProvider
    from test_inner_loop import CONTEXT, FLAWED_ANGLE, script

    result = await solve(CONTEXT, ScriptedProvider(script()), InnerLoopConfig(seed=4))
    folder = tmp_path / "knowledge"
    written = record_failed_routes(folder, "lem:resampling", result, "run-1", "claude-test")
    catalog = load_catalog(folder, with_starter=False)
    assert written and not catalog.malformed()
    (entry,) = [e for e in catalog.entries.values() if e.kind == "failed-route"]
    assert entry.data["target"] == {"label": "lem:resampling"} and entry.data["approach"] == FLAWED_ANGLE
    assert "union bound over dependent events" in entry.data["failure_point"]
    assert entry.data["provenance"]["run"] == "run-1"
    # the same route in a later run is merged, not written twice
    record_failed_routes(folder, "lem:resampling", result, "run-2", "claude-test")
    catalog = load_catalog(folder, with_starter=False)
    assert len([e for e in catalog.entries.values() if e.kind == "failed-route"]) == 1
    assert [s["run"] for s in catalog.entries[entry.id].data["also_seen"]] == ["run-2"]
    # an entry a person wrote is never rewritten by the curator
    text = entry.file.read_text().replace("author: colosseum", "author: Ada")
    entry.file.write_text(text)
    record_failed_routes(folder, "lem:resampling", result, "run-3", "claude-test")
    assert entry.file.read_text() == text


def test_knowledge_add_writes_a_valid_result_entry_for_a_claim(tmp_path):
    project = copy_example(tmp_path)
    run = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "add", str(project), "lem:edge-degree"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    entry, problems = read_entry(written_entry(project / "knowledge", "lem-edge-degree"))
    assert problems == [] and entry.kind == "result" and entry.data["proof"] == {"label": "lem:edge-degree"}
    missing = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "add", str(project), "lem:nowhere"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "no claim `lem:nowhere`" in missing.stderr


def test_knowledge_add_quotes_the_statement_without_blueprint_metadata(tmp_path):
    # FLT's `FLT`: the entry's statement began "\\lean{flt}\\n  \\leanok\\n  Fermat's Last Theorem"
    project = tmp_path / "p"
    project.mkdir()
    (project / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\begin{lemma}\\label{lem:a}A.\\end{lemma}\n"
        "\\begin{theorem}\n  \\label{FLT}\n  \\lean{flt}\n  \\leanok\n  \\uses{lem:a}\n"
        "  There are no positive integers $a,b,c$\\leanok{} with\n  $a^n+b^n=c^n$.\n\\end{theorem}\n\\end{document}\n")
    run = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "add", str(project), "FLT"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    entry, problems = read_entry(written_entry(project / "knowledge", "flt"))
    assert problems == []
    assert entry.data["statement"] == "There are no positive integers $a,b,c${} with\n  $a^n+b^n=c^n$."


def test_knowledge_add_leaves_the_claims_title_out_of_its_statement(tmp_path):
    # carleson: the entry for `monotone-cube-metrics` had title "monotone cube metrics" and a
    # statement beginning "[monotone cube metrics]" (the environment's optional argument)
    project = tmp_path / "p"
    project.mkdir()
    (project / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\begin{lemma}[monotone {[cube]} metrics]\n"
        "    \\label{lem:m}\n    \\leanok\n    Let $I \\subset J$. Then $[a, b]$ is closed.\n\\end{lemma}\n\\end{document}\n")
    run = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "add", str(project), "lem:m"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    entry, problems = read_entry(written_entry(project / "knowledge", "lem-m"))
    assert problems == [] and entry.data["title"] == "monotone {[cube]} metrics"
    assert entry.data["statement"] == "Let $I \\subset J$. Then $[a, b]$ is closed."


def test_knowledge_add_refuses_a_statement_kept_in_lean(tmp_path):
    # infinity-cosmos: `knowledge add` of \inputleannode{defn:coherent-isomorphism} wrote a "result"
    # entry whose statement was the label itself, "defn:coherent-isomorphism"
    project = tmp_path / "p"
    project.mkdir()
    (project / "main.tex").write_text(
        "\\documentclass{article}\n\\newcommand{\\inputleannode}[1]{}\n\\begin{document}\n"
        "\\inputleannode{defn:iso}\n\\end{document}\n")
    run = subprocess.run([sys.executable, "-m", "colosseum", "knowledge", "add", str(project), "defn:iso"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert "`defn:iso` is stated in Lean (\\inputleannode): the paper has no statement to quote" in run.stderr
    assert not (project / "knowledge").exists() or not list((project / "knowledge").glob("defn-iso-*.md"))


def test_a_retraction_says_how_many_claims_of_the_paper_it_makes_suspect(tmp_path):
    # carleson: "retracted `monotone-cube-metrics-fc8738`; now suspect: nothing else", then `check`
    # gave 114 colosseum/suspect warnings: "nothing else" meant no other catalog entry
    project = tmp_path / "p"
    project.mkdir()
    (project / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\begin{lemma}\\label{lem:a}A.\\end{lemma}\n"
        "\\begin{proof}Easy.\\end{proof}\n\\begin{theorem}\\label{thm:b}B.\\end{theorem}\n"
        "\\begin{proof}By \\ref{lem:a}.\\end{proof}\n\\begin{lemma}\\label{lem:c}C.\\end{lemma}\n\\end{document}\n")
    colosseum = [sys.executable, "-m", "colosseum", "knowledge"]
    assert subprocess.run(colosseum + ["add", str(project), "lem:a"], capture_output=True, timeout=60).returncode == 0
    entry = written_entry(project / "knowledge", "lem-a").stem
    run = subprocess.run(colosseum + ["retract", str(project), entry, "--reason", "wrong constant"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == (f"retracted `{entry}`; now suspect: no other catalog entry; in the paper, 2 claims "
                          "(`colosseum check` lists them)\n")
