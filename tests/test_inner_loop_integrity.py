"""Evidence integrity in the inner loop (issue 14): a resolution an aggregator claims is checked
against its new proof before it removes a critique, the root proof is refuted afresh before it is
offered, the provers' angles come from the claim, and an aggregator may keep a competing proof.

Every run here uses the scripted provider: refuters that all find the same anchored fatal flaw,
and aggregators that claim to have fixed every critique they see."""

from __future__ import annotations

import json

from colosseum.loops.inner.call_plan import describe_calls
from colosseum.loops.inner.records import DEFAULT_ANGLES, InnerLoopConfig
from colosseum.loops.inner.run_record import RunRecorder
from colosseum.loops.inner.solve import ObligationContext, solve
from colosseum.models.provider import ProviderError
from colosseum.models.scripted_provider import ScriptedProvider

CONTEXT = ObligationContext("lem:resampling", "The algorithm performs at most m/d resampling steps.",
                            assumable="thm:lll: the Lovász Local Lemma ...")
FLAW = "By a union bound over dependent events"
PLANNED = ("witness trees for the resampling log", "an entropy-compression count of the random bits",
           "a potential function that drops with every resampling")
SMALL = InnerLoopConfig(leaves=4, widths=(4, 2, 1), k=2, seed=3)


def _ids(user: str) -> list[str]:
    return [line.split("[", 1)[1].split("]", 1)[0] for line in user.splitlines() if line.startswith("- [")]


def _fenced(user: str, name: str) -> str:
    return user.split(f' name="{name}">\n', 1)[1].split("\n</document-", 1)[0]


def script(*, checker: str = "reject", how: str = "the dependence is handled by Lemma 2", final: str = "clean",
           planner: str = "plan", alternative: str = ""):
    """checker: "reject" | "confirm" | "fail"; final (the final refuters): "clean" | "fatal" | "fail-one";
    planner: "plan" | "fail" | "one-angle"."""
    finals = []

    def answer(request):
        user = request.messages[0].content
        if request.role == "angle_planner":
            if planner == "fail":
                return ProviderError("scripted", "the planner is overloaded")
            angles = PLANNED if planner == "plan" else (PLANNED[0], PLANNED[0].upper() + "!")
            return {"angles": [{"angle": a, "why": "it fits the claim"} for a in angles]}
        if request.role == "generator":
            return {"strategy": "s", "proof": f"We argue via {_fenced(user, 'your angle')}. {FLAW}, done."}
        if request.role == "refuter" and "final referee" in user:
            finals.append(user)
            if final == "fail-one" and len(finals) == 1:
                return ProviderError("scripted", "the final referee timed out")
            if final == "fatal":
                return {"critiques": [{"severity": "fatal", "kind": "gap", "quote": "Merged proof",
                                       "explanation": "the merge drops the dependence argument", "repair": ""}]}
            return {"critiques": []}
        if request.role == "refuter":
            return {"critiques": [{"severity": "fatal", "kind": "misused-theorem", "quote": FLAW,
                                   "explanation": "the events are not independent", "repair": ""}]
                    if FLAW in user else []}
        if request.role == "resolution_checker" and checker == "fail":
            return ProviderError("scripted", "the checker is overloaded")
        if request.role == "resolution_checker":
            reason = "the step is gone" if checker == "confirm" else "the union bound is still there"
            return {"checks": [{"critique": cid, "confirmed": checker == "confirm", "reason": reason}
                               for cid in _ids(_fenced(user, "critiques and the claimed resolutions"))]}
        return {"proof": "Merged proof.", "alternative": alternative, "open_conflicts": [],
                "resolved": [{"critique": cid, "how": how} for cid in _ids(user)]}
    return answer


