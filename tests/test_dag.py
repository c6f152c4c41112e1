"""The dependency DAG: edges, their kinds and direction, and its queries checked against networkx."""

from __future__ import annotations

import tempfile
from pathlib import Path

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from colosseum.graph.dag import DependencyGraph
from colosseum.index import ProjectIndex
from colosseum.core.structure import Edge

PREAMBLE = "\\documentclass{article}\n\\usepackage{amsthm}\n"


def doc(body: str) -> str:
    return PREAMBLE + "\\begin{document}\n" + body + "\n\\end{document}\n"


def open_doc(make_project, tmp_path, body: str) -> ProjectIndex:
    return ProjectIndex.open(make_project(tmp_path, {"main.tex": doc(body)}))


def dep_edges(index: ProjectIndex) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.kind) for e in index.graph.dependency_edges()}


# ---- edges built from a project ----------------------------------------------------------------------


def test_edge_kinds_and_direction(make_project, tmp_path):
    body = ("\\section{Main}\\label{sec:main}\n"
            "\\begin{definition}\\label{def:d}A widget.\\end{definition}\n"
            "\\begin{lemma}\\label{lem:a}Every \\cref{def:d} is blue.\\end{lemma}\n"
            "\\begin{proof}Look.\\end{proof}\n"
            "\\subsection{More}\\label{sec:more}\n"
            "\\begin{theorem}\\label{thm:t}All is well.\\end{theorem}\n"
            "\\begin{proof}\\uses{lem:a} By \\cref{lem:a}.\\end{proof}\n")
    index = open_doc(make_project, tmp_path, body)
    assert dep_edges(index) == {
        ("def:d", "lem:a", "statement-uses"),  # the source is used by the target
        ("lem:a", "thm:t", "proof-uses"),
    }
    contains = {(e.source, e.target) for e in index.graph.edges if e.kind == "contains"}
    assert contains == {("sec:main", "def:d"), ("sec:main", "lem:a"), ("sec:main", "sec:more"),
                        ("sec:more", "thm:t")}
    assert all(isinstance(e, Edge) for e in index.graph.edges)
    # no duplicate edges although lem:a is cited twice
    assert len([e for e in index.graph.edges if (e.source, e.target) == ("lem:a", "thm:t")]) == 1
    assert index.graph.ancestors("thm:t") == {"lem:a", "def:d"}
    assert index.graph.descendants("def:d") == {"lem:a", "thm:t"}
    assert index.graph.generations() == [["def:d", "sec:main", "sec:more"], ["lem:a"], ["thm:t"]]


def test_reference_to_an_equation_inside_a_claim_is_a_use_of_the_claim(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:B}\n\\begin{equation}\\label{eq:key} x = y \\end{equation}\n\\end{lemma}\n"
            "\\begin{theorem}\\label{thm:A}By \\eqref{eq:key}, done.\\end{theorem}\n"
            "\\begin{corollary}\\label{cor:C}C.\\end{corollary}\n"
            "\\begin{proof}Apply \\eqref{eq:key}.\\end{proof}\n")
    index = open_doc(make_project, tmp_path, body)
    assert dep_edges(index) == {("lem:B", "thm:A", "statement-uses"), ("lem:B", "cor:C", "proof-uses")}


def test_equation_in_a_proof_is_a_use_of_the_proved_claim(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:B}B.\\end{lemma}\n"
            "\\begin{proof}\\begin{equation}\\label{eq:pf}z\\end{equation}\\end{proof}\n"
            "\\begin{lemma}\\label{lem:C}C.\\end{lemma}\n"
            "\\begin{proof}As in \\eqref{eq:pf}.\\end{proof}\n")
    index = open_doc(make_project, tmp_path, body)
    assert dep_edges(index) == {("lem:B", "lem:C", "proof-uses")}


def test_self_reference_title_reference_and_proves_make_no_edges(make_project, tmp_path):
    body = ("\\begin{lemma}\\label{lem:S}\\begin{equation}\\label{eq:s}a\\end{equation}"
            "As \\eqref{eq:s} shows.\\end{lemma}\n"
            "\\begin{lemma}\\label{lem:T}T.\\end{lemma}\n"
            "\\begin{proof}[Proof of \\cref{lem:S}]Using \\eqref{eq:s} again.\\end{proof}\n"
            "\\begin{proof}\\proves{lem:T}Easy.\\end{proof}\n")
    index = open_doc(make_project, tmp_path, body)
    assert dep_edges(index) == set()


