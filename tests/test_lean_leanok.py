"""What a \\leanok claims, checked against Lean (the scripted `lake serve` double, the real
leanclient). leanblueprint's \\leanok in a statement says "the statement is formalized" (its proof
may still be `sorry`); in a proof, or on a claim with no proof of its own, it says the proof is
formalized. A \\leanok whose claim Lean refutes is an error on that \\leanok; a claim is formal
only when no sorry and only the standard axioms remain."""

from __future__ import annotations

import json

from colosseum.index import ProjectIndex
from colosseum.lean import apply_formal, check_lean, claim_results, formal_ids, lean_diagnostics, leanok_insertions
from colosseum.lean.findings import CODE_CHECKED, CODE_FAILED, CODE_STATEMENT
from colosseum.core.schema_version import SCHEMA_VERSION
from test_lean_cli import env_with, paper, run
from test_lean_engine import lake_double, make_paper  # noqa: F401 - lake_double: a fixture

BASIC = """\
namespace Paper

theorem stmt_only : 1 + 1 = 2 := by
  sorry

theorem proof_sorry : 2 + 2 = 4 := by
  sorry

theorem noproof_sorry : 3 = 3 := by
  sorry

theorem ok_a : True := trivial

theorem ok_b : True := trivial

theorem ok_c : True := trivial

theorem classical : True := trivial

end Paper
"""
MAIN = r"""
\documentclass{article}
\usepackage{amsthm}
\newtheorem{lemma}{Lemma}
\begin{document}
\begin{lemma}\label{lem:stmt-only}\lean{Paper.stmt_only}\leanok
  A statement formalized, its proof not yet.
\end{lemma}
\begin{proof}
  By hand.
\end{proof}
\begin{lemma}\label{lem:proof-sorry}\lean{Paper.proof_sorry}\leanok
  A proof marked formalized that is not.
\end{lemma}
\begin{proof}\leanok
  By hand.
\end{proof}
\begin{lemma}\label{lem:noproof-sorry}\lean{Paper.noproof_sorry}\leanok
  No proof of its own: its \leanok claims everything.
\end{lemma}
\begin{lemma}\label{lem:stmt-missing}\lean{Paper.nowhere}\leanok
  A statement said formalized whose declaration does not exist.
\end{lemma}
\begin{proof}
  By hand.
\end{proof}
\begin{lemma}\label{lem:stmt-ok}\lean{Paper.ok_a}\leanok
  Checked; its proof is not marked yet.
\end{lemma}
\begin{proof}[By hand]
  Trivial.
\end{proof}
\begin{lemma}\label{lem:proof-ok}\lean{Paper.ok_b}
  Checked; only its proof is marked.
\end{lemma}
\begin{proof}\leanok
  Trivial.
\end{proof}
\begin{lemma}\label{lem:full}\lean{Paper.ok_c}\leanok
  Checked and marked everywhere.
\end{lemma}
\begin{proof}\leanok
  Trivial.
\end{proof}
\begin{lemma}\label{lem:axiom}\lean{Paper.classical}\leanok
  Its statement is formalized; the proof trusts the compiler.
\end{lemma}
\begin{proof}
  Trivial.
\end{proof}
\end{document}
"""
DECLS = {name: {"module": "Paper.Basic", "axioms": axioms} for name, axioms in {
    "Paper.stmt_only": ["sorryAx"], "Paper.proof_sorry": ["propext", "sorryAx"], "Paper.noproof_sorry": ["sorryAx"],
    "Paper.ok_a": [], "Paper.ok_b": ["propext"], "Paper.ok_c": ["Classical.choice", "Quot.sound", "propext"],
    "Paper.classical": ["Lean.ofReduceBool"]}.items()}


def checked(make_project, tmp_path, lake_double):
    lake_double({"declarations": DECLS})
    root = make_paper(make_project, tmp_path, MAIN, {"paper/lean/Paper/Basic.lean": BASIC})
    index = ProjectIndex.open(root)
    return root, index, check_lean(index)


