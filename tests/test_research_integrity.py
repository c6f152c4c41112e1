"""Evidence integrity in the research pipeline (issue 14, hand-offs 2 and 3): a section passes
only when no fatal critique of its inner loop survives and its local reviewer addressed every
critique it was given; the readiness gate is not ready while a fatal falsifier critique of the
main route stands without a checked rebuttal; failed routes are recorded from what reached the
root, never from a leaf critique that was later resolved; the exploration runs the paper's
widths unless the author turns adaptive widths on. Scripted providers (test doubles) only."""

from __future__ import annotations

import re

from colosseum.loops.inner.solve import ObligationContext
from colosseum.loops.research.exploration import explore
from colosseum.loops.research.records import ResearchConfig
from colosseum.loops.research.settings import research_settings
from colosseum.models.budget import Budget
from colosseum.models.metered import MeteredProvider
from colosseum.models.scripted_provider import ScriptedProvider
from colosseum.settings import load_config
from doubles.research_script import ResearchScript

CONTEXT = ObligationContext("thm:goal", "Every admissible input has the property.", assumable="[lem:known] A fact.")


def metered(script) -> MeteredProvider:
    return MeteredProvider(ScriptedProvider(script), Budget.of_started_calls(None))


# ---- widths: the paper's unless the author turns adaptive widths on ----------------------------------
async def test_exploration_runs_the_papers_widths_unless_adaptive_widths_are_turned_on(tmp_path):
    research, _, _ = research_settings(load_config(tmp_path))  # no colosseum.toml: the defaults
    assert research.exploration_widths == (32, 16, 8, 5, 1) and research.adaptive_widths is False
    # every batch would find the same flaw: adaptive widths would stop after 16 leaves
    provider = metered(ResearchScript(distinct_fatal_flaws=False))
    result = await explore(CONTEXT, provider, ResearchConfig(seed=5), seed=5)
    roles = [r.role for r in provider.inner.calls]
    assert result.widths == (32, 16, 8, 5, 1) and roles.count("explorer") == 32 and result.calls_saved == 0
    (tmp_path / "colosseum.toml").write_text("[research]\nadaptive_widths = true\n")
    research, _, _ = research_settings(load_config(tmp_path))
    assert research.adaptive_widths is True


# ---- hand-off 2: inner loop -> research section ---------------------------------------------------
from test_research_pipeline import INNER, SMALL, make_run, project  # noqa: E402,F401 - project is a fixture
from colosseum.loops.research.pipeline import run_research  # noqa: E402
from colosseum.loops.research.readiness import readiness_gate  # noqa: E402

SECTION = "lem:goal-g1-1"
FLAW = "the bound is asserted, never derived"


def _calls(provider, role: str) -> list[str]:
    return [r.messages[0].content for r in provider.inner.calls if r.role == role]


async def test_a_section_whose_inner_loop_left_a_fatal_critique_fails_and_is_retried(project):
    # the refuters find a fatal flaw in the first attempt; no aggregator resolves it; the local
    # reviewer is lenient (passes, and "answers" every critique it is given)
    script = ResearchScript(refuted_sections={"g1-1": "fatal"})
    run, provider = make_run(project, script)
    result = await run_research(run)
    outcome = result.sections[SECTION]
    first, second = outcome.reviews[:2]
    assert first["verdict"] == "failed" and any(FLAW in r for r in first["reasons"])
    assert first["surviving"] and {c["severity"] for c in first["surviving"]} == {"fatal"}
    assert outcome.attempts == 2 and outcome.status == "passed" and second["verdict"] == "passed"
    # the local reviewer was given the critique, fenced as data, and asked to answer it by id
    fenced = [re.search(r'<document-([0-9a-f]+) name="critiques the proof\'s refuters left standing">\n(.*?)\n'
                        r'</document-\1>', u, re.S) for u in _calls(provider, "local_reviewer")]
    assert any(f is not None and FLAW in f.group(2) and "[L0.r0.0] fatal" in f.group(2) for f in fenced)
    # the retry's provers were told the critique that failed the section
    assert any(FLAW in u for u in _calls(provider, "generator"))
    # the run's report says what the section's verdict rests on
    report = (run.recorder.directory / "sections.md").read_text()
    assert "refuters' fatal [L0.r0.0]" in report and "reviewer: answered" in report