async def test_claimed_resolutions_a_checker_rejects_keep_the_fatal_critique_and_the_verdict_refuted():
    provider = ScriptedProvider(script(checker="reject"))
    result = await solve(CONTEXT, provider, SMALL)
    fatal = [c for c in result.surviving_critiques if c.severity == "fatal"]
    assert result.verdict == "refuted" and fatal
    # carried unchanged: the leaf's id, quote and anchoring
    assert all(c.quote == FLAW and c.anchored and c.origin.startswith("L") for c in fatal)
    assert result.root.resolved == {} and set(result.root.unconfirmed) == {c.id for c in fatal}
    assert sum(r.role == "resolution_checker" for r in provider.calls) == 3  # one per aggregator that claimed
    # the same claims, confirmed by the checker, do remove the critiques: the check is what decides
    confirmed = await solve(CONTEXT, ScriptedProvider(script(checker="confirm")), SMALL)
    assert confirmed.verdict == "unrefuted" and confirmed.surviving_critiques == []


async def test_a_failed_resolution_check_confirms_nothing():
    result = await solve(CONTEXT, ScriptedProvider(script(checker="fail")), SMALL)
    assert result.verdict == "refuted" and any(c.severity == "fatal" for c in result.surviving_critiques)
    assert result.root.unconfirmed and all("the check failed" in why and "overloaded" in why
                                           for why in result.root.unconfirmed.values())


async def test_a_claim_that_states_no_argument_is_never_a_resolution():
    provider = ScriptedProvider(script(checker="confirm", how="  "))
    result = await solve(CONTEXT, provider, SMALL)
    assert result.verdict == "refuted" and any(c.severity == "fatal" for c in result.surviving_critiques)
    assert not any(r.role == "resolution_checker" for r in provider.calls)
    assert all("without saying how" in why for why in result.root.unconfirmed.values())


async def test_the_final_refutation_finds_a_fatal_flaw_in_the_root():
    provider = ScriptedProvider(script(checker="confirm", final="fatal"))
    result = await solve(CONTEXT, provider, SMALL)
    final = result.final_refutation
    assert final.calls == 2 and final.complete and len(final.critiques) == 2
    assert result.verdict == "refuted"
    assert [c.id for c in result.surviving_critiques] == ["F.r0.0", "F.r1.0"]
    assert all(c.anchored and c.origin == result.root.id for c in result.surviving_critiques)
    finals = [r for r in provider.calls if r.role == "refuter" and "final referee" in r.messages[0].content]
    assert len(finals) == 2 and all("Merged proof." in r.messages[0].content for r in finals)


async def test_a_failed_final_refutation_call_makes_the_verdict_incomplete(tmp_path):
    recorder = RunRecorder(tmp_path / "run", "lem:resampling", SMALL, "scripted")
    result = await solve(CONTEXT, ScriptedProvider(script(checker="confirm", final="fail-one")), SMALL, None,
                         recorder)
    assert result.surviving_critiques == [] and result.verdict == "incomplete"
    (failure,) = result.final_refutation.failed
    assert "the final referee timed out" in failure
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["verdict"] == "incomplete" and record["final_refutation"]["failed"]
    report = (tmp_path / "run" / "report.md").read_text()
    assert "## Evidence" in report and "1 call(s) failed, so the verdict cannot be unrefuted" in report


async def test_the_report_says_which_resolutions_were_confirmed_and_which_not(tmp_path):
    recorder = RunRecorder(tmp_path / "run", "lem:resampling", SMALL, "scripted")
    result = await solve(CONTEXT, ScriptedProvider(script(checker="reject")), SMALL, None, recorder)
    report = (tmp_path / "run" / "report.md").read_text()
    evidence = report.split("## Evidence", 1)[1].split("## Proof", 1)[0]
    assert "Verdict: **refuted**" in evidence and "model review alone" in evidence
    assert "0 confirmed by a checker" in evidence and "the union bound is still there" in evidence
    assert "2 fresh refuter(s) read the root proof" in evidence
    assert "planned for this claim" in evidence
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["bundles"][result.root.id]["unconfirmed"] and record["prompts"]["resolution_checker"] == 1


