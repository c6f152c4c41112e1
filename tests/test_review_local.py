"""Local review with the scripted provider: exactly the affected reviews re-run after an edit of
example-project, verdicts from concrete critiques, sections, drafts, and the retry of a failed
section through the inner loop with its failed draft and critique."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from colosseum.index import ProjectIndex
from colosseum.loops.inner.records import InnerLoopConfig
from colosseum.models.scripted_provider import ScriptedProvider
from colosseum.loops.review import (
    LocalReviewCache,
    LocalReviewer,
    failed_context,
    local_review_key,
    retry_claim,
    review_claim,
)
from colosseum.loops.review.local_review import material

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
PASS = {"verdict": "passed", "reasons": ["proves its statement"], "critiques": []}


@pytest.fixture
def project(tmp_path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "paper")
    return tmp_path / "paper"


def labelled(request) -> str:
    return request.messages[0].content.split(" name=\"statement of ", 1)[1].split('"', 1)[0]


def edit(index, path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    index.update_document(path, None)


def affected(before: dict, after: dict) -> set[str]:
    """What the key rule says must be reviewed again: claims whose own text changed, and claims
    that use one whose statement changed (from the materials, not from the reviewer)."""
    own = {lb for lb in after if (before[lb].statement, before[lb].proof) != (after[lb].statement, after[lb].proof)}
    changed_statements = {lb for lb in after if before[lb].statement != after[lb].statement}
    users = {lb for lb, m in after.items() if any(u in changed_statements for u, _ in m.used)}
    return own | users


async def test_editing_one_section_re_reviews_exactly_the_affected_claims(project):
    index = ProjectIndex.open(project)
    provider = ScriptedProvider(lambda r: PASS)
    cache = LocalReviewCache(project / ".colosseum" / "reviews" / "local")
    reviewer = LocalReviewer(provider, cache)
    labels = reviewer.reviewable(index)
    first = await reviewer.review_many(index)
    assert len(provider.calls) == len(labels) == len(first) >= 10 and all(r.passed and not r.cached for r in first)
    assert sorted(map(labelled, provider.calls)) == sorted(labels)

    # a proof-only edit: only that claim is reviewed again (its users rely on its statement)
    local = project / "sections" / "local-structure.tex"
    before = {lb: material(index, lb) for lb in labels}
    edit(index, local, "which only\n  helps)", "which can only\n  help)")
    after = {lb: material(index, lb) for lb in labels}
    reviewer.reviewed.clear(), reviewer.served.clear()
    await reviewer.review_many(index)
    assert set(reviewer.reviewed) == affected(before, after) == {"lem:edge-degree"}
    assert len(reviewer.served) == len(labels) - 1

    # a statement edit: the claim and the claims that use it directly, nothing else
    before = after
    edit(index, local, "at most $k(\\Delta-1)$ other edges.", "at most $k\\Delta$ other edges.")
    after = {lb: material(index, lb) for lb in labels}
    reviewer.reviewed.clear(), reviewer.served.clear()
    calls_before = len(provider.calls)
    await reviewer.review_many(index)
    expected = affected(before, after)
    assert expected == {"lem:edge-degree", "cor:dependency-graph"}
    assert sorted(reviewer.reviewed) == sorted(expected) and len(provider.calls) - calls_before == len(expected)
    assert "thm:main" in reviewer.served  # uses the corollary, whose statement did not change

    # the cache is on disk: a new reviewer (a new session) serves everything; another model does not
    fresh = LocalReviewer(provider, LocalReviewCache(project / ".colosseum" / "reviews" / "local"))
    await fresh.review_many(index)
    assert fresh.reviewed == [] and len(fresh.served) == len(labels)
    other = LocalReviewer(ScriptedProvider(lambda r: PASS, model="another-model"), cache)
    await other.review_many(index, ["lem:mono-prob"])
    assert other.reviewed == ["lem:mono-prob"]
    assert local_review_key(index, "lem:mono-prob", None, 1, "m") != local_review_key(index, "lem:mono-prob", None, 2, "m")


async def test_a_concrete_major_critique_fails_the_claim_and_quotes_are_anchored_in_its_text(project):
    index = ProjectIndex.open(project)
    quote_proof = "Summing over the $k$ vertices of $e$"
    quote_used = "maximum degree at most $d$"  # in thm:lll, which the corollary does not use
    script = {"verdict": "passed", "reasons": [], "critiques": [
        {"severity": "major", "kind": "gap", "quote": quote_proof, "message": "double counting", "repair": ""},
        {"severity": "minor", "kind": "other", "quote": quote_used, "message": "elsewhere", "repair": ""}]}
    review = await review_claim(index, "lem:edge-degree", ScriptedProvider(lambda r: script))
    assert review.verdict == "failed" and not review.passed  # the reviewer said passed; the critique says not
    gap, elsewhere = review.critiques
    assert gap.anchored and gap.file.name == "local-structure.tex" and gap.line == 24
    assert not elsewhere.anchored and elsewhere.file is None  # not in its statement, proof or what it uses
    # a quote from a statement it uses is anchored there, in that file
    uses = {"verdict": "passed", "reasons": [], "critiques": [
        {"severity": "minor", "kind": "hypothesis-not-met", "quote": "Then the event $A_e$ is mutually independent",
         "message": "check", "repair": ""}]}
    review = await review_claim(index, "cor:dependency-graph", ScriptedProvider(lambda r: uses))
    assert review.passed and review.critiques[0].file.name == "local-structure.tex" and review.critiques[0].line == 9


async def test_a_section_is_reviewed_as_the_proof_of_the_claims_it_holds(project):
    index = ProjectIndex.open(project)
    m = material(index, "sec:local")
    assert "[cor:dependency-graph] corollary" in m.statement and "\\section{The dependency" in m.proof
    assert {label for label, _ in m.used} == {"def:dependency", "thm:lll"}  # cited from outside the section
    provider = ScriptedProvider(lambda r: PASS)
    review = await review_claim(index, "sec:local", provider)
    assert review.passed and "\\begin{lemma}\\label{lem:edge-degree}" in provider.calls[0].messages[0].content
    with pytest.raises(KeyError, match="no claim or section"):
        await review_claim(index, "sec:nowhere", provider)


async def test_a_draft_is_reviewed_instead_of_the_document_s_proof(project):
    index = ProjectIndex.open(project)
    draft = "By the witness-tree argument, the expected number of resamplings is small."
    script = {"verdict": "failed", "reasons": ["no bound"], "critiques": [
        {"severity": "fatal", "kind": "gap", "quote": "the expected number of resamplings is small",
         "message": "small is not a bound", "repair": "compute it"}]}
    provider = ScriptedProvider(lambda r: script)
    review = await review_claim(index, "lem:resampling", provider, proof=draft)
    assert draft in provider.calls[0].messages[0].content and review.proof == draft
    (c,) = review.critiques
    assert c.anchored and c.file is None and review.verdict == "failed"  # found in the draft, not in the paper


async def test_a_failed_claim_is_retried_alone_through_the_inner_loop_with_its_draft_and_critique(project):
    index = ProjectIndex.open(project)
    failed_script = {"verdict": "failed", "reasons": ["the double count"], "critiques": [
        {"severity": "major", "kind": "gap", "quote": "Summing over the $k$ vertices of $e$",
         "message": "edges through two vertices are counted twice", "repair": "say it only helps"}]}
    failed = await review_claim(index, "lem:edge-degree", ScriptedProvider(lambda r: failed_script))
    context = failed_context(index, "lem:edge-degree", failed)
    assert "edges through two vertices are counted twice" in context.previous
    assert "Summing over the $k$ vertices of $e$" in context.previous and "failed its local review" in context.previous

    def inner(request):
        if request.role == "generator":
            return {"strategy": "count per vertex", "proof": "Each of the $k$ vertices lies in at most $\\Delta-1$ "
                                                             "other edges."}
        if request.role == "refuter":
            return {"critiques": []}
        return {"proof": "Merged.", "alternative": "", "resolved": [], "open_conflicts": []}

    provider = ScriptedProvider(inner)
    config = InnerLoopConfig(leaves=2, widths=(2, 1), k=2)
    result = await retry_claim(index, "lem:edge-degree", failed, provider, config)
    generators = [r for r in provider.calls if r.role == "generator"]
    assert len(provider.calls) == config.planned_calls() == 8 and result.root.candidate.proof == "Merged."
    assert all("edges through two vertices are counted twice" in r.messages[0].content for r in generators)
    assert all("lem:edge-degree" in r.messages[0].content for r in generators)


async def test_the_budget_bounds_each_review_run_never_the_session(project):
    from dataclasses import replace

    from colosseum.models.errors import BudgetExceeded
    from colosseum.loops.review import ReviewConfig

    index = ProjectIndex.open(project)
    provider = ScriptedProvider(lambda r: PASS)
    reviewer = LocalReviewer(provider, LocalReviewCache(None), ReviewConfig(max_calls=2))
    labels = reviewer.reviewable(index)[:5]
    # three separate "Review this claim" commands in one editor session: each is a run of one call
    for label in labels[:3]:
        assert (await reviewer.review(index, label)).passed
    assert len(provider.calls) == 3
    # one run of more reviews than the budget is refused before any call
    with pytest.raises(BudgetExceeded, match="2 claims need a review; the budget is 1"):
        reviewer.config = replace(reviewer.config, max_calls=1)  # a changed budget is read at the next run
        await reviewer.review_many(index, labels[2:])  # labels[2] is cached: only two need a call
    assert len(provider.calls) == 3
    reviewer.config = replace(reviewer.config, max_calls=2)
    assert [r.cached for r in await reviewer.review_many(index, labels[1:])] == [True, True, False, False]
    assert len(provider.calls) == 5


async def test_a_claim_with_no_proof_costs_no_call(project):
    from colosseum.loops.review import NothingToReview

    index = ProjectIndex.open(project)
    provider = ScriptedProvider(lambda r: PASS)
    reviewer = LocalReviewer(provider, LocalReviewCache(None))
    assert index.claims["lem:resampling"].proof is None or not index.claims["lem:resampling"].proof.has_content
    assert not reviewer.needs_call(index, "lem:resampling")
    with pytest.raises(NothingToReview, match="nothing to review: `lem:resampling` has no proof"):
        await reviewer.review(index, "lem:resampling")
    empty = await reviewer.review(index, "lem:resampling", proof="  ")  # an empty draft fails, for free
    assert not empty.passed and "empty" in empty.reasons[0]
    assert provider.calls == []


def test_a_used_statement_kept_in_lean_is_said_to_be_there_not_given_empty(tmp_path):
    # infinity-cosmos, `review --label lem:equiv-htpy-equiv`: "statements it uses (take them as
    # given, with their hypotheses)" listed "[defn:cosmos]: " with nothing after it
    root = tmp_path / "paper"
    root.mkdir()
    (root / "main.tex").write_text(
        "\\documentclass{amsbook}\n\\newcommand{\\inputleannode}[1]{}\n\\newtheorem{lemma}{Lemma}\n"
        "\\begin{document}\n\\inputleannode{defn:cosmos}\n\\begin{lemma}\\label{lem:a}\\uses{defn:cosmos}A.\\end{lemma}\n"
        "\\begin{proof}By Definition \\ref{defn:cosmos}.\\end{proof}\n\\end{document}\n")
    used = dict(material(ProjectIndex.open(root), "lem:a").used)
    assert used["defn:cosmos"] == "(stated in the project's Lean code, not in the paper: take it as stated there)"