async def test_a_section_whose_fatal_critique_survives_every_retry_never_passes(project):
    script = ResearchScript(refuted_sections={"g1-1": "fatal"}, refuted_always=True)
    run, _ = make_run(project, script, catalog_dir=project / "knowledge")
    result = await run_research(run)
    outcome = result.sections[SECTION]
    assert outcome.status == "failed" and outcome.attempts >= 1 + SMALL.section_retries
    assert {r["verdict"] for r in outcome.reviews} == {"failed"}
    assert result.status != "accepted" and not result.complete
    # a section that failed every retry is a failed route in the catalog
    texts = [e.read_text() for e in (project / "knowledge").glob("failed-*.md")]
    assert any(f"section {SECTION}" in t and "failed every retry" in t for t in texts)


async def test_a_critique_the_local_reviewer_does_not_address_fails_the_section(project):
    # a major critique survives the inner loop; the reviewer passes the proof but says nothing of it
    script = ResearchScript(refuted_sections={"g1-1": "major"}, reviewer_addresses=False)
    run, _ = make_run(project, script)
    result = await run_research(run)
    outcome = result.sections[SECTION]
    first = outcome.reviews[0]
    assert first["verdict"] == "failed" and first["addressed"] == {}
    assert any("did not address" in r for r in first["reasons"])
    assert outcome.attempts == 2 and outcome.status == "passed"


async def test_a_critique_the_local_reviewer_answers_is_recorded_with_its_answer(project):
    script = ResearchScript(refuted_sections={"g1-1": "major"})
    run, _ = make_run(project, script)
    result = await run_research(run)
    outcome = result.sections[SECTION]
    ids = [c["id"] for c in outcome.reviews[0]["surviving"]]
    assert ids and outcome.attempts == 1
    assert [outcome.reviews[0]["addressed"][cid]["status"] for cid in ids] == ["answered"] * len(ids)


# ---- hand-off 3: exploration -> readiness gate ------------------------------------------------------
async def _gate(script: ResearchScript):
    provider = metered(script)
    exploration = await explore(CONTEXT, provider, SMALL, seed=3)
    fatal = [c for c in exploration.surviving_critiques if c.severity == "fatal"]
    assert fatal, "the scripted falsifiers put a fatal critique on the main route"
    verdict = await readiness_gate(CONTEXT, exploration, provider)
    return verdict, fatal, script


async def test_a_gate_that_answers_ready_with_an_unrebutted_fatal_critique_is_not_ready():
    verdict, fatal, script = await _gate(ResearchScript(gate_rebuts=False))
    assert verdict.ready is False
    assert any("stands unrebutted" in r for r in verdict.reasons)
    assert {c["id"] for c in verdict.standing_critiques} == {c.id for c in fatal}
    assert script.counts["rebuttal_checker"] == 0


async def test_a_rebuttal_the_checker_rejects_leaves_the_route_not_ready():
    verdict, fatal, script = await _gate(ResearchScript(gate_rebuts=True, rebuttals_hold=False))
    assert verdict.ready is False and script.counts["rebuttal_checker"] == len(fatal)
    assert [r["confirmed"] for r in verdict.rebuttals] == [False] * len(fatal)
    # and one it confirms counts
    verdict, fatal, script = await _gate(ResearchScript(gate_rebuts=True, rebuttals_hold=True))
    assert verdict.ready is True and not verdict.standing_critiques
    assert script.counts["rebuttal_checker"] == len(fatal)