def test_undefined_reference_makes_no_edge(make_project, tmp_path):
    index = open_doc(make_project, tmp_path,
                     "\\begin{lemma}\\label{lem:a}X\\end{lemma}\\begin{proof}By \\cref{nope}.\\end{proof}")
    assert dep_edges(index) == set()
    assert set(index.graph.node_kind) == {"lem:a"}


def test_networkx_mirror_matches(make_project, tmp_path):
    body = ("\\section{S}\\label{sec:s}\n"
            "\\begin{lemma}\\label{lem:a}A\\end{lemma}\\begin{proof}ok\\end{proof}\n"
            "\\begin{lemma}\\label{lem:b}By \\cref{lem:a}.\\end{lemma}\\begin{proof}\\uses{lem:a} ok\\end{proof}\n")
    index = open_doc(make_project, tmp_path, body)
    g = index.graph.nx
    assert set(g.nodes) == set(index.graph.node_kind) == {"sec:s", "lem:a", "lem:b"}
    assert set(g.edges) == {(e.source, e.target) for e in index.graph.edges}
    assert g.nodes["lem:a"]["kind"] == "lemma"
    assert g.nodes["sec:s"]["status"] == "proved"
    assert g.edges["lem:a", "lem:b"]["kinds"] == {"statement-uses", "proof-uses"}


def test_a_proof_that_uses_its_own_claim_is_a_circular_argument_on_the_uses(make_project, tmp_path, capsys):
    """\\begin{proof}\\uses{thm:a} under thm:a: a circle of length one, reported on the \\uses; no
    self-edge, so the statuses settle (the claim is proved by its proof, not waiting on itself)."""
    body = ("\\begin{lemma}\\label{lem:b}B\\end{lemma}\\begin{proof}ok\\end{proof}\n"
            "\\begin{theorem}\\label{thm:a}A, see Theorem~\\ref{thm:a}.\\end{theorem}\n"
            "\\begin{proof}\n\\uses{lem:b, thm:a}By \\cref{lem:b}.\\end{proof}\n")
    root = make_project(tmp_path, {"main.tex": doc(body)})
    index = ProjectIndex.open(root)
    [finding] = [d for d in index.diagnostics() if d.code == "colosseum/dependency-cycle"]
    assert finding.severity == "error" and "`thm:a` -> `thm:a`" in finding.message
    line = doc(body).splitlines()[finding.range.start.line]
    assert line.startswith("\\uses{lem:b, thm:a}") and "thm:a" in line[finding.range.start.character:finding.range.end.character]
    assert ("thm:a", "thm:a") not in {(e.source, e.target) for e in index.graph.edges}
    assert index.graph.status["thm:a"] == "proved" and index.graph.cycles() == []
    # a statement's own \\ref of itself is a mention, not a use: nothing when the \\uses goes
    (root / "main.tex").write_text(doc(body.replace("\\uses{lem:b, thm:a}", "\\uses{lem:b}")))
    assert not [d for d in ProjectIndex.open(root).diagnostics() if d.code == "colosseum/dependency-cycle"]
    from colosseum.cli.main import main
    (root / "main.tex").write_text(doc(body))
    assert main(["check", str(root)]) == 1
    assert "circular argument" in capsys.readouterr().out


# ---- random projects ----------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_projects_edges_match_the_citations(data):
    n = data.draw(st.integers(1, 8), label="claims")
    stmt_cites = [data.draw(st.sets(st.integers(0, n - 1), max_size=3), label=f"stmt{i}") for i in range(n)]
    proof_cites = [data.draw(st.sets(st.integers(0, n - 1), max_size=3), label=f"proof{i}") for i in range(n)]
    parts = []
    for i in range(n):
        sc = ", ".join(f"c{j}" for j in sorted(stmt_cites[i]))
        pc = ", ".join(f"c{j}" for j in sorted(proof_cites[i]))
        parts.append(f"\\begin{{lemma}}\\label{{c{i}}}Claim {i}" + (f" \\cref{{{sc}}}" if sc else "") + ".\\end{lemma}")
        parts.append("\\begin{proof}Argument" + (f" \\uses{{{pc}}}" if pc else "") + ".\\end{proof}")
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "main.tex").write_text(doc("\n".join(parts)), encoding="utf-8")
        index = ProjectIndex.open(tmp)
        expected = {(f"c{j}", f"c{i}", "statement-uses") for i in range(n) for j in stmt_cites[i] if j != i}
        expected |= {(f"c{j}", f"c{i}", "proof-uses") for i in range(n) for j in proof_cites[i] if j != i}
        assert dep_edges(index) == expected
        g = nx.DiGraph()
        g.add_nodes_from(f"c{i}" for i in range(n))
        g.add_edges_from((s, t) for s, t, _ in expected)
        assert {frozenset(c) for c in index.graph.strongly_connected_components()} == {
            frozenset(c) for c in nx.strongly_connected_components(g)}
        proof_graph = nx.DiGraph()
        proof_graph.add_nodes_from(g.nodes)
        proof_graph.add_edges_from((s, t) for s, t, k in expected if k == "proof-uses")
        circular = [set(c) for c in nx.strongly_connected_components(proof_graph) if len(c) > 1]
        cycles = index.graph.cycles()
        assert len(cycles) == len(circular)
        for cycle in cycles:  # one closed path inside each circular group
            assert cycle[0] == cycle[-1]
            assert sum(set(cycle) <= comp for comp in circular) == 1
            assert all(proof_graph.has_edge(s, t) for s, t in zip(cycle, cycle[1:]))
        flagged = {d.range.start.line for d in index.diagnostics() if d.code == "colosseum/dependency-cycle"}
        # a proof that \uses its own claim is a circle of length one (no edge: a finding on the \uses)
        self_uses = any(i in proof_cites[i] for i in range(n))
        assert bool(flagged) == bool(circular or self_uses)


