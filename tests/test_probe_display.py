"""Computation evidence kept apart (issue 18, contracts "Evidence kinds"): what a probe recorded in
the catalog (kind `computation` with its `range`, a verdict, a counterexample's case) shows in its
own section of the hover, the graph, the reports, and as a finding on the claim, never as a proof."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from server_session import client, vscode_only  # noqa: F401 - fixture, requested by name

from colosseum.catalog.computation import computation_item, counterexample_item, record_computation
from colosseum.catalog.evidence import claim_evidence, evidence_sections
from colosseum.catalog.store import load_catalog, read_entry
from colosseum.core.structure import Position
from colosseum.index import ProjectIndex

PAPER = r"""\documentclass{article}
\newtheorem{lemma}{Lemma}
\newtheorem{theorem}{Theorem}
\begin{document}
\begin{lemma}\label{lem:euler}
For every integer $n \ge 0$, $n^2 + n + 41$ is prime.
\end{lemma}
\begin{lemma}\label{lem:sum}
For every $n \ge 1$, $1 + 2 + \dots + n = n(n+1)/2$.
\end{lemma}
\begin{theorem}\label{thm:plain}
Nothing was run on this one, by \cref{lem:sum}.
\end{theorem}
\begin{proof}By \cref{lem:sum}.\end{proof}
\end{document}
"""
EULER_RUN = "20261204-120000-probe-lem_euler"
SUM_RUN = "20261204-120500-probe-lem_sum"
STATEMENTS = {"lem:euler": r"For every integer $n \ge 0$, $n^2 + n + 41$ is prime.",
              "lem:sum": r"For every $n \ge 1$, $1 + 2 + \dots + n = n(n+1)/2$."}


def entry_file(folder: Path, wanted: str) -> Path:
    """The entry the engine wrote as ``wanted``, with or without a writer's suffix (``-3fa2c1``)."""
    import re

    found = [p for p in folder.glob(f"{wanted}*.md") if re.fullmatch(re.escape(wanted) + r"(-[0-9a-f]{6})?\.md", p.name)]
    assert len(found) == 1, f"expected one {wanted}.md in {folder}, found {[p.name for p in found]}"
    return found[0]


def _artifact(run: str) -> str:
    return f".colosseum/runs/{run}/run.json"


def paper(tmp_path: Path, with_evidence: bool = True) -> Path:
    """The paper, and in its catalog what two probes recorded: lem:sum held for 1 <= n <= 30, a
    counterexample to lem:euler at n = 40 (written by the probe's own writers)."""
    folder = tmp_path / "paper"
    folder.mkdir(parents=True)
    (folder / "main.tex").write_text(PAPER)
    if with_evidence:
        record_evidence(folder)
    return folder


def record_evidence(folder: Path) -> None:
    knowledge = folder / "knowledge"
    record_computation(knowledge, "lem:sum", STATEMENTS["lem:sum"],
                       computation_item({"n": [1, 30]}, 30, _artifact(SUM_RUN), "claude-double"), SUM_RUN,
                       "claude-double")
    record_computation(knowledge, "lem:euler", STATEMENTS["lem:euler"],
                       counterexample_item({"n": [0, 40]}, "n = 40: 1681 = 41^2", _artifact(EULER_RUN),
                                           "claude-double"), EULER_RUN, "claude-double")


# --------------------------------------------------------------------------------------------------
# the catalog and the engine's view of it


def test_a_counterexample_is_recorded_valid_and_apart_from_the_consistent_observation(tmp_path):
    folder = paper(tmp_path)
    entry, problems = read_entry(entry_file(folder / "knowledge", "counterexample-to-lem-euler"))
    assert problems == []  # verdict and counterexample are fields of knowledge/schema.json
    (item,) = entry.data["evidence"]
    assert item["verdict"] == "counterexample" and item["counterexample"] == "n = 40: 1681 = 41^2"
    assert entry.title == "A probe found a counterexample to lem:euler"
    assert entry_file(folder / "knowledge", "probe-of-lem-sum").is_file()


