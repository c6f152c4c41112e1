"""Global review with the scripted provider: the veto, merging duplicates, anchoring in the right
file and line, dismissals, the budget, and a long document read in parts along the DAG."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from colosseum.index import ProjectIndex
from colosseum.models.errors import BudgetExceeded, SolveCancelled
from colosseum.models.scripted_provider import ScriptedProvider
from colosseum.loops.review import DismissalStore, ReviewConfig, review_document, write_report

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"
EDGE_BOUND = "every edge of $H$ meets at most $k(\\Delta-1)$ other edges"  # local-structure.tex, line 17
LLL_CONDITION = "\\euler\\, p\\, (d+1) \\le 1,"  # preliminaries.tex, line 42


@pytest.fixture
def project(tmp_path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "paper")
    return tmp_path / "paper"


def critique(quote: str, severity: str = "major", kind: str = "gap", message: str = "a problem",
             file: str = "main.tex", line: int = 1) -> dict:
    return {"severity": severity, "kind": kind, "file": file, "line": line, "quote": quote, "message": message,
            "repair": ""}


def reviewers(answers: dict[int, dict]):
    """A script: reviewer N (read from its slot) gives answers[N]; the synthesis accepts."""
    def answer(request):
        if request.role == "review_synthesis":
            return {"verdict": "accepted", "reasons": [], "critiques": [], "withdrawn": []}
        n = int(re.search(r"reviewer (\d+) of", request.messages[0].content).group(1))
        return answers.get(n, {"verdict": "accepted", "reasons": ["sound"], "critiques": []})
    return answer


async def test_one_concrete_fatal_flaw_rejects_however_many_reviewers_accept(project):
    index = ProjectIndex.open(project)
    fatal = critique(EDGE_BOUND, "fatal", "missing-case", "edges meeting e in several vertices are not handled")
    provider = ScriptedProvider(reviewers({3: {"verdict": "rejected", "reasons": ["x"], "critiques": [fatal]}}))
    report = await review_document(index, provider, ReviewConfig(reviewers=5))
    assert len(provider.calls) == 5 and [v.verdict for v in report.reviewer_verdicts].count("accepted") == 4
    assert report.verdict == "rejected" and report.vetoes == [report.critiques[0].id]
    assert any("Veto" in r for r in report.reasons) and any("not a vote" in r for r in report.reasons)


async def test_a_fatal_critique_whose_quote_is_not_in_the_paper_does_not_veto(project):
    index = ProjectIndex.open(project)
    invented = critique("every edge meets at most k Delta edges", "fatal", "gap", "invented text")
    report = await review_document(index, ScriptedProvider(reviewers({1: {
        "verdict": "rejected", "reasons": [], "critiques": [invented]}})), ReviewConfig(reviewers=3))
    assert report.verdict == "revise" and report.vetoes == []
    (c,) = report.critiques
    assert not c.anchored and c.file is None and c.line is None and report.unanchored == 1
    assert report.to_json(project)["critiques"][0] == {
        "file": None, "line": None, "severity": "fatal", "kind": "gap", "message": "invented text",
        "quote": invented["quote"], "anchored": False}


async def test_critiques_that_say_the_same_thing_are_merged_and_different_ones_kept(project):
    index = ProjectIndex.open(project)
    script = {
        1: {"verdict": "revise", "reasons": [], "critiques": [
            critique(EDGE_BOUND, message="the count ignores e itself"),
            critique(LLL_CONDITION, kind="hypothesis-not-met", message="p must bound every event")]},
        2: {"verdict": "revise", "reasons": [], "critiques": [
            critique("meets at most $k(\\Delta-1)$ other edges", "fatal", message="the bound on other edges is unproved")]},
        3: {"verdict": "revise", "reasons": [], "critiques": [
            critique(EDGE_BOUND, kind="notation-drift", message="Delta is used for two things")]},
    }
    report = await review_document(index, ScriptedProvider(reviewers(script)), ReviewConfig(reviewers=3))
    by_kind = {(c.kind, c.file.name): c for c in report.critiques}
    assert len(report.critiques) == 3  # 4 critiques, two of them the same gap
    gap = by_kind[("gap", "local-structure.tex")]
    assert gap.reviewers == ("reviewer 2", "reviewer 1") and gap.severity == "fatal"  # the most severe leads
    assert gap.message == "the bound on other edges is unproved" and gap.also == ("the count ignores e itself",)
    assert by_kind[("notation-drift", "local-structure.tex")].reviewers == ("reviewer 3",)
    assert by_kind[("hypothesis-not-met", "preliminaries.tex")].reviewers == ("reviewer 1",)


async def test_quotes_land_on_the_right_file_and_line_whatever_the_reviewer_says(project):
    index = ProjectIndex.open(project)
    script = {1: {"verdict": "revise", "reasons": [], "critiques": [
        critique(EDGE_BOUND, file="main.tex", line=3),  # wrong file, wrong line
        critique(LLL_CONDITION, kind="hypothesis-not-met", file="sections/preliminaries.tex", line=99)]}}
    report = await review_document(index, ScriptedProvider(reviewers(script)), ReviewConfig(reviewers=1))
    found = {c.kind: c for c in report.critiques}
    lines = (project / "sections" / "local-structure.tex").read_text().splitlines()
    edge = found["gap"]
    assert index.relative(edge.file) == "sections/local-structure.tex" and edge.line == 17
    assert edge.range.start.character == lines[16].index("every edge") and edge.range.end.line == 17
    assert index.relative(found["hypothesis-not-met"].file) == "sections/preliminaries.tex"
    assert found["hypothesis-not-met"].line == 42
    data = report.to_json(project)
    assert set(data) == {"verdict", "critiques", "usage"} and data["usage"]["calls"] == 1
    assert {(c["file"], c["line"]) for c in data["critiques"]} == {("sections/local-structure.tex", 17),
                                                                   ("sections/preliminaries.tex", 42)}


async def test_a_dismissal_holds_while_the_quoted_text_is_unchanged_and_lapses_when_it_changes(project):
    index = ProjectIndex.open(project)
    fatal = critique(EDGE_BOUND, "fatal")
    provider = ScriptedProvider(reviewers({1: {"verdict": "rejected", "reasons": [], "critiques": [fatal]}}))
    first = await review_document(index, provider, ReviewConfig(reviewers=1))
    assert first.verdict == "rejected"
    DismissalStore(project).dismiss(first.critiques[0])
    second = await review_document(index, provider, ReviewConfig(reviewers=1))
    assert second.verdict == "accepted" and second.critiques[0].dismissed and second.to_json(project)["critiques"] == []
    assert any("dismissed by the author" in r for r in second.reasons)
    path = write_report(second, index)
    assert "Dismissed by the author (1)" in path.read_text() and path.parent == project / ".colosseum" / "reviews"
    # the author edits the attacked text: the same complaint about the new text comes back
    source = project / "sections" / "local-structure.tex"
    source.write_text(source.read_text().replace("at most $k(\\Delta-1)$ other edges.", "at most $k\\Delta$ other edges."))
    index.update_document(source, None)
    fatal_new = critique("every edge of $H$ meets at most $k\\Delta$ other edges", "fatal")
    provider = ScriptedProvider(reviewers({1: {"verdict": "rejected", "reasons": [], "critiques": [fatal_new]}}))
    third = await review_document(index, provider, ReviewConfig(reviewers=1))
    assert third.verdict == "rejected" and not third.critiques[0].dismissed


async def test_the_budget_is_checked_before_any_call_and_cancellation_stops_the_review(project):
    index = ProjectIndex.open(project)
    provider = ScriptedProvider(reviewers({}))
    with pytest.raises(BudgetExceeded, match="needs 3 model calls; the budget is 2"):
        await review_document(index, provider, ReviewConfig(reviewers=3, max_calls=2))
    assert provider.calls == []

    def cancel_when_reviewing(stage, done, total):
        if stage == "reviewing" and done >= 1:
            raise SolveCancelled()

    with pytest.raises(BaseException) as stopped:
        await review_document(index, provider, ReviewConfig(reviewers=3), cancel_when_reviewing)
    assert stopped.group_contains(SolveCancelled) if isinstance(stopped.value, BaseExceptionGroup) else \
        isinstance(stopped.value, SolveCancelled)
    assert len(provider.calls) == 3  # the three reviewers were already asked together; nothing after

    def cancel_while_counting(stage, done, total):
        if stage == "counting tokens" and done == 1:
            raise SolveCancelled()

    with pytest.raises(SolveCancelled):
        await review_document(index, provider, ReviewConfig(reviewers=3), cancel_while_counting)
    assert len(provider.calls) == 3  # cancelled before the reviewers: not one more call


async def test_a_document_longer_than_the_window_is_read_in_parts_along_the_dag_then_synthesized(project):
    index = ProjectIndex.open(project)
    config = ReviewConfig(reviewers=2, context_tokens=8_000, output_tokens=1_000)
    budget = config.part_budget()

    def answer(request):
        reviewer = int(re.search(r"reviewer (\d+) of", request.messages[0].content).group(1))
        if request.role == "review_synthesis":
            withdrawn = [{"finding": f, "why": "lem:mutual-independence is proved in the appendix"}
                         for f in re.findall(r"\[(R\d+\.P\d+\.\d+)\] major wrong-dependency", request.messages[0].content)]
            return {"verdict": "revise", "reasons": ["cross-part"], "withdrawn": withdrawn, "critiques": [
                critique("Let $H$ be a $k$-uniform hypergraph with $\\Delta(H) \\le \\Delta$.", "minor",
                         "notation-drift", "Delta is both a bound and a maximum")]}
        if "\\begin{lemma}\\label{lem:edge-degree}" in request.system:
            return {"verdict": "revise", "reasons": [], "critiques": [
                critique(EDGE_BOUND), critique("so $D_H$ is a dependency graph by", kind="wrong-dependency")]}
        return {"verdict": "accepted", "reasons": [], "critiques": []}

    provider = ScriptedProvider(answer)
    report = await review_document(index, provider, config)
    plan = report.split
    assert plan is not None and plan.exact and plan.budget == budget and plan.document_tokens > budget
    parts = len(plan.parts)
    assert parts >= 2 and len(provider.calls) == 2 * parts + 2  # every part by each reviewer, then 2 syntheses
    reviews = [r for r in provider.calls if r.role == "global_reviewer"]
    sizes = [await provider.count_tokens(r) for r in reviews]
    assert max(sizes) <= budget  # each request within the window
    # every file is read, each part with the statements it relies on from other parts
    assert {f for p in plan.parts for f in p.files} >= {"main.tex", "sections/deferred-proofs.tex"}
    appendix = next(p for p in plan.parts if "sections/deferred-proofs.tex" in p.files)
    assert "lem:mutual-independence" in appendix.relies_on  # its proof is there, its statement is not
    sent = next(r for r in reviews if "Deferred proofs" in r.system)
    for label in appendix.relies_on:
        statement = index.claims[label].statement_text.strip()
        assert f"[{label}]" in sent.system and statement in sent.system
    # cut along the DAG: a part relies only on statements of earlier parts (in reading order the
    # introduction, which cites the main results, would come first and rely on later parts)
    def part_of(label):
        claim = index.claims[label]
        line = claim.location.range.start.line + 1
        systems = [next(r.system for r in reviews if f"Part {i + 1} of {parts}" in r.system) for i in range(parts)]
        return next(i for i, system in enumerate(systems)
                    if f'<file path="{index.relative(claim.file)}"' in system and f"\n{line}| " in system)
    for i, p in enumerate(plan.parts):
        assert all(part_of(label) < i for label in p.relies_on)
    assert any(p.relies_on for p in plan.parts)
    # the synthesis withdrew the split artefact (with why) and added a cross-part critique
    assert report.withdrawn and all("appendix" in why for why in report.withdrawn.values())
    kinds = {c.kind for c in report.critiques}
    assert "wrong-dependency" not in kinds and {"gap", "notation-drift"} <= kinds
    assert report.verdict == "revise" and any("reviewed in" in r and "parts" in r for r in report.reasons)
    assert "## Read in parts" in write_report(report, index).read_text()


async def test_the_report_names_the_model_behind_a_cache_and_an_unchanged_rerun_costs_no_call(project, tmp_path):
    from colosseum.models.response_cache import CachedProvider

    index = ProjectIndex.open(project)
    scripted = ScriptedProvider(reviewers({}), model="claude-sonnet-4-5-test")
    cached = CachedProvider(scripted, tmp_path / "cache")
    first = await review_document(index, cached, ReviewConfig(reviewers=2))
    second = await review_document(index, cached, ReviewConfig(reviewers=2))
    assert first.model == second.model == "claude-sonnet-4-5-test"
    assert len(scripted.calls) == 2 and second.usage.calls == 0 and second.cache_hits == 2
    assert first.verdict == second.verdict == "accepted"


def test_review_settings_are_checked_key_by_key_with_the_defaults_kept(make_project, tmp_path):
    from colosseum.settings.project import load_config
    from colosseum.loops.review import review_config

    root = make_project(tmp_path, {"colosseum.toml": '[review]\nreviewers = 0\ncontext_tokens = 50000\n'
                                                     'colour = "red"\n[budget]\nmax_calls = 40\n'})
    loaded = load_config(root)
    config, problems = review_config(loaded)
    assert config.reviewers == 3 and config.context_tokens == 50000 and config.max_calls == 40
    # the table's problems are reported once, by colosseum.settings.project, with the others' (and the server
    # shows them on colosseum.toml)
    assert problems == [] and sorted(p.key for p in loaded.problems) == ["review.colour", "review.reviewers"]
    config, _ = review_config(load_config(root), max_calls=7, reviewers=2, model="m")
    assert (config.max_calls, config.reviewers, config.model) == (7, 2, "m")


DOUBLE_COUNT = "Summing over the $k$ vertices of $e$"  # local-structure.tex, line 24


async def test_a_dismissed_minor_remark_never_hides_a_fatal_flaw_about_the_same_words(project):
    index = ProjectIndex.open(project)
    remark = critique(DOUBLE_COUNT, "minor", message="wording")
    first = await review_document(index, ScriptedProvider(reviewers({1: {
        "verdict": "revise", "reasons": [], "critiques": [remark]}})), ReviewConfig(reviewers=1))
    store = DismissalStore(project)
    store.dismiss(first.critiques[0])
    # another reviewer now finds a fatal flaw in nearly the same words (merged with the remark),
    # and a third says the very same words are fatal: neither is covered by the minor dismissal
    nearly = critique(DOUBLE_COUNT + " counts every edge", "fatal", message="the sum misses edges")
    same = critique(DOUBLE_COUNT, "fatal", message="the same words, fatal")
    shown = {}
    for fatal in (nearly, same):
        provider = ScriptedProvider(reviewers({1: {"verdict": "revise", "reasons": [], "critiques": [remark]},
                                               2: {"verdict": "rejected", "reasons": [], "critiques": [fatal]}}))
        report = await review_document(index, provider, ReviewConfig(reviewers=2))
        (merged,) = report.critiques
        assert merged.severity == "fatal" and not merged.dismissed and merged.message == fatal["message"]
        assert report.verdict == "rejected" and report.vetoes == [merged.id]
        assert [c["message"] for c in report.to_json(project)["critiques"]] == [fatal["message"]]
        shown[fatal["message"]] = merged
    # dismissing the merged critique records every member's key, so the whole group stays dismissed
    merged = shown[nearly["message"]]
    store = DismissalStore(project)
    store.dismiss(merged)
    assert set(merged.all_keys) <= set(store.entries()) and len(merged.all_keys) == 2
    provider = ScriptedProvider(reviewers({1: {"verdict": "revise", "reasons": [], "critiques": [remark]},
                                           2: {"verdict": "rejected", "reasons": [], "critiques": [nearly]}}))
    again = await review_document(index, provider, ReviewConfig(reviewers=2))
    assert again.verdict == "accepted" and all(c.dismissed for c in again.critiques)


async def test_different_critiques_under_one_long_quote_keep_their_own_ranges(project):
    index = ProjectIndex.open(project)
    whole_proof = critique("Let $e$ be an edge. ... \\end{proof}", message="the proof is sketchy overall")
    degree = critique("$\\deg_H(v) - 1 \\le \\Delta - 1$", "fatal", message="wrong when v has degree 0")
    conclusion = critique("so at most $k(\\Delta-1)$ edges other than $e$ meet $e$", message="double counts")
    provider = ScriptedProvider(reviewers({1: {"verdict": "revise", "reasons": [], "critiques": [whole_proof]},
                                           2: {"verdict": "rejected", "reasons": [], "critiques": [degree]},
                                           3: {"verdict": "revise", "reasons": [], "critiques": [conclusion]}}))
    report = await review_document(index, provider, ReviewConfig(reviewers=3))
    assert len(report.critiques) == 3 and all(c.also == () and len(c.reviewers) == 1 for c in report.critiques)
    lines = (project / "sections" / "local-structure.tex").read_text().splitlines()
    by_message = {c.message: c for c in report.critiques}
    for item in (degree, conclusion):  # each on the exact span it quotes
        c = by_message[item["message"]]
        quote = item["quote"].replace("\\\\", "\\")
        line = next(i for i, text in enumerate(lines) if quote in text)
        assert (c.range.start.line, c.range.start.character) == (line, lines[line].index(quote))
        assert (c.range.end.line, c.range.end.character) == (line, lines[line].index(quote) + len(quote))
    sketchy = by_message["the proof is sketchy overall"]
    assert (sketchy.range.start.line, sketchy.range.end.line) == (21, 26)
    # overlaps are not chained: A and B nearly coincide, B and C too, but A and C do not
    a = critique("\\le \\Delta - 1$. Summing over the", message="A")
    b = critique("\\Delta - 1$. Summing over the $k$ vertices", message="B")
    c = critique("Summing over the $k$ vertices of $e$", message="C")
    provider = ScriptedProvider(reviewers({n + 1: {"verdict": "revise", "reasons": [], "critiques": [x]}
                                           for n, x in enumerate((a, b, c))}))
    chained = await review_document(index, provider, ReviewConfig(reviewers=3))
    groups = sorted(sorted((x.message, *x.also)) for x in chained.critiques)
    assert groups == [["A", "B"], ["C"]]


async def test_the_reviewers_are_told_a_statement_kept_in_lean_is_not_in_the_paper(tmp_path):
    # infinity-cosmos: 45 lines `\inputleannode{defn:...}` reached the reviewers with no word that
    # each stands for a statement kept in the Lean project, an invitation to report them as missing
    root = tmp_path / "paper"
    root.mkdir()
    (root / "main.tex").write_text(
        "\\documentclass{amsbook}\n\\newcommand{\\inputleannode}[1]{}\n\\newtheorem{lemma}{Lemma}\n"
        "\\begin{document}\n\\inputleannode{defn:iso}\n\\begin{lemma}\\label{lem:a}\\uses{defn:iso}Isos compose.\\end{lemma}\n"
        "\\begin{proof}By Definition \\ref{defn:iso}.\\end{proof}\n\\end{document}\n")
    provider = ScriptedProvider(reviewers({}))
    await review_document(ProjectIndex.open(root), provider, ReviewConfig(reviewers=1))
    (call,) = provider.calls
    assert "\\inputleannode{defn:iso}" in call.system
    assert "A line like \\inputleannode{X} stands for a statement kept in the project's Lean code" in call.system
