"""The ``colosseum`` command line: formats, ordering and exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from colosseum.cli.main import main
from colosseum.core.schema_version import SCHEMA_VERSION

PREAMBLE = "\\documentclass{article}\n\\usepackage{amsthm}\n"
LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|information|hint) "
                  r"(?P<code>colosseum/[a-z0-9-]+): (?P<message>.+)$")


def doc(body: str) -> str:
    return PREAMBLE + "\\begin{document}\n" + body + "\n\\end{document}\n"


@pytest.fixture
def broken(make_project, tmp_path):
    """A project with errors in two files, a warning and a hint."""
    return make_project(tmp_path, {
        "main.tex": doc(
            "\\section{Start}\\label{sec:start}\n"
            "See \\cref{lem:missing}.\n"                                          # line 5: error
            "\\begin{lemma}\\label{lem:ob}\\obligation Hard.\\end{lemma}\n"       # line 6
            "\\begin{lemma}\\label{lem:use}Easy.\\end{lemma}\n"                   # line 7: warning
            "\\begin{proof}By \\cref{lem:ob}.\\end{proof}\n"
            "\\begin{lemma}\\label{lem:lonely}Alone.\\end{lemma}\n"               # line 9: hint
            "\\input{sections/more}"),
        "sections/more.tex": "% more\n\\begin{lemma}\\label{lem:x}\\ref{lem:use} \\ref{lem:x2}\\end{lemma}\n",
    })


@pytest.fixture
def clean(make_project, tmp_path):
    """Warnings and hints only."""
    return make_project(tmp_path, {"main.tex": doc(
        "\\begin{lemma}\\label{lem:ob}\\obligation Hard.\\end{lemma}\n"
        "\\begin{lemma}\\label{lem:use}Easy.\\end{lemma}\n"
        "\\begin{proof}By \\cref{lem:ob}.\\end{proof}\n")})


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- check -----------------------------------------------------------------------------------------


def test_check_text_format_sorted_and_exit_1_on_errors(broken, capsys):
    code, out, err = run(capsys, "check", str(broken))
    assert code == 1
    lines = out.splitlines()
    assert lines, out
    parsed = []
    for line in lines:
        m = LINE.match(line)
        assert m, f"bad line: {line!r}"
        parsed.append(m)
    keys = [(m["file"], int(m["line"]), int(m["col"])) for m in parsed]
    assert keys == sorted(keys)
    found = {(m["file"], int(m["line"]), int(m["col"]), m["severity"], m["code"]) for m in parsed}
    assert ("main.tex", 5, 11, "error", "colosseum/undefined-reference") in found
    assert ("main.tex", 7, 1, "warning", "colosseum/depends-on-open-obligation") in found
    assert ("main.tex", 9, 21, "hint", "colosseum/unused-label") in found
    assert ("sections/more.tex", 2, 46, "error", "colosseum/undefined-reference") in found
    assert all(not m["file"].startswith("/") for m in parsed)
    assert "error" in err  # the summary goes to stderr, not into the machine-readable lines


def test_check_exit_0_with_only_warnings_and_hints(clean, capsys):
    code, out, _ = run(capsys, "check", str(clean))
    assert code == 0
    severities = {LINE.match(line)["severity"] for line in out.splitlines()}
    assert "warning" in severities and "error" not in severities


def test_check_exit_0_and_empty_output_for_a_clean_project(make_project, tmp_path, capsys):
    root = make_project(tmp_path, {"main.tex": doc("Nothing to see.")})
    code, out, _ = run(capsys, "check", str(root))
    assert code == 0
    assert out == ""


def test_check_json_schema(broken, capsys):
    code, out, _ = run(capsys, "check", str(broken), "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert set(data) == {"schema_version", "diagnostics"} and data["schema_version"] == SCHEMA_VERSION
    records = data["diagnostics"]
    assert records
    for rec in records:
        assert set(rec) == {"file", "line", "column", "severity", "code", "message"}
        assert isinstance(rec["line"], int) and rec["line"] >= 1
        assert isinstance(rec["column"], int) and rec["column"] >= 1
        assert rec["severity"] in ("error", "warning", "information", "hint")
        assert rec["code"].startswith("colosseum/")
        assert not rec["file"].startswith("/") and "\\" not in rec["file"]
    assert {"file": "main.tex", "line": 5, "column": 11, "severity": "error",
            "code": "colosseum/undefined-reference"} in [{k: r[k] for k in r if k != "message"} for r in records]
    _, text, _ = run(capsys, "check", str(broken))
    assert len(text.splitlines()) == len(records)
    assert [(r["file"], r["line"], r["column"]) for r in records] == [
        (m["file"], int(m["line"]), int(m["col"])) for m in map(LINE.match, text.splitlines())]


def test_check_json_column_is_utf16_and_one_based(make_project, tmp_path, capsys):
    root = make_project(tmp_path, {"main.tex": doc("\U0001D53D \\ref{nope}")})
    _, out, _ = run(capsys, "check", str(root), "--format", "json")
    (rec,) = json.loads(out)["diagnostics"]
    assert (rec["line"], rec["column"]) == (4, 9)


def test_check_accepts_the_root_file(broken, capsys):
    code, out, _ = run(capsys, "check", str(broken / "main.tex"), "--format", "json")
    assert code == 1
    assert {r["file"] for r in json.loads(out)["diagnostics"]} == {"main.tex", "sections/more.tex"}


@pytest.mark.parametrize("part, first_line", [
    ("sections/more.tex", "% !TEX root = ../main.tex\n"),
    ("sections/more.tex", "\\documentclass[../main]{subfiles}\n"),  # a subfiles child names its main file
])
def test_check_of_a_part_naming_its_root_checks_the_root_project(broken, capsys, part, first_line):
    path = broken / part
    path.write_text(first_line + path.read_text())
    whole = json.loads(run(capsys, "check", str(broken / "main.tex"), "--format", "json")[1])
    code, out, err = run(capsys, "check", str(path), "--format", "json")
    assert code == 1
    assert json.loads(out) == whole  # not the part's labels alone: no false undefined references
    assert {r["file"] for r in whole["diagnostics"]} == {"main.tex", "sections/more.tex"}
    assert err.count("\n") == 1 and "is part of" in err and "main.tex" in err, err


def test_check_of_a_root_with_a_magic_comment_naming_itself(broken, capsys):
    main_file = broken / "main.tex"
    main_file.write_text("% !TEX root = main.tex\n" + main_file.read_text())
    code, out, err = run(capsys, "check", str(main_file), "--format", "json")
    assert code == 1 and "is part of" not in err


# ---- dag -------------------------------------------------------------------------------------------


def test_dag_json_schema(broken, capsys):
    code, out, _ = run(capsys, "dag", str(broken), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"schema_version", "nodes", "edges"} and data["schema_version"] == SCHEMA_VERSION
    for node in data["nodes"]:
        section_only = {"holds"} if node["kind"] == "section" else set()
        assert set(node) == {"id", "kind", "title", "file", "line", "status", "formal", "lean_checked"} | section_only
        assert node["status"] in ("proved", "open", "obligation", "conditional", "stated")
        assert isinstance(node["formal"], bool)
        assert node["line"] >= 1
    for edge in data["edges"]:
        assert set(edge) == {"source", "target", "kind"}
        assert edge["kind"] in ("statement-uses", "proof-uses", "contains")
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes["lem:ob"] == {"id": "lem:ob", "kind": "lemma", "title": None, "file": "main.tex", "line": 6,
                               "status": "obligation", "formal": False, "lean_checked": False}
    assert nodes["lem:use"]["status"] == "conditional"
    assert nodes["sec:start"]["kind"] == "section"
    assert nodes["lem:x"]["file"] == "sections/more.tex"
    edges = {(e["source"], e["target"], e["kind"]) for e in data["edges"]}
    assert ("lem:ob", "lem:use", "proof-uses") in edges
    assert ("lem:use", "lem:x", "statement-uses") in edges
    assert ("sec:start", "lem:ob", "contains") in edges
    ids = set(nodes)
    assert all(e["source"] in ids and e["target"] in ids for e in data["edges"])


def test_dag_json_is_the_default(broken, capsys):
    _, default, _ = run(capsys, "dag", str(broken))
    _, explicit, _ = run(capsys, "dag", str(broken), "--format", "json")
    assert default == explicit


def test_dag_dot(broken, capsys):
    code, out, _ = run(capsys, "dag", str(broken), "--format", "dot")
    assert code == 0
    assert out.startswith("digraph")
    assert out.rstrip().endswith("}")
    assert re.search(r'"lem:ob" -> "lem:use" \[[^\]]*proof-uses', out)
    assert '"lem:x" [' in out


def test_dag_mermaid(broken, capsys):
    code, out, _ = run(capsys, "dag", str(broken), "--format", "mermaid")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("graph ")
    ids = {m.group(2): m.group(1) for m in re.finditer(r'^\s*(n\d+)\["(.+?)(?:: [^"]*)?"\]', out, re.M)}
    assert {"lem:ob", "lem:use", "lem:x", "sec:start"} <= set(ids)
    assert re.search(rf"^\s*{ids['lem:ob']} \S+ {ids['lem:use']}\s*$", out, re.M) or \
        re.search(rf"^\s*{ids['lem:ob']} \S+\|proof-uses\| {ids['lem:use']}\s*$", out, re.M)


# ---- obligations -------------------------------------------------------------------------------------


def test_obligations_in_solve_order(make_project, tmp_path, capsys):
    root = make_project(tmp_path, {"main.tex": doc(
        "\\begin{lemma}\\label{ob:late}\\obligation Needs the base.\\end{lemma}\n"
        "\\begin{proof}\\obligation By \\cref{lem:mid}.\\end{proof}\n"
        "\\begin{lemma}\\label{lem:mid}Middle.\\end{lemma}\n"
        "\\begin{proof}By \\cref{ob:base}.\\end{proof}\n"
        "\\begin{lemma}\\label{ob:base}\\obligation The base.\\end{lemma}\n"
        "\\begin{lemma}\\label{ob:free}\\obligation Independent.\\end{lemma}\n")})
    code, out, _ = run(capsys, "obligations", str(root), "--format", "json")
    assert code == 0
    assert json.loads(out)["schema_version"] == SCHEMA_VERSION
    plan = json.loads(out)["obligations"]
    ids = [p["id"] for p in plan]
    assert sorted(ids) == ["ob:base", "ob:free", "ob:late"]
    assert ids.index("ob:base") < ids.index("ob:late")
    late = next(p for p in plan if p["id"] == "ob:late")
    assert "ob:base" in late["waits_on"]
    assert [p["generation"] for p in plan] == sorted(p["generation"] for p in plan)
    code, text, _ = run(capsys, "obligations", str(root))
    assert code == 0
    assert [re.match(r"\d+\. (\S+) ", line).group(1) for line in text.splitlines()] == ids


def test_obligations_text_is_numbered_as_a_list_with_the_generation_apart(make_project, tmp_path, capsys):
    # one obligation resting on proved claims printed as "3. ob:top ..." (its DAG generation)
    root = make_project(tmp_path, {"main.tex": doc(
        "\\begin{lemma}\\label{lem:a}A.\\end{lemma}\n\\begin{proof}Clear.\\end{proof}\n"
        "\\begin{lemma}\\label{lem:b}B.\\end{lemma}\n\\begin{proof}By \\cref{lem:a}.\\end{proof}\n"
        "\\begin{theorem}\\label{ob:top}\\obligation By \\cref{lem:b}.\\end{theorem}\n")})
    code, text, _ = run(capsys, "obligations", str(root))
    assert code == 0
    (line,) = text.splitlines()
    assert line.startswith("1. ob:top [obligation] main.tex:") and "(generation 3)" in line


def test_a_folder_of_pdfs_is_told_that_colosseum_reads_the_latex_sources(tmp_path, capsys):
    # "no root file (no .tex file with \\documentclass)" for a folder with no .tex file at all
    (tmp_path / "paper.pdf").write_bytes(b"%PDF-1.4\n")
    code, _, err = run(capsys, "check", str(tmp_path))
    assert code == 2
    assert "no .tex file in this folder (only paper.pdf: colosseum reads the LaTeX sources, not a PDF)" in err
    (tmp_path / "notes.tex").write_text("No document class here.\n")
    code, _, err = run(capsys, "check", str(tmp_path))
    assert code == 2 and "no root file (no .tex file with \\documentclass)" in err


def test_the_check_summary_says_one_claim_not_one_claims(make_project, tmp_path, capsys):
    root = make_project(tmp_path, {"main.tex": doc("\\begin{lemma}\\label{lem:a}See \\ref{lem:none}.\\end{lemma}\n")})
    code, _, err = run(capsys, "check", str(root))
    assert code == 1
    assert "1 claim, 0 sections, 0 dependency edges in 1 root: 1 error, 0 warnings, 1 note" in err


def test_the_check_summary_counts_the_dependency_edges_as_dag_does(make_project, tmp_path, capsys):
    # carleson: check said "900 edges" and the graph page "689 dependency edges": check counted the
    # 211 section-holds-claim edges too, which are no dependency
    root = make_project(tmp_path, {"main.tex": doc(
        "\\section{A}\\begin{lemma}\\label{lem:a}A.\\end{lemma}\\begin{proof}Easy.\\end{proof}\n"
        "\\begin{theorem}\\label{thm:b}B.\\end{theorem}\\begin{proof}By \\ref{lem:a}.\\end{proof}\n")})
    code, _, err = run(capsys, "check", str(root))
    assert code == 0
    assert "2 claims, 1 section, 1 dependency edge in 1 root:" in err


def test_a_chapter_given_alone_is_said_to_be_checked_alone(make_project, tmp_path, capsys):
    # FLT's chapter/ch04overview.tex given to check: 11 "undefined reference" errors, each label
    # defined in another chapter, and no word of why
    root = make_project(tmp_path, {"main.tex": doc("\\input{ch1}\n\\input{ch2}\n"),
                                   "ch1.tex": "\\begin{lemma}\\label{lem:a}A.\\end{lemma}\n",
                                   "ch2.tex": "\\begin{theorem}\\label{thm:b}By \\cref{lem:a}.\\end{theorem}\n"})
    code, _, err = run(capsys, "check", str(root / "ch2.tex"))
    assert code == 1
    assert "ch2.tex has no \\documentclass, so it is checked alone" in err
    code, _, err = run(capsys, "check", str(root / "main.tex"))
    assert code == 0 and "checked alone" not in err


def test_a_part_given_by_its_absolute_path_names_its_root_absolutely(make_project, tmp_path, capsys, monkeypatch):
    root = make_project(tmp_path / "p", {"main.tex": doc("\\input{ch/b}\n"),
                                         "ch/b.tex": "% !TEX root = ../main.tex\nText.\n"})
    elsewhere = tmp_path / "elsewhere" / "deep"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    _, _, err = run(capsys, "check", str(root / "ch" / "b.tex"))
    assert f"is part of {(root / 'main.tex').resolve()}: reading that project" in err


def test_obligations_none(make_project, tmp_path, capsys):
    root = make_project(tmp_path, {"main.tex": doc("\\begin{lemma}\\label{a}x\\end{lemma}")})
    code, out, _ = run(capsys, "obligations", str(root))
    assert code == 0
    assert "no obligations" in out


# ---- errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["check", "dag", "obligations"])
def test_nonexistent_path_exits_2(tmp_path, capsys, command):
    missing = tmp_path / "no-such-project"
    code, out, err = run(capsys, command, str(missing))
    assert code == 2
    assert out == ""
    assert str(missing) in err
    assert "no such file" in err.lower()


def test_directory_without_root_exits_2(make_project, tmp_path, capsys):
    root = make_project(tmp_path, {"notes.tex": "Just notes \\label{x}.\n"})
    code, out, err = run(capsys, "check", str(root))
    assert code == 2
    assert out == ""
    assert "no root" in err.lower()


def test_console_entry_point(broken):
    proc = subprocess.run([sys.executable, "-m", "colosseum", "check", str(broken), "--format", "json"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["diagnostics"]
    proc = subprocess.run([sys.executable, "-m", "colosseum", "check", str(broken / "nope")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "colosseum:" in proc.stderr


def test_check_starts_without_the_model_layer(clean):
    """`colosseum check` runs many times a day: building the parser must not import what only the
    model-driven commands need (asyncio alone is a quarter of a cold check's start-up), nor the
    knowledge catalog's code and YAML when the paper has no catalog (a fifth of check's imports), nor
    json for a text report."""
    probe = ("import sys\nfrom colosseum.cli.main import main\ncode = main(['check', sys.argv[1]])\n"
             "heavy = sorted(m for m in ('asyncio', 'ssl', 'anthropic', 'colosseum.models', 'colosseum.loops.inner', "
             "'tomllib', 'yaml', 'json', 'jsonschema', 'referencing', 'attr', 'attrs', 'colosseum.catalog.curator', "
             "'colosseum.catalog.store') if m in sys.modules)\n"
             "print('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", probe, str(clean)], capture_output=True, text=True, timeout=60)
    assert "HEAVY" in out.stdout, out.stderr
    assert out.stdout.split("HEAVY", 1)[1].strip() == "[]"


HEAVY_FOR_A_REPORT = ("asyncio", "ssl", "subprocess", "anthropic", "openai", "httpx", "networkx", "yaml", "tomllib",
                      "pygls", "colosseum_lsp", "colosseum.models", "colosseum.loops", "colosseum.lean",
                      "colosseum.catalog", "colosseum.probe", "colosseum.app.solve", "colosseum.app.research",
                      "colosseum.app.review", "colosseum.graph.html", "colosseum.graph.exchange",
                      "jsonschema", "jsonschema_specifications", "referencing", "attr", "attrs")


@pytest.mark.parametrize("command", [["check"], ["dag"], ["dag", "--format", "dot"], ["obligations"]])
def test_a_report_imports_none_of_the_heavy_packages(clean, command):
    """check, dag and obligations (issue #15: their start-up is a third of a blueprint's run): none
    of the model layer, the loops, Lean, the catalog, the server, networkx, nor a drawing they
    were not asked for, nor jsonschema/referencing/attrs (catalog validation only); a package counts
    with every module under it."""
    probe = ("import sys, contextlib, io\nfrom colosseum.cli.main import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n    main(sys.argv[2:] + [sys.argv[1]])\n"
             f"heavy = sorted(m for m in sys.modules if m in {HEAVY_FOR_A_REPORT!r} "
             f"or m.startswith(tuple(h + '.' for h in {HEAVY_FOR_A_REPORT!r})))\n"
             "print('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", probe, str(clean), *command], capture_output=True, text=True,
                         timeout=60)
    assert "HEAVY" in out.stdout, out.stderr
    assert out.stdout.split("HEAVY", 1)[1].strip() == "[]"


def test_check_loads_neither_the_exporters_nor_the_run_settings(clean):
    """`check` writes diagnostics only: the DAG exporters (and their LaTeX-to-text tables) and the
    run settings' dataclasses (built only for a [catalog] table that is written) stay unloaded."""
    probe = ("import sys, contextlib, io\nfrom colosseum.cli.main import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n    main(['check', sys.argv[1]])\n"
             "print('LOADED', sorted(m for m in ('colosseum.graph.export', 'colosseum.graph.plain_text', "
             "'colosseum.settings.tables') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", probe, str(clean)], capture_output=True, text=True, timeout=60)
    assert "LOADED" in out.stdout, out.stderr
    assert out.stdout.split("LOADED", 1)[1].strip() == "[]"