def test_the_engine_words_computation_apart_and_never_as_a_proof(tmp_path):
    catalog = load_catalog(paper(tmp_path) / "knowledge", with_starter=False)
    held = claim_evidence(catalog, "lem:sum")
    assert [i.kind for i in held.items] == ["computation"] and held.counterexamples == []
    text = "\n".join(evidence_sections(held))
    assert text.startswith("**Computation (not a proof)**")
    assert f"- checked for 1 ≤ n ≤ 30 — consistent (run {SUM_RUN})" in text
    assert "proved" not in text.lower() and "Model review" not in text
    failed = claim_evidence(catalog, "lem:euler")
    (case,) = failed.counterexamples
    assert case.run == EULER_RUN and case.checked == {"n": [0, 40]}
    assert f"counterexample found: n = 40: 1681 = 41^2 (run {EULER_RUN})" in "\n".join(evidence_sections(failed))
    assert claim_evidence(catalog, "thm:plain").items == ()
    assert failed.as_json()["computation"][0]["verdict"] == "counterexample"


def test_model_review_and_lean_each_have_their_own_section(tmp_path):
    from colosseum.catalog.curator import _write_entry

    knowledge = paper(tmp_path) / "knowledge"
    data = {"id": "review-of-lem-sum", "kind": "observation", "title": "lem:sum reviewed",
            "provenance": {"author": "colosseum", "run": "r1", "model": "m", "date": "2026-12-04"},
            "links": {"labels": ["lem:sum"], "entries": []}, "status": "active", "tags": [],
            "claim": "x", "strength": "formal",
            "evidence": [{"type": "proof", "description": "refuters found no error", "reviewed_by": "model",
                          "artifact": ".colosseum/runs/r1/run.json"},
                         {"type": "formal", "description": "Lean checked Sum.gauss", "artifact": "Sum.gauss"}]}
    _write_entry(knowledge / "review-of-lem-sum.md", data, "")
    text = "\n".join(evidence_sections(claim_evidence(load_catalog(knowledge, with_starter=False), "lem:sum")))
    computation, review, formal = (text.index(t) for t in ("**Computation (not a proof)**", "**Model review**",
                                                          "**Formal (Lean)**"))
    assert computation < review < formal
    assert "refuters found no error (run r1)" in text and "Lean checked Sum.gauss" in text


# --------------------------------------------------------------------------------------------------
# hover


def _hover(root: Path, label: str) -> str:
    from colosseum_lsp.context import FeatureContext, Project
    from colosseum_lsp.features.navigation import hover

    index = ProjectIndex.open(root)
    project = Project(root_dir=root, index=index)
    main = root / "main.tex"
    lines = main.read_text().splitlines()
    needle = f"\\label{{{label}}}"
    line = next(i for i, text in enumerate(lines) if needle in text)
    pos = Position(line, lines[line].index(needle) + len("\\label{") + 1)
    fc = FeatureContext(path=main, project=project, snapshot=index.snapshot, options=None, spawn=None,
                        progress=None, publish=lambda: None, state=project.state, document_version=lambda uri: None)
    return hover(fc, pos).contents.value