# ---- graph queries against networkx on random graphs ---------------------------------------------------


def graph_from(n: int, edges: list[tuple[int, int]]) -> tuple[DependencyGraph, nx.DiGraph]:
    graph = DependencyGraph()
    g = nx.DiGraph()
    for i in range(n):
        graph._add_node(f"n{i:02d}", "lemma")
        g.add_node(f"n{i:02d}")
    for a, b in edges:
        s, t = f"n{a:02d}", f"n{b:02d}"
        graph.succ[s].add(t)
        graph.pred[t].add(s)
        graph.truth_succ[s].add(t)
        graph.edges.append(Edge(s, t, "proof-uses"))
        g.add_edge(s, t)
    return graph, g


random_graphs = st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n)))
random_dags = st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                         .filter(lambda e: e[0] != e[1]).map(lambda e: (min(e), max(e))), max_size=3 * n)))


@settings(max_examples=150, deadline=None)
@given(random_graphs)
def test_strongly_connected_components_match_networkx(case):
    graph, g = graph_from(*case)
    ours = graph.strongly_connected_components()
    assert sorted(len(c) for c in ours) == sorted(len(c) for c in nx.strongly_connected_components(g))
    assert {frozenset(c) for c in ours} == {frozenset(c) for c in nx.strongly_connected_components(g)}
    assert all(c == sorted(c) for c in ours)


@settings(max_examples=150, deadline=None)
@given(random_graphs)
def test_ancestors_and_descendants_match_networkx(case):
    graph, g = graph_from(*case)
    for node in g.nodes:
        assert graph.ancestors(node) == nx.ancestors(g, node)
        assert graph.descendants(node) == nx.descendants(g, node)
    assert graph.ancestors("not-a-node") == set()


@settings(max_examples=150, deadline=None)
@given(random_dags)
def test_generations_match_networkx_on_dags(case):
    graph, g = graph_from(*case)
    assert graph.generations() == [sorted(layer) for layer in nx.topological_generations(g)]


@settings(max_examples=150, deadline=None)
@given(random_graphs)
def test_generations_with_cycles_put_circular_nodes_last(case):
    graph, g = graph_from(*case)
    layers = graph.generations()
    flat = [n for layer in layers for n in layer]
    assert sorted(flat) == sorted(g.nodes) and len(flat) == len(set(flat))
    on_cycle = {n for c in nx.strongly_connected_components(g) if len(c) > 1 or g.has_edge(*(list(c) * 2)[:2])
                for n in c}
    layer_of = {n: i for i, layer in enumerate(layers) for n in layer}
    if on_cycle:
        assert on_cycle <= set(layers[-1])
        # what the last layer holds beyond the cycles is exactly what rests on them
        assert set(layers[-1]) == on_cycle | {d for n in on_cycle for d in nx.descendants(g, n)}
    for s, t in g.edges:
        if not on_cycle or layer_of[t] != len(layers) - 1:
            assert layer_of[s] < layer_of[t]


