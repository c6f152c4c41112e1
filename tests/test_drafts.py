"""A model's proof is a draft (issue 14): the marker ``% colosseum: draft <run-id>`` on a proof's
first line makes its claim's status ``draft``; what rests on it stays conditional; the JSON
outputs say so; a finding asks a person to accept or reject it; and ``colosseum draft`` does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from colosseum.checks.drafts import DRAFT_CODE
from colosseum.cli.main import main
from colosseum.index import ProjectIndex

RUN = "20261204-solve-lem-a"
PREAMBLE = "\\documentclass{article}\n\\newtheorem{lemma}{Lemma}\n\\newtheorem{theorem}{Theorem}\n\\begin{document}\n"
LEMMA = "\\begin{lemma}\\label{lem:a}\\obligation\nA holds.\n\\end{lemma}\n"
DRAFT = f"\\begin{{proof}} % colosseum: draft {RUN}\nBecause of B.\n\\end{{proof}}\n"
THEOREM = "\\begin{theorem}\\label{thm:b}\nB holds.\n\\end{theorem}\n\\begin{proof}\nBy \\cref{lem:a}.\n\\end{proof}\n"


def paper(proof: str = DRAFT) -> str:
    return PREAMBLE + LEMMA + proof + THEOREM + "\\end{document}\n"


@pytest.fixture
def drafted(make_project, tmp_path) -> Path:
    return make_project(tmp_path, {"main.tex": paper()})


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- the index -------------------------------------------------------------------------------
def test_a_marked_proof_makes_a_draft_and_its_dependents_conditional(drafted):
    index = ProjectIndex.open(drafted)
    assert index.graph.status["lem:a"] == "draft"
    assert index.graph.status["thm:b"] == "conditional"
    assert index.graph.conditional_on["thm:b"] == ["lem:a", "thm:b"]


@pytest.mark.parametrize("proof", [
    DRAFT.replace(f"% colosseum: draft {RUN}\n", f"\n% colosseum: draft {RUN}\n"),  # the proof's first line
    DRAFT.replace("\\begin{proof}", "\\begin{proof}[Proof of \\cref{lem:a}]"),  # after the optional argument
])
def test_the_marker_is_read_on_the_proofs_first_line(make_project, tmp_path, proof):
    index = ProjectIndex.open(make_project(tmp_path, {"main.tex": paper(proof)}))
    assert index.graph.status["lem:a"] == "draft"
    assert index.claims["lem:a"].proof.draft_run == RUN


def test_a_marker_deeper_in_the_proof_or_none_leaves_it_proved(make_project, tmp_path):
    deeper = DRAFT.replace(f" % colosseum: draft {RUN}\nBecause of B.", f"\nBecause of B.\n% colosseum: draft {RUN}")
    for proof in (deeper, "\\begin{proof}\nBecause of B.\n\\end{proof}\n"):
        index = ProjectIndex.open(make_project(tmp_path, {"main.tex": paper(proof)}))
        assert index.graph.status["lem:a"] == "proved"
        assert index.graph.status["thm:b"] == "proved"


def test_an_edit_that_removes_the_marker_settles_the_claim_and_its_dependents(drafted):
    index = ProjectIndex.open(drafted)
    index.update_document(drafted / "main.tex", paper(DRAFT.replace(f" % colosseum: draft {RUN}", "")))
    assert index.graph.status["lem:a"] == "proved"
    assert index.graph.status["thm:b"] == "proved"
    assert not [d for d in index.diagnostics() if d.code == DRAFT_CODE]
    index.update_document(drafted / "main.tex", paper())
    assert (index.graph.status["lem:a"], index.graph.status["thm:b"]) == ("draft", "conditional")


def test_dag_and_obligations_json_carry_the_draft_and_its_run(drafted, capsys):
    code, out, _ = run(capsys, "dag", str(drafted), "--format", "json")
    nodes = {n["id"]: n for n in json.loads(out)["nodes"]}
    assert code == 0
    assert nodes["lem:a"]["status"] == "draft"
    assert (nodes["lem:a"]["draft"], nodes["lem:a"]["draft_run"]) == (True, RUN)
    assert "draft" not in nodes["thm:b"] and nodes["thm:b"]["status"] == "conditional"
    code, out, _ = run(capsys, "obligations", str(drafted), "--format", "json")
    [item] = json.loads(out)["obligations"]
    assert (item["id"], item["status"], item["draft"], item["draft_run"]) == ("lem:a", "draft", True, RUN)
    _, out, _ = run(capsys, "obligations", str(drafted))
    assert f"lem:a [draft of run {RUN}]" in out
    _, out, _ = run(capsys, "dag", str(drafted), "--format", "dot")
    assert '"lem:a" [' in out and 'tooltip="draft"' in out


def test_the_finding_stands_on_the_marker_and_names_the_run(drafted, capsys):
    index = ProjectIndex.open(drafted)
    [found] = [d for d in index.diagnostics() if d.code == DRAFT_CODE]
    assert found.severity == "information"
    assert "`lem:a`" in found.message and RUN in found.message and "accept or reject" in found.message
    line = paper().splitlines()[found.range.start.line]
    assert line[found.range.start.character:found.range.end.character] == f"% colosseum: draft {RUN}"
    code, out, _ = run(capsys, "check", str(drafted))
    assert "colosseum/draft-proof" in out and code == 0
    assert "relies on the model's draft `lem:a`" in out