def test_each_leanok_is_checked_for_what_it_claims(make_project, tmp_path, lake_double):
    root, index, report = checked(make_project, tmp_path, lake_double)
    lines = (root / "main.tex").read_text().splitlines()
    assert {r.id: r.status for r in claim_results(index, report)} == {
        "lem:stmt-only": "statement", "lem:proof-sorry": "statement", "lem:noproof-sorry": "statement",
        "lem:stmt-missing": "failed", "lem:stmt-ok": "formal", "lem:proof-ok": "formal", "lem:full": "formal",
        "lem:axiom": "statement"}
    found = {}
    for d in lean_diagnostics(index, report):
        found.setdefault(d.message.split("`")[1], []).append(d)
    # a statement marked formalized whose proof uses sorry: what it claims holds; said as information
    (stmt,) = found["lem:stmt-only"]
    assert stmt.severity == "information" and stmt.code == CODE_STATEMENT and "statement formalized" in stmt.message
    (axiom,) = found["lem:axiom"]
    assert axiom.severity == "information" and axiom.code == CODE_STATEMENT and "Lean.ofReduceBool" in axiom.message
    # a proof marked formalized that uses sorry: an error on the proof's \leanok
    (proof,) = found["lem:proof-sorry"]
    assert proof.severity == "error" and proof.code == CODE_FAILED and "its proof is marked" in proof.message
    assert lines[proof.range.start.line] == "\\begin{proof}\\leanok"
    assert lines[proof.range.start.line][proof.range.start.character:proof.range.end.character] == "\\leanok"
    # no proof of its own: the statement's \leanok claims the proof too
    (whole,) = found["lem:noproof-sorry"]
    assert whole.severity == "error" and lines[whole.range.start.line].startswith("\\begin{lemma}\\label{lem:noproof")
    # a statement marked formalized whose declaration does not exist: an error on that \leanok
    (missing,) = found["lem:stmt-missing"]
    assert missing.severity == "error" and "its statement is marked \\leanok" in missing.message
    assert lines[missing.range.start.line][missing.range.start.character:missing.range.end.character] == "\\leanok"
    # checked, not marked everywhere: a hint, and the quick fix adds only the missing \leanok
    assert [d.code for d in found["lem:stmt-ok"]] == [CODE_CHECKED] == [d.code for d in found["lem:proof-ok"]]
    assert "lem:full" not in found
    only_proof = leanok_insertions(index, index.claims["lem:stmt-ok"])
    assert [lines[p.line][:p.character] for _f, p in only_proof] == ["\\begin{proof}[By hand]"]
    only_statement = leanok_insertions(index, index.claims["lem:proof-ok"])
    assert [lines[p.line][:p.character] for _f, p in only_statement] == [
        "\\begin{lemma}\\label{lem:proof-ok}\\lean{Paper.ok_b}"]


def test_only_a_fully_checked_claim_is_formal_in_the_dag(make_project, tmp_path, lake_double):
    _root, index, report = checked(make_project, tmp_path, lake_double)
    apply_formal(index, formal_ids(claim_results(index, report)))
    formal = {cid for cid, status in index.graph.status.items() if status == "formal"}
    assert formal == {"lem:stmt-ok", "lem:proof-ok", "lem:full"}


def test_a_statement_formalized_with_its_proof_unmarked_is_no_failure_for_the_cli(tmp_path):
    project = paper(tmp_path)
    section = project / "sections" / "local-structure.tex"
    section.write_text(section.read_text().replace("\\begin{proof}\n  \\leanok\n", "\\begin{proof}\n"))
    script = {"declarations": {"ExampleProject.edge_degree_bound": {"module": "ExampleProject.Basic",
                                                                    "axioms": ["propext", "sorryAx"]}}}
    result = run(project, env_with(tmp_path, script), "--format", "json", "--no-catalog")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["schema_version"] == SCHEMA_VERSION
    (claim,) = json.loads(result.stdout)["claims"]
    assert claim["status"] == "statement" and claim["leanok_statement"] and not claim["leanok_proof"]
    (finding,) = json.loads(result.stdout)["diagnostics"]
    assert finding["severity"] == "information" and finding["code"] == CODE_STATEMENT