# ---- failed routes: from what reached the root, never from a leaf critique later resolved -----------
def _solve_result(root_critiques):
    from colosseum.loops.inner.records import Bundle, Candidate, Critique, SolveResult
    from colosseum.models import Usage

    flaw = Critique("L0.r0.0", "fatal", "misused-theorem", "By a union bound over dependent events",
                    "the events are not independent", origin="L0")
    leaf = Bundle("L0", 0, Candidate("c0", "We argue. By a union bound over dependent events, done.",
                                     "a union bound"), [flaw])
    other = Bundle("L1", 0, Candidate("c1", "We argue by induction.", "induction"))
    root = Bundle("A1.0", 1, Candidate("m", "Merged proof.", "induction"), list(root_critiques(flaw)),
                  sources=("L0", "L1"), resolved={} if root_critiques(flaw) else {flaw.id: "handled by Lemma 2"})
    return SolveResult(root, {"L0": leaf, "L1": other, "A1.0": root}, [[("A1.0", ["L0", "L1"])]],
                       ["L0", "L1"], Usage(), 1)


def test_a_leaf_critique_later_resolved_is_not_recorded_as_a_failed_route(tmp_path):
    from colosseum.catalog.curator import record_failed_routes
    from colosseum.catalog.store import load_catalog

    folder = tmp_path / "knowledge"
    assert record_failed_routes(folder, "lem:x", _solve_result(lambda flaw: []), "run-1", "m") == []
    assert not [e for e in load_catalog(folder, with_starter=False).entries.values() if e.kind == "failed-route"]
    # the same critique reaching the root is a failed route, of the route it was written against
    written = record_failed_routes(folder, "lem:x", _solve_result(lambda flaw: [flaw]), "run-2", "m")
    (entry,) = [e for e in load_catalog(folder, with_starter=False).entries.values() if e.kind == "failed-route"]
    assert written == [entry.id] and entry.data["approach"] == "a union bound"
    assert "union bound over dependent events" in entry.data["failure_point"]