def test_a_lazy_regex_compiles_when_first_used_and_reads_as_the_pattern():
    from colosseum.core.lazy_regex import lazy_regex

    lazy = lazy_regex(r"\\(ref|label)\{([^}]*)\}", 0)
    assert "_compiled" not in vars(lazy)
    text = "a \\ref{x} b \\label{y}"
    assert [m.groups() for m in lazy.finditer(text)] == [("ref", "x"), ("label", "y")]
    assert "_compiled" in vars(lazy) and lazy.pattern == r"\\(ref|label)\{([^}]*)\}"
    assert lazy.compiled() is lazy.compiled()


def test_dag_formal_is_the_blueprint_marks(make_project, tmp_path, capsys):
    """`formal` is true where the author wrote \\leanok or \\mathlibok (the public format; no Lean
    run is needed to see it), and DOT titles break their line the way DOT reads it."""
    root = make_project(tmp_path, {"main.tex": doc(
        "\\begin{lemma}[Marked]\\label{lem:leanok}\\leanok A.\\end{lemma}\n"
        "\\begin{theorem}\\label{thm:mathlib}\\mathlibok B.\\end{theorem}\n"
        "\\begin{lemma}\\label{lem:plain} C by \\cref{lem:leanok,thm:mathlib}.\\end{lemma}\n")})
    code, out, _ = run(capsys, "dag", str(root))
    assert code == 0
    nodes = {n["id"]: n for n in json.loads(out)["nodes"]}
    assert (nodes["lem:leanok"]["formal"], nodes["thm:mathlib"]["formal"], nodes["lem:plain"]["formal"]) == (True, True, False)
    assert not any(n["lean_checked"] for n in nodes.values())  # nothing was checked by Lean here
    code, out, _ = run(capsys, "dag", str(root), "--format", "dot")
    assert '"lem:leanok" [label="lem:leanok\\nMarked"' in out