def test_hover_shows_computation_in_its_own_section(tmp_path):
    root = paper(tmp_path)
    shown = _hover(root, "lem:sum")
    assert "status: **open**" in shown  # a probe never makes a claim proved
    section = shown.split("**Computation (not a proof)**", 1)[1]
    assert f"checked for 1 ≤ n ≤ 30 — consistent (run {SUM_RUN})" in section.split("**Catalog**")[0]
    assert "counterexample found: n = 40: 1681 = 41^2" in _hover(root, "lem:euler")
    assert "Computation" not in _hover(root, "thm:plain")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The paper with its catalog, for the server the ``client`` fixture starts on it."""
    return paper(tmp_path)


@vscode_only
async def test_hover_over_the_protocol_shows_the_computation_section(client):
    """The same through the real server over stdio (pytest-lsp, as tests/test_server_*.py)."""
    from lsprotocol import types
    from server_session import _find, _open, _ready

    main = _open(client, "main.tex")
    await _ready(client, main)
    text = (client.project / "main.tex").read_text(encoding="utf-8")
    shown = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=main), position=_find(text, "lem:sum", client.encoding).start))
    value = shown.contents.value
    assert "**Computation (not a proof)**" in value and "status: **open**" in value
    assert f"checked for 1 ≤ n ≤ 30 — consistent (run {SUM_RUN})" in value
    at = _find(text, "lem:euler", client.encoding).start
    other = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=main), position=at))
    assert "counterexample found: n = 40: 1681 = 41^2" in other.contents.value
    # and the editor shows the counterexample as a warning on the claim
    from server_session import _codes, _publication

    published = await _publication(client, main, 0, lambda p: _codes(p, "colosseum/counterexample-found"),
                                   "the counterexample finding")
    (finding,) = _codes(published, "colosseum/counterexample-found")
    assert finding.severity == types.DiagnosticSeverity.Warning and "n = 40: 1681 = 41^2" in finding.message
    # the editor's dependency graph page marks them too
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="colosseum.showDependencyGraph", arguments=[main]))
    page = Path(result["path"]).read_text(encoding="utf-8")
    assert "checked on small cases (1)" in page and "counterexample found (1)" in page


# --------------------------------------------------------------------------------------------------
# the finding on a claim with a counterexample


def test_a_counterexample_in_the_catalog_is_a_warning_on_the_claim(tmp_path):
    from colosseum.catalog.checks import catalog_diagnostics

    root = paper(tmp_path)
    index = ProjectIndex.open(root)
    found = [d for d in catalog_diagnostics(load_catalog(root / "knowledge"), index)
             if d.code == "colosseum/counterexample-found"]
    (diag,) = found
    assert diag.severity == "warning" and diag.file == index.claims["lem:euler"].file
    assert diag.range == index.claims["lem:euler"].location.range
    assert "n = 40: 1681 = 41^2" in diag.message and EULER_RUN in diag.message and "not a proof" in diag.message
    assert diag.related[0].location.file == entry_file(root / "knowledge", "counterexample-to-lem-euler")


def _cli(*args: str) -> subprocess.CompletedProcess:
    here = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=f"{here}{os.pathsep}{here / 'server'}")
    return subprocess.run([sys.executable, "-m", "colosseum", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_check_reports_the_counterexample(tmp_path):
    root = paper(tmp_path)
    done = _cli("check", str(root), "--format", "json")
    codes = [d["code"] for d in json.loads(done.stdout)["diagnostics"]]
    assert codes.count("colosseum/counterexample-found") == 1
    assert done.returncode == 0  # a warning: check exits 1 on errors only


# --------------------------------------------------------------------------------------------------
# the graph


def test_dag_json_gains_each_claims_evidence_by_kind(tmp_path):
    done = _cli("dag", str(paper(tmp_path)))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["schema_version"] == 1  # extended, not changed
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes["lem:sum"]["status"] == "open"  # checked on small cases, still open
    (held,) = nodes["lem:sum"]["evidence"]["computation"]
    assert held["range"] == {"n": [1, 30]} and held["verdict"] == "consistent" and held["run"] == SUM_RUN
    assert set(nodes["lem:sum"]["evidence"]) == {"computation", "model_review", "person_review", "formal", "other"}
    (failed,) = nodes["lem:euler"]["evidence"]["computation"]
    assert failed["verdict"] == "counterexample" and failed["counterexample"] == "n = 40: 1681 = 41^2"
    assert nodes["thm:plain"]["evidence"]["computation"] == []
    # a project without a catalog folder: the nodes as before
    bare = json.loads(_cli("dag", str(paper(tmp_path / "bare", with_evidence=False))).stdout)
    assert all("evidence" not in n for n in bare["nodes"])


def test_dot_marks_computation_with_an_outline_and_a_legend_never_the_proved_colour(tmp_path):
    from colosseum.graph.export import STATUS_COLOURS

    done = _cli("dag", str(paper(tmp_path)), "--format", "dot")
    lines = {line.strip().split(" ", 1)[0]: line for line in done.stdout.splitlines() if " -> " not in line}
    held, failed, plain = lines['"lem:sum"'], lines['"lem:euler"'], lines['"thm:plain"']
    assert 'color="#f9a825", penwidth=3' in held and "checked on small cases (not a proof)" in held
    assert 'color="#d50000", penwidth=3' in failed and "counterexample found (not a proof)" in failed
    assert "penwidth" not in plain
    assert f'fillcolor="{STATUS_COLOURS["proved"]}"' not in held and f'fillcolor="{STATUS_COLOURS["open"]}"' in held
    assert 'label="checked on small cases"' in lines['"colosseum-legend:checked"']
    assert 'label="counterexample found"' in lines['"colosseum-legend:counterexample"']


def test_html_page_marks_and_lists_computation(tmp_path):
    page = _cli("dag", str(paper(tmp_path)), "--format", "html").stdout
    assert 'data-mark="checked"' in page and "checked on small cases (1)" in page
    assert "counterexample found (1)" in page
    data = json.loads(page.split('<script id="graph-data" type="application/json">', 1)[1].split("</script>", 1)[0])
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes["lem:sum"]["mark"] == "checked" and nodes["lem:euler"]["mark"] == "counterexample"
    assert nodes["thm:plain"]["mark"] is None
    assert nodes["lem:sum"]["computation"] == [f"checked for 1 ≤ n ≤ 30: consistent (run {SUM_RUN})"]
    assert nodes["lem:sum"]["status"] == "open"


# --------------------------------------------------------------------------------------------------
# reports


def test_a_solve_reports_the_claims_computation_apart_from_review(tmp_path):
    import shutil

    from doubles.messages_api import MessagesAPIDouble
    from test_solve_cli import EXAMPLE, answer_by_role
    from test_solve_cli import run as solve

    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    record_computation(project / "knowledge", "lem:resampling", "the resampling bound",
                       computation_item({"m": [1, 12]}, 12, _artifact("20261204-1-probe-lem_resampling"), "m"),
                       "20261204-1-probe-lem_resampling", "m")
    with MessagesAPIDouble([], responder=answer_by_role) as server:
        text = solve(project, server.url)
        as_json = solve(project, server.url, "--format", "json")
    assert text.returncode == 0, text.stderr
    shown = "checked for 1 ≤ m ≤ 12 — consistent (run 20261204-1-probe-lem_resampling)"
    assert f"Computation (not a proof):\n  {shown}" in text.stdout
    (item,) = json.loads(as_json.stdout)["computation"]
    assert item["range"] == {"m": [1, 12]} and item["verdict"] == "consistent"
    first = sorted((project / ".colosseum" / "runs").iterdir())[0]
    report = (first / "report.md").read_text()
    section = report.split("## Computation (not a proof)", 1)[1].split("\n## ", 1)[0]
    assert f"- {shown}" in section and "never a proof" in section
    assert report.index("## Computation (not a proof)") < report.index("## Verdict")  # apart from the review
    (recorded,) = json.loads((first / "run.json").read_text())["catalog"]["computation"]
    assert recorded["range"] == {"m": [1, 12]} and recorded["run"] == "20261204-1-probe-lem_resampling"


def test_knowledge_list_names_the_computations_apart(tmp_path):
    root = paper(tmp_path)
    text = _cli("knowledge", "list", str(root), "--no-starter").stdout
    assert (f"computation (not a proof): checked for 0 ≤ n ≤ 40 — counterexample found: n = 40: 1681 = 41^2 "
            f"(run {EULER_RUN})") in text
    entries = {e["id"]: e for e in json.loads(_cli("knowledge", "list", str(root), "--no-starter",
                                                   "--format", "json").stdout)["entries"]}
    (item,) = entries[entry_file(root / "knowledge", "probe-of-lem-sum").stem]["computation"]
    assert item["range"] == {"n": [1, 30]} and item["verdict"] == "consistent"


def test_a_global_review_lists_the_computations_apart(tmp_path):
    import shutil

    from doubles.messages_api import MessagesAPIDouble
    from test_review_cli import EXAMPLE, GAP, responder
    from test_review_cli import run as review

    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project)
    record_computation(project / "knowledge", "lem:resampling", "the resampling bound",
                       counterexample_item({"m": [1, 5]}, "m = 3", _artifact("20261204-2-probe-lem_resampling"), "m"),
                       "20261204-2-probe-lem_resampling", "m")
    with MessagesAPIDouble([], responder=responder([GAP])) as server:
        done = review(project, server.url)
    assert done.returncode == 0, done.stderr
    shown = "checked for 1 ≤ m ≤ 5 — counterexample found: m = 3 (run 20261204-2-probe-lem_resampling)"
    assert f"Computation (not a proof):\n  lem:resampling: {shown}" in done.stdout
    (report,) = sorted((project / ".colosseum" / "reviews").glob("*-global.md"))
    text = report.read_text()
    assert f"- `lem:resampling`: {shown}" in text.split("## Computation (not a proof)", 1)[1]
    assert text.index("## Critiques") < text.index("## Computation (not a proof)")
    (item,) = json.loads(report.with_suffix(".json").read_text())["computation"]["lem:resampling"]
    assert item["verdict"] == "counterexample" and item["range"] == {"m": [1, 5]}


def test_a_research_run_reports_the_theorems_computation_apart(make_project, tmp_path):
    from doubles.messages_api import MessagesAPIDouble
    from doubles.research_script import ResearchScript
    from test_research_cli import MAIN, RESULT, TOML, responder
    from test_research_cli import run as research

    project = make_project(tmp_path / "paper", {"main.tex": MAIN, "sections/result.tex": RESULT,
                                                "colosseum.toml": TOML})
    record_computation(project / "knowledge", "thm:goal", "the goal",
                       computation_item({"k": [2, 9]}, 8, _artifact("20261204-3-probe-thm_goal"), "m"),
                       "20261204-3-probe-thm_goal", "m")
    with MessagesAPIDouble([], responder=responder(ResearchScript(generations=(2, 1)))) as server:
        done = research(project, server.url)
    assert done.returncode == 0, done.stderr
    shown = "checked for 2 ≤ k ≤ 9 — consistent (run 20261204-3-probe-thm_goal)"
    assert f"Computation (not a proof):\n  {shown}" in done.stdout
    (directory,) = (project / ".colosseum" / "runs").iterdir()
    (report,) = [p for p in directory.rglob("report.md") if p.parent == directory or "model-" in p.parent.name]
    assert f"- {shown}" in report.read_text().split("## Computation (not a proof)", 1)[1]
    (item,) = json.loads((report.parent / "run.json").read_text())["computation"]
    assert item["range"] == {"k": [2, 9]} and item["verdict"] == "consistent"


def test_mermaid_outlines_computation_beside_the_status_class(tmp_path):
    out = _cli("dag", str(paper(tmp_path)), "--format", "mermaid").stdout.splitlines()
    # a node is `  n0["lem:euler"]:::open` (no title in this paper)
    ids = {line.split('["', 1)[1].split('"]', 1)[0]: line.strip().split("[", 1)[0] for line in out if '["' in line}
    assert f"  class {ids['lem:sum']} checked" in out and f"  class {ids['lem:euler']} counterexample" in out
    assert "  classDef checked stroke:#f9a825,stroke-width:3px" in out
    assert any(line.strip().startswith(ids["lem:sum"] + '["') and line.endswith(":::open") for line in out)


def test_obligations_list_their_computations_apart(tmp_path):
    root = paper(tmp_path)
    main = root / "main.tex"
    main.write_text(main.read_text().replace("\\label{lem:euler}", "\\label{lem:euler}\\obligation"))
    text = _cli("obligations", str(root)).stdout
    assert (f"   computation (not a proof): checked for 0 ≤ n ≤ 40 — counterexample found: n = 40: 1681 = 41^2 "
            f"(run {EULER_RUN})") in text
    (item,) = json.loads(_cli("obligations", str(root), "--format", "json").stdout)["obligations"]
    assert item["id"] == "lem:euler" and item["computation"][0]["verdict"] == "counterexample"


def test_a_long_model_review_is_not_cut_mid_sentence_and_keeps_who_read_it():
    # carleson, hover after `solve`: "...verdict unrefuted; critiques left on the  (run ...)": the cut
    # at 200 characters dropped "final proof: none. Not yet read by a person."
    from colosseum.catalog.evidence import ClaimEvidence, EvidenceItem

    run = "20261204-185106-monotone-cube-metrics"
    description = (f"Proof written by claude-sonnet-4-5 in run {run}: 16 candidate proofs were each attacked by "
                   "refuters and merged by aggregation; verdict unrefuted; critiques left on the final proof: none. "
                   "Not yet read by a person.")
    short = EvidenceItem("proof-of-x", "model_review", description, run=run)
    text = "\n".join(evidence_sections(ClaimEvidence("x", (short,))))
    assert f"critiques left on the final proof: none. Not yet read by a person. (run {run})" in text
    long = EvidenceItem("proof-of-y", "model_review", "word " * 200 + "end. Not yet read by a person.", run=run)
    line = "\n".join(evidence_sections(ClaimEvidence("y", (long,)))).splitlines()[-1]
    assert line.endswith(f"word … Not yet read by a person. (run {run})") and len(line) < 600