def test_the_dry_run_prints_the_plan_that_will_run(make_project, tmp_path, capsys):
    from colosseum.cli.main import main

    project = make_project(tmp_path / "paper", {"main.tex": "\\documentclass{article}\n\\begin{document}\n"
                                                "\\begin{theorem}\\label{thm:goal}True.\\end{theorem}\n"
                                                "\\end{document}\n"})
    assert main(["research", str(project), "--label", "thm:goal", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "widths (32, 16, 8, 5, 1), fixed" in out
    assert "32 explorers + 32 falsifiers + 30 strategy aggregators (k = 5) = 94 calls" in out
    assert "one check for each rebuttal" in out and "Nothing was sent" in out
    (project / "colosseum.toml").write_text("[research]\nadaptive_widths = true\n")
    assert main(["research", str(project), "--label", "thm:goal", "--dry-run"]) == 0
    assert "adaptive: leaves in batches of 8" in capsys.readouterr().out


def test_the_dry_run_prices_the_worst_case_too_not_only_the_typical_run(make_project, tmp_path, capsys):
    # "up to about 3708 calls; at most about $18.86 ... for the typical run": the one price read as
    # the bound of the whole run, a tenth of what every retry and round would cost
    import re

    import pytest

    from colosseum.cli.main import main

    project = make_project(tmp_path / "paper", {"main.tex": "\\documentclass{article}\n\\begin{document}\n"
                                                "\\begin{theorem}\\label{thm:goal}True.\\end{theorem}\n"
                                                "\\end{document}\n"})
    assert main(["research", str(project), "--label", "thm:goal", "--dry-run"]) == 0
    out = capsys.readouterr().out
    typical_calls, upper_calls = map(int, re.search(r"about (\d+) calls with no retry.*up to about (\d+) calls", out).groups())
    typical, worst = (float(x.replace(",", "")) for x in re.search(
        r"at most about \$([\d,.]+) .* for the typical run, up to about \$([\d,.]+) with every retry and round", out).groups())
    assert worst == pytest.approx(typical * upper_calls / typical_calls, rel=0.01)


async def test_section_provers_get_the_route_the_plan_assigned_them(project):
    script = ResearchScript()
    run, provider = make_run(project, script)
    await run_research(run)
    prompts = [u for u in _calls(provider, "generator") if SECTION in u]
    # the gate assigned the open claim "the first bound" the route "direct computation"
    assert prompts and all("the route the plan assigned to this section: direct computation" in u for u in prompts)
    # the gate's rebuttals of the route's fatal critiques were checked, and the report says so
    gate = (run.recorder.directory / "gate-1.md").read_text()
    assert script.counts["rebuttal_checker"] >= 1 and "] confirmed: " in gate and "referee:" in gate
    assert all("main route: reduce to a chain of bounds" in u or "main route: a chain of bounds" in u for u in prompts)


async def test_a_run_stopped_after_a_section_failed_records_that_section_as_a_failed_route(project):
    from dataclasses import replace

    script = ResearchScript(refuted_sections={"g1-1": "fatal"}, refuted_always=True)
    config = replace(SMALL, exploration_widths=(4, 1), max_calls=30)  # stops during the section's retry (28-34 do)
    run, _ = make_run(project, script, config, catalog_dir=project / "knowledge")
    result = await run_research(run)
    assert result.status == "budget-stopped"
    assert result.sections[SECTION].reviews[-1]["verdict"] == "failed"
    texts = [e.read_text() for e in (project / "knowledge").glob("failed-*.md")]
    assert [t for t in texts if f"section {SECTION}" in t and "the run stopped" in t]
    assert not [t for t in texts if "section lem:goal-g1-2" in t]  # it passed: no failed route


def test_a_routed_section_takes_the_plans_angles_instead_of_planning_its_own():
    from dataclasses import dataclass

    from colosseum.loops.research.records import routed_inner_config

    @dataclass(frozen=True)
    class Planning:  # an inner loop that plans its provers' angles unless told otherwise
        angles: tuple = ("fixed",)
        plan_angles: bool = True

    routed = routed_inner_config(Planning(), ("the route: direct computation",))
    assert routed.angles == ("the route: direct computation",) and routed.plan_angles is False


def test_an_inner_loop_without_a_verdict_does_not_pass_its_section():
    from types import SimpleNamespace

    from colosseum.loops.research.review_adapter import section_gate
    from colosseum.loops.review.records import ClaimReview

    passed = ClaimReview("lem:x", "passed", [], [], "key", "proof", "statement")
    done = SimpleNamespace(surviving_critiques=[], verdict="unrefuted")
    unfinished = SimpleNamespace(surviving_critiques=[], verdict="incomplete")
    assert section_gate(passed, done).passed
    gated = section_gate(passed, unfinished)
    assert not gated.passed and any("did not finish" in r for r in gated.reasons)


async def test_a_fatal_critique_a_strategy_aggregator_says_it_resolved_still_needs_a_checked_rebuttal():
    # every strategy aggregator claims every critique resolved: none reaches the root
    provider = metered(ResearchScript(strategy_resolves=True, gate_rebuts=False))
    exploration = await explore(CONTEXT, provider, SMALL, seed=3)
    assert not exploration.surviving_critiques
    claimed = [c for c, _ in exploration.claimed_resolutions() if c.severity == "fatal"]
    assert claimed
    verdict = await readiness_gate(CONTEXT, exploration, provider)
    assert verdict.ready is False and {c["id"] for c in verdict.standing_critiques} == {c.id for c in claimed}
    # rebutted, and the rebuttal confirmed by the checker: ready
    script = ResearchScript(strategy_resolves=True)
    provider = metered(script)
    exploration = await explore(CONTEXT, provider, SMALL, seed=3)
    verdict = await readiness_gate(CONTEXT, exploration, provider)
    assert verdict.ready is True and script.counts["rebuttal_checker"] == len(claimed)