@pytest.mark.parametrize("command", ["dag", "check"])
def test_a_closed_stdout_ends_the_command_quietly(broken, command):
    """`colosseum dag . | head -1`: the reader is gone before the output is written."""
    proc = subprocess.Popen([sys.executable, "-m", "colosseum", command, str(broken), "--format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the only read end: every write of the command fails with EPIPE
    _, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err.decode()
    assert err == b""
    assert proc.returncode == 141  # as a shell reports a command ended by SIGPIPE


def test_solve_refuses_a_marked_claim_whose_proof_is_already_in_the_paper(make_project, tmp_path, capsys):
    # carleson: `% colosseum: obligation` before a lemma with a proof and \leanok; `solve --dry-run`
    # planned 49 calls ($3.92) and the run wrote a "model-reviewed proof" of it to the catalog
    project = make_project(tmp_path, {"main.tex": doc(
        "% colosseum: obligation\n"
        "\\begin{lemma}\\label{lem:done}\\leanok Done.\\end{lemma}\n"   # line 5
        "\\begin{proof}\\leanok By hand.\\end{proof}\n"                  # line 6
        "% colosseum: obligation\n"
        "\\begin{lemma}\\label{lem:owed}Owed.\\end{lemma}\n"
        "% colosseum: obligation\n"
        "\\begin{lemma}\\label{lem:sketch}Sketched.\\end{lemma}\n"
        "\\begin{proof}\\obligation A sketch.\\end{proof}\n")})
    assert main(["solve", str(project), "--label", "lem:done", "--dry-run"]) == 2
    captured = capsys.readouterr()
    assert "`lem:done` already has its proof (main.tex:6)" in captured.err and captured.out == ""
    assert main(["solve", str(project), "--all-obligations", "--dry-run"]) == 0
    planned = capsys.readouterr().out
    assert "lem:owed" in planned and "lem:sketch" in planned and "lem:done" not in planned
