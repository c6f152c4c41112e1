"""`colosseum research` end to end: the real CLI and the real Anthropic SDK, with a local
Messages-API double standing in for the API (ANTHROPIC_BASE_URL), answering every role from the
research script (a test double)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from colosseum.cli.main import main
from colosseum.settings.project import load_config
from colosseum.loops.research.pipeline import run_research
from colosseum.loops.research.settings import research_settings
from doubles.research_script import ResearchScript, role_of
from doubles.messages_api import MessagesAPIDouble, tool_answer
from test_research_pipeline import MAIN, RESULT, SMALL, make_run
from catalog_files import written_entry

TOML = """root = "main.tex"
[research]
exploration_widths = [4, 1]
adaptive_widths = false
[solve]
leaves = 2
widths = [2, 1]
[review]
reviewers = 1
"""


@pytest.fixture
def project(make_project, tmp_path):
    return make_project(tmp_path / "paper", {"main.tex": MAIN, "sections/result.tex": RESULT, "colosseum.toml": TOML})


def responder(script: ResearchScript, by_model: dict | None = None):
    """Answers from ``script``, or from ``by_model[model]`` (each model its own counts: two
    pipelines running at once must not share "the first review of this lemma fails")."""
    def answer(body: dict):
        system = "".join(block["text"] for block in body["system"])
        request = SimpleNamespace(role=role_of(system), system=system,
                                  messages=[SimpleNamespace(content=body["messages"][-1]["content"])])
        return tool_answer((by_model or {}).get(body.get("model"), script)(request))
    return answer


def run(project: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url}
    return subprocess.run([sys.executable, "-m", "colosseum", "research", str(project), "--label", "thm:goal", *extra],
                          capture_output=True, text=True, timeout=120, env=env)


def test_a_research_run_with_cross_model_selection_writes_a_new_draft_and_an_auditable_run(project):
    model_a = ResearchScript(generations=(2, 1), local_failures={"g1-2": 1})
    model_b = ResearchScript(generations=(2, 1), judges_correct=5)
    with MessagesAPIDouble([], responder=responder(model_a, {"claude-haiku-4-5": model_b})) as server:
        first = run(project, server.url, "--model", "claude-opus-4-5", "--select-with", "claude-haiku-4-5")
        assert first.returncode == 0, first.stderr
        made = len(server.requests)
        again = run(project, server.url)  # the draft file exists now: refused before any call
        assert again.returncode == 2 and "never overwrites" in again.stderr and len(server.requests) == made
    # both pipelines ran; model B judged model A's proof 8 times; 5 of 8 is enough to submit A
    assert {r["model"] for r in server.requests} == {"claude-opus-4-5", "claude-haiku-4-5"}
    judges = [r for r in server.requests if role_of("".join(b["text"] for b in r["system"])) == "selection_judge"]
    assert len(judges) == 8 and {r["model"] for r in judges} == {"claude-haiku-4-5"}
    (directory,) = (project / ".colosseum" / "runs").iterdir()
    assert directory.name.endswith("research-thm_goal")
    selection = json.loads((directory / "selection.json").read_text())
    assert selection["chosen"] == "A" and selection["correct"] == 5 and len(selection["verdicts"]) == 8
    # every record of the run names its format (every stage's JSON, in every model's folder)
    records = {path.relative_to(directory): json.loads(path.read_text()) for path in directory.rglob("*.json")}
    assert len(records) > 5 and [p for p, r in records.items() if r.get("schema_version") != 1] == []
    assert "submitting model A (claude-opus-4-5)" in first.stdout
    # the draft is a new file beside the theorem's, with the line that puts it in the paper
    text = (project / "sections" / "result-thm-goal-skeleton.tex").read_text()
    assert "\\input{sections/result-thm-goal-skeleton}" in text and "\\label{lem:goal-g2-1}" in text
    assert "Second attempt." in text  # a retried section's proof
    assert "thm:goal: accepted" in first.stdout and f"{made} model calls" in first.stdout
    assert "round 1" not in first.stderr and "frontier" not in first.stderr  # the progress line: only to a terminal
    # every stage of each model's run is on disk
    for model in ("model-a", "model-b"):
        record = json.loads((directory / model / "run.json").read_text())
        assert record["status"] == "accepted"
        assert set(record["usage_by_stage"]) >= {"explore", "gate", "decompose", "solve", "review"}
        names = {p.name for p in (directory / model).iterdir()}
        assert {"explore-1.md", "gate-1.md", "skeleton-1.tex", "decompose-1.json", "sections.json",
                "report.md", "round-1"} <= names
    # each lemma that passed its local review is in the catalog as a model-reviewed proof that
    # points at the draft (an observation, not a result: the draft is not in the paper yet)
    from colosseum.catalog.store import read_entry

    assert "written to the catalog: " in first.stdout
    entry, problems = read_entry(written_entry(project / "knowledge", "proof-of-lem-goal-g2-1"))
    assert problems == [] and entry.kind == "observation" and entry.links["labels"] == ["lem:goal-g2-1"]
    (evidence,) = entry.data["evidence"]
    assert evidence["artifact"] == "sections/result-thm-goal-skeleton.tex" and "local review" in evidence["description"]
    # the paper itself is untouched
    assert (project / "sections" / "result.tex").read_text() == RESULT


def test_dry_run_spends_nothing(project, capsys):
    assert main(["research", str(project), "--label", "thm:goal", "--dry-run", "--select-with", "m2"]) == 0
    out = capsys.readouterr().out
    assert "Nothing was sent" in out and "exploration 10 calls" in out and "8 judgements" in out
    assert not (project / ".colosseum").exists()


def test_bad_input_is_a_clear_message(project, capsys):
    (project / "taken.tex").write_text("mine")
    assert main(["research", str(project), "--label", "thm:goal", "--out", str(project / "taken.tex")]) == 2
    assert "never overwrites" in capsys.readouterr().err and (project / "taken.tex").read_text() == "mine"
    assert main(["research", str(project), "--label", "lem:known"]) == 2
    assert "already has a proof" in capsys.readouterr().err
    assert main(["research", str(project), "--label", "thm:goal", "--select-with", "m", "--judges", "3",
                 "--threshold", "4"]) == 2


def test_counts_below_one_are_refused_by_the_command_line(project, capsys):
    for flag in ("--rounds", "--judges", "--threshold", "--max-calls"):
        with pytest.raises(SystemExit) as stopped:
            main(["research", str(project), "--label", "thm:goal", flag, "0"])
        assert stopped.value.code == 2
        assert f"argument {flag}: must be at least 1, got 0" in capsys.readouterr().err
    assert not (project / ".colosseum").exists()  # nothing ran, no status "running" was written
    # the engine's own entry points say so too
    config, selection, problems = research_settings(load_config(project), rounds=0, judges=0)
    assert (config.rounds, selection.judges) == (3, 8) and len(problems) == 2
    run, provider = make_run(project, ResearchScript(), replace(SMALL, rounds=0))
    with pytest.raises(ValueError, match="at least one round of global review"):
        asyncio.run(run_research(run))
    assert provider.inner.calls == []


def test_the_selection_settings_are_compared_once_resolved(project, capsys):
    (project / "colosseum.toml").write_text(TOML.replace("[research]\n", "[research]\njudges = 3\nselect_threshold = 2\n"))
    dry = ["research", str(project), "--label", "thm:goal", "--dry-run", "--select-with", "m2"]
    assert main(dry) == 0  # a valid configuration, 2 of 3 judges, with no flag
    assert "3 judgements" in capsys.readouterr().out
    assert main(dry + ["--threshold", "3"]) == 0  # 3 of the 3 configured judges
    capsys.readouterr()
    assert main(dry + ["--judges", "1"]) == 2  # the configured threshold 2 against one judge
    assert "the selection threshold (2) cannot be more than the number of judges (1 from --judges)" in \
        capsys.readouterr().err


def test_the_draft_header_says_exactly_what_was_proved_and_reviewed(project):
    from colosseum.loops.research.records import ResearchConfig
    from colosseum.app.research import skeleton_file_text

    out = project / "sections" / "result-thm-goal-skeleton.tex"
    failing = ResearchScript(generations=(2, 1), local_failures={"g1-2": 99})  # g1-2 never passes
    config = ResearchConfig(exploration_widths=(4, 1), seed=1, adaptive_widths=False, section_retries=1,
                            max_explorations=1, redecompose=False)
    run, _ = make_run(project, failing, config)
    incomplete = asyncio.run(run_research(run))
    assert incomplete.status == "incomplete" and incomplete.draft.strip()
    header = [line for line in skeleton_file_text(incomplete, "thm:goal", out, project / "main.tex",
                                                  False).splitlines() if line.startswith("%")]
    text = "\n".join(header)
    assert "Each " not in text and "was proved by the inner loop and passed its" not in text
    assert "% 1 of the 4 obligations below were proved by the inner loop and passed their local review " \
           "(lem:goal-g1-1); the others have no reviewed proof:" in header
    assert "%   lem:goal-g1-2: did not pass its local review (2 attempts)" in header
    assert "%   lem:goal-g2-1: never attempted (what it rests on did not pass)" in header
    assert "% No global review was run on this draft." in header
    # a complete, accepted run says so
    (project / ".colosseum").rename(project / "first-run")
    run, _ = make_run(project, ResearchScript(generations=(2, 1)), replace(config, section_retries=2))
    accepted = asyncio.run(run_research(run))
    header = skeleton_file_text(accepted, "thm:goal", out, project / "main.tex", False).splitlines()
    assert accepted.status == "accepted"
    assert "% Each of the 4 obligations below was proved by the inner loop and passed its local review." in header
    assert "% Global review: accepted (round 1); its report is in the run directory." in header


def test_every_proof_of_the_draft_file_is_marked_as_the_runs_draft(project):
    """The draft file the author \\inputs holds models' proofs: each carries the draft marker with the
    run's id, so the index reads its claims as drafts until a person accepts them."""
    from colosseum.app.research import skeleton_file_text
    from colosseum.latex.draft_marker import draft_run
    from colosseum.loops.research.records import ResearchConfig

    config = ResearchConfig(exploration_widths=(4, 1), seed=1, adaptive_widths=False, section_retries=2,
                            max_explorations=1, redecompose=False)
    run, _ = make_run(project, ResearchScript(generations=(2, 1)), config)
    result = asyncio.run(run_research(run))
    text = skeleton_file_text(result, "thm:goal", project / "draft.tex", project / "main.tex", False)
    proofs = [line for line in text.splitlines() if "\\begin{proof}" in line]
    assert len(proofs) >= 4  # the theorem's and its obligations'
    assert {draft_run(line) for line in proofs} == {Path(str(result.run_dir)).name}
