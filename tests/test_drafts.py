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
    assert json.loads(out)["schema_version"] == 1
    [item] = json.loads(out)["obligations"]
    assert (item["id"], item["status"], item["draft"], item["draft_run"]) == ("lem:a", "draft", True, RUN)
    _, out, _ = run(capsys, "obligations", str(drafted))
    assert f"lem:a [draft of run {RUN}]" in out
    _, out, _ = run(capsys, "dag", str(drafted), "--format", "dot")
    (node,) = [line for line in out.splitlines() if line.strip().startswith('"lem:a" [')]
    assert "(draft)" in node  # its tooltip names the status


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


# ---- accept and reject -----------------------------------------------------------------------
@pytest.fixture
def reviewer(monkeypatch, tmp_path_factory) -> str:
    """git's user.name, from a config of the test's own (the machine's is not read)."""
    config = tmp_path_factory.mktemp("git") / "gitconfig"
    config.write_text("[user]\n\tname = Ada Author\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return "Ada Author"


def catalog_entries(project: Path) -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted((project / "knowledge").glob("*.md"))}


def write_run(project: Path, critiques: list[dict]) -> None:
    folder = project / ".colosseum" / "runs" / RUN
    folder.mkdir(parents=True)
    bundles = {"L0-1": {"level": 0, "strategy": "a leaf", "critiques": [{"severity": "fatal", "kind": "gap",
                                                                         "quote": "leaf", "explanation": "gone"}]},
               "R": {"level": 2, "strategy": "induction on n", "critiques": critiques}}
    (folder / "run.json").write_text(json.dumps({"label": "lem:a", "status": "done", "bundles": bundles}),
                                     encoding="utf-8")


def test_accept_removes_only_the_marker_and_records_a_persons_review(drafted, reviewer, capsys):
    code, out, _ = run(capsys, "draft", "accept", str(drafted), "--label", "lem:a")
    assert code == 0
    assert (drafted / "main.tex").read_text(encoding="utf-8") == paper(DRAFT.replace(f" % colosseum: draft {RUN}", ""))
    assert "main.tex:8" in out and "accepted the draft of `lem:a`" in out and RUN in out
    assert f"- % colosseum: draft {RUN}\n" in out
    [(entry_id, text)] = catalog_entries(drafted).items()
    assert f"`{entry_id}`" in out
    assert "reviewed_by: person" in text and f"reviewer: {reviewer}" in text and f"run: {RUN}" in text
    code, _, _ = run(capsys, "knowledge", "check", str(drafted))
    assert code == 0  # the entry validates against knowledge/schema.json
    index = ProjectIndex.open(drafted)
    assert (index.graph.status["lem:a"], index.graph.status["thm:b"]) == ("proved", "proved")


def test_accept_of_a_marker_on_its_own_line_removes_the_line(make_project, tmp_path, reviewer, capsys):
    alone = DRAFT.replace(f" % colosseum: draft {RUN}\n", f"\n  % colosseum: draft {RUN}\n")
    project = make_project(tmp_path, {"main.tex": paper(alone)})
    assert run(capsys, "draft", "accept", str(project), "--label", "lem:a")[0] == 0
    assert (project / "main.tex").read_text(encoding="utf-8") == paper(DRAFT.replace(f" % colosseum: draft {RUN}", ""))


def test_reject_removes_the_proof_and_records_the_runs_surviving_critiques(drafted, reviewer, capsys):
    write_run(drafted, [{"severity": "major", "kind": "gap", "quote": "Because of B.", "explanation": "B is not shown"},
                        {"severity": "fatal", "kind": "error", "quote": "Because", "explanation": "circular"}])
    code, out, _ = run(capsys, "draft", "reject", str(drafted), "--label", "lem:a")
    assert code == 0
    assert (drafted / "main.tex").read_text(encoding="utf-8") == paper("")
    assert "rejected the draft of `lem:a`" in out and "removed its proof (3 lines)" in out
    assert "- \\begin{proof} % colosseum" in out and "- Because of B.\n- \\end{proof}\n" in out
    [(entry_id, text)] = catalog_entries(drafted).items()
    assert entry_id.startswith("failed-lem-a-induction-on-n") and f"`{entry_id}`" in out
    # the worst survivor first, the others as further failures; the leaf's resolved critique is not there
    assert "critique: 'fatal error: circular'" in text and "major gap: B is not shown" in text
    assert "gone" not in text and "Because of B." in text and "author: Ada Author" in text
    assert run(capsys, "knowledge", "check", str(drafted))[0] == 0
    index = ProjectIndex.open(drafted)
    assert index.graph.status["lem:a"] == "obligation"


def test_reject_without_a_run_folder_still_records_the_rejection(drafted, reviewer, capsys):
    assert run(capsys, "draft", "reject", str(drafted), "--label", "lem:a")[0] == 0
    [text] = catalog_entries(drafted).values()
    assert "kind: failed-route" in text and "rejected by Ada Author" in text


def test_a_claim_without_a_draft_is_refused_and_nothing_changes(make_project, tmp_path, capsys):
    own = paper(DRAFT.replace(f" % colosseum: draft {RUN}", ""))
    project = make_project(tmp_path, {"main.tex": own})
    for label in ("lem:a", "lem:none"):
        code, _, err = run(capsys, "draft", "accept", str(project), "--label", label)
        assert code == 2 and label in err
    assert (project / "main.tex").read_text(encoding="utf-8") == own
    assert not (project / "knowledge").exists()


def test_a_section_holding_a_draft_reads_draft_unless_it_holds_worse(make_project, tmp_path):
    body = "\\section{One}\\label{sec:one}\n" + LEMMA + DRAFT + "\\section{Two}\\label{sec:two}\n" + THEOREM
    index = ProjectIndex.open(make_project(tmp_path, {"main.tex": PREAMBLE + body + "\\end{document}\n"}))
    assert (index.graph.status["sec:one"], index.graph.status["sec:two"]) == ("draft", "conditional")
    open_lemma = "\\begin{lemma}\\label{lem:o}\\obligation\nO.\n\\end{lemma}\n"
    index = ProjectIndex.open(make_project(tmp_path / "worse", {
        "main.tex": PREAMBLE + body.replace("\\section{Two}", open_lemma + "\\section{Two}") + "\\end{document}\n"}))
    assert index.graph.status["sec:one"] == "obligation"


def test_model_review_is_proof_reviewed_by_model_and_acceptance_adds_the_persons(tmp_path, reviewer):
    from colosseum.catalog.curator import record_reviewed_proof
    from colosseum.catalog.reviews import record_draft_accepted
    from colosseum.catalog.store import load_catalog, read_entry

    catalog = tmp_path / "knowledge"
    first = record_reviewed_proof(catalog, "lem:a", "A holds.", "passed its local review", "draft.tex", RUN, "m")
    second = record_draft_accepted(catalog, "lem:a", "A holds.", RUN, reviewer, "main.tex:5")
    assert first == second  # the same observation gains the person's review
    entry = load_catalog(catalog, with_starter=False).entries[first]
    assert [(e["type"], e["reviewed_by"], e.get("reviewer")) for e in entry.data["evidence"]] == \
        [("proof", "model", f"m (run {RUN})"), ("proof", "person", reviewer)]
    assert read_entry(entry.file)[1] == []  # valid against knowledge/schema.json