@settings(max_examples=150, deadline=None)
@given(random_graphs)
def test_cycles_are_shortest_closed_paths_one_per_component(case):
    graph, g = graph_from(*case)
    cycles = graph.cycles()
    components = [c for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert len(cycles) == len(components)
    assert all(sum(set(c) <= comp for comp in components) == 1 for c in cycles)
    assert len({frozenset(next(comp for comp in components if set(c) <= comp)) for c in cycles}) == len(cycles)
    for cycle in cycles:
        assert cycle[0] == cycle[-1] and len(cycle) >= 2  # [a, a] only for a self-loop
        assert len(set(cycle[:-1])) == len(cycle) - 1
        for s, t in zip(cycle, cycle[1:]):
            assert g.has_edge(s, t)
        start = cycle[0]
        comp = next(c for c in components if start in c)
        shortest = min(nx.shortest_path_length(g.subgraph(comp), start, p) + 1
                       for p in g.predecessors(start) if p in comp)
        assert len(cycle) - 1 == shortest


# ---- a project that starts or stops declaring its dependencies with \uses, edited -----------------

BLUEPRINT_FLIP = {
    "main.tex": doc("\\input{a}\n\\input{b}\n"),
    "a.tex": "\\begin{lemma}\\label{lem:a}A.\\end{lemma}\n\\begin{proof}By \\cref{lem:b}.\\end{proof}\n",
    "b.tex": ("\\begin{lemma}\\label{lem:b}B.\\end{lemma}\n"
              "\\begin{proof}Direct. This completes the proof of \\cref{lem:a}.\\end{proof}\nProse.\n"),
    "c.tex": "\\uses{lem:a}\n",  # not read until main.tex inputs it
}

# (file, old, new, what, circles after): with no \uses every proof reference closes a circle; with
# one anywhere only \uses (and statements using definitions) do
FLIP_STEPS = [
    ("a.tex", "By \\cref{lem:b}", "\\uses{lem:b} By \\cref{lem:b}", "a first \\uses: the \\cref is a mention", 0),
    ("a.tex", "\\uses{lem:b} By", "By", "the last \\uses gone: a paper again", 1),
    ("b.tex", "Prose.", "Prose \\uses{lem:nowhere}.", "a \\uses outside any claim, of no label", 0),
    ("a.tex", "By \\cref{lem:b}", "\\uses{lem:b} By \\cref{lem:b}", "one half of a circle of \\uses", 0),
    ("b.tex", "Direct.", "\\uses{lem:a} Direct.", "the circle of \\uses closed", 1),
    ("b.tex", "Prose \\uses{lem:nowhere}.", "Prose.", "a \\uses gone, others left", 1),
    ("b.tex", "\\uses{lem:a} Direct.", "Direct.", "the circle of \\uses broken", 0),
    ("a.tex", "\\uses{lem:b} By", "By", "the last \\uses gone again", 1),
    ("main.tex", "\\input{b}\n", "\\input{b}\n\\input{c}\n", "a file with a \\uses read", 0),
    ("main.tex", "\\input{c}\n", "", "and no longer read", 1),
]


def test_a_first_and_a_last_uses_change_what_closes_a_circle_like_a_cold_index(make_project, tmp_path):
    from test_incremental_index import Mirror

    mirror = Mirror(make_project(tmp_path / "src", BLUEPRINT_FLIP), tmp_path / "work")
    assert len(mirror.index.graph.cycles()) == 1
    for rel, old, new, what, circles in FLIP_STEPS:
        before = mirror.texts.get(rel, "")
        after = before.replace(old, new, 1)
        assert after != before, what
        mirror.edit(rel, after)
        mirror.check(what)
        assert len(mirror.index.graph.cycles()) == circles, what
        assert ("lem:a", "lem:b", "proof-uses") in dep_edges(mirror.index), what  # a mention is still a use


FLIP_SNIPPETS = ["\\uses{lem:a}", "\\uses{lem:b}", "\\cref{lem:a}", "\\cref{lem:b}", "\\begin{proof}",
                 "\\end{proof}", "\\begin{lemma}", "\\end{lemma}", "x", "\n", ""]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.booleans(), st.floats(0, 1), st.integers(0, 40), st.sampled_from(FLIP_SNIPPETS)),
                min_size=1, max_size=6))
def test_random_edits_adding_and_removing_uses_match_a_cold_index(tmp_path_factory, make_project, edits):
    from test_incremental_index import Mirror

    src = make_project(tmp_path_factory.mktemp("src"), BLUEPRINT_FLIP)
    mirror = Mirror(src, tmp_path_factory.mktemp("flip"))
    for n, (first, where, length, inserted) in enumerate(edits):
        rel = "a.tex" if first else "b.tex"
        text = mirror.texts[rel]
        start = int(where * len(text))
        mirror.edit(rel, text[:start] + inserted + text[start + length:])
        mirror.check(f"edit {n + 1} of {rel}: {length} characters at {where:.3f} replaced by {inserted!r}")