async def test_the_provers_take_the_angles_planned_for_this_claim():
    provider = ScriptedProvider(script())
    result = await solve(CONTEXT, provider, SMALL)
    assert result.angle_plan.planned and result.angle_plan.angles == PLANNED
    angles = [_fenced(r.messages[0].content, "your angle") for r in provider.calls if r.role == "generator"]
    assert sorted(angles) == sorted([*PLANNED, PLANNED[0]])  # four leaves, three angles taken in turn
    planner = next(r for r in provider.calls if r.role == "angle_planner")
    assert "resampling steps" in planner.messages[0].content and "thm:lll" in planner.system


async def test_a_failed_or_empty_angle_plan_falls_back_to_the_fixed_list_and_says_so(tmp_path):
    recorder = RunRecorder(tmp_path / "run", "lem:resampling", SMALL, "scripted")
    provider = ScriptedProvider(script(planner="fail"))
    result = await solve(CONTEXT, provider, SMALL, None, recorder)
    assert not result.angle_plan.planned and "the planner is overloaded" in result.angle_plan.reason
    angles = [_fenced(r.messages[0].content, "your angle") for r in provider.calls if r.role == "generator"]
    assert sorted(angles) == sorted(DEFAULT_ANGLES[:4])
    plan = json.loads((tmp_path / "run" / "run.json").read_text())["angle_plan"]
    assert plan["planned"] is False and "the fixed list" in plan["reason"]
    one = await solve(CONTEXT, ScriptedProvider(script(planner="one-angle")), SMALL)
    assert not one.angle_plan.planned and "1 distinct angle" in one.angle_plan.reason
    off = ScriptedProvider(script())
    await solve(CONTEXT, off, InnerLoopConfig(leaves=4, widths=(4, 2, 1), k=2, seed=3, plan_angles=False))
    assert not any(r.role == "angle_planner" for r in off.calls)


async def test_an_aggregator_keeps_a_competing_proof_upward():
    provider = ScriptedProvider(script(checker="confirm", alternative="A competing proof by induction on m."))
    result = await solve(CONTEXT, provider, SMALL)
    level1 = [b for b in result.bundles.values() if b.level == 1]
    assert all(b.alternative is not None and "induction on m" in b.alternative.proof for b in level1)
    root_prompt = [r for r in provider.calls if r.role == "aggregator"][-1].messages[0].content
    assert root_prompt.count("A competing proof by induction on m.") == 2  # both inputs' alternatives
    assert "Competing proof kept beside it by A1.0" in root_prompt
    assert result.root.alternative.proof == "A competing proof by induction on m."
    without = await solve(CONTEXT, ScriptedProvider(script(checker="confirm")), SMALL)
    assert without.root.alternative is None


async def test_critiques_carried_above_level_one_keep_their_quote_and_anchoring():
    provider = ScriptedProvider(script(checker="reject"))
    await solve(CONTEXT, provider, SMALL)
    root_prompt = [r for r in provider.calls if r.role == "aggregator"][-1].messages[0].content
    carried = [line for line in root_prompt.splitlines() if line.startswith("- [L")]
    assert carried and all(f'"{FLAW}"' in line and "its quote was found there]" in line for line in carried)
    checks = [r.messages[0].content for r in provider.calls if r.role == "resolution_checker"]
    assert all("its quote was found in that candidate" in c and FLAW in c for c in checks)


async def test_the_calls_planned_and_the_most_a_run_can_make():
    config = InnerLoopConfig()
    assert config.planned_calls() == 1 + 16 + 16 + 14 + 2 == 49 and config.maximum_calls() == 49 + 14
    assert describe_calls(config).startswith("49 model calls planned, at most 63 (1 angle plan, 16 candidates")
    assert "2 final refutations of the root" in describe_calls(config)
    # a run whose every aggregator claims a resolution makes exactly the most
    provider = ScriptedProvider(script(checker="reject"))
    await solve(CONTEXT, provider, SMALL)
    assert len(provider.calls) == SMALL.maximum_calls() == 1 + 4 + 4 + 3 + 3 + 2
    quiet = ScriptedProvider(script(how=""))
    await solve(CONTEXT, quiet, SMALL)
    assert len(quiet.calls) == SMALL.planned_calls() == 1 + 4 + 4 + 3 + 2


def test_solve_settings_set_the_final_round_and_the_angle_plan(tmp_path):
    from colosseum.loops.inner.settings import inner_loop_config
    from colosseum.settings import load_config

    (tmp_path / "colosseum.toml").write_text("[solve]\nfinal_refuters = 3\nplan_angles = false\n")
    config, _ = inner_loop_config(load_config(tmp_path))
    assert config.final_refuters == 3 and not config.plan_angles and config.planned_calls() == 16 + 16 + 14 + 3
    (tmp_path / "colosseum.toml").write_text("[solve]\nfinal_refuters = 0\n")
    loaded = load_config(tmp_path)
    assert "solve.final_refuters" in {p.key for p in loaded.problems}
    assert inner_loop_config(loaded)[0].final_refuters == 2  # the final round cannot be switched off


def test_solve_through_the_api_keeps_a_fatal_flaw_every_aggregator_claims_fixed(tmp_path):
    """The issue's scripted run, end to end (real CLI, real SDK, the Messages-API double): every
    refuter finds the same anchored fatal flaw, every aggregator claims to have fixed it, and the
    checker does not confirm it; the flaw survives to the report instead of "0 critique(s) survived"."""
    import shutil

    from doubles.messages_api import MessagesAPIDouble, tool_answer
    from test_solve_cli import EXAMPLE, run

    def answer(body: dict):
        required = set(body["tools"][0]["input_schema"]["required"])
        prompt = body["messages"][-1]["content"]
        if "angles" in required:
            return tool_answer({"angles": [{"angle": a, "why": "it fits"} for a in PLANNED]})
        if "strategy" in required:
            return tool_answer({"strategy": "s", "proof": f"We count resampling steps. {FLAW}, done."})
        if "critiques" in required:
            flawed = FLAW in prompt and "final referee" not in prompt
            return tool_answer({"critiques": [{"severity": "fatal", "kind": "misused-theorem", "quote": FLAW,
                                               "explanation": "the events are not independent", "repair": ""}]
                                if flawed else []})
        if "checks" in required:
            claims = _fenced(prompt, "critiques and the claimed resolutions")
            return tool_answer({"checks": [{"critique": cid, "confirmed": False, "reason": "the union bound stays"}
                                           for cid in _ids(claims)]})
        return tool_answer({"proof": "Merged proof.", "alternative": "", "open_conflicts": [],
                            "resolved": [{"critique": cid, "how": "fixed by Lemma 2"} for cid in _ids(prompt)]})

    project = tmp_path / "paper"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".colosseum"))
    with (project / "colosseum.toml").open("a") as toml:
        toml.write("\n[solve]\nleaves = 4\nwidths = [4, 2, 1]\nk = 2\n")
    with MessagesAPIDouble([], responder=answer) as server:
        done = run(project, server.url)
        asked = len(server.requests)
    assert "Traceback" not in done.stderr, done.stderr
    assert "0 critique(s) survived" not in done.stdout and "fatal misused-theorem" in done.stdout
    assert asked == SMALL.maximum_calls()  # each aggregator claimed a resolution, each claim was checked
    (folder,) = (project / ".colosseum" / "runs").iterdir()
    record = json.loads((folder / "run.json").read_text())
    assert record["verdict"] == "refuted" and record["angle_plan"]["planned"]
    assert "0 confirmed by a checker" in (folder / "report.md").read_text()
