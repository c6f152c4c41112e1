"""The circular groups after an edit are found from the last graph's: the groups no changed truth
edge touches are kept with their cycles, and the search runs only where a changed edge can have
made or broken a circle (colosseum.graph.status._updated_cycles). Checked on random graphs and
random edge changes against a search of the whole graph, and counted (searches of the whole
graph) on an edit that renames a claim sitting on a circle."""

from __future__ import annotations

import random

import pytest

import colosseum.graph.dag as dag
from colosseum.graph.dag import DependencyGraph
from colosseum.graph.status import keep_cycles


def _graph(edges: set[tuple[str, str]], order: dict[str, int] | None) -> DependencyGraph:
    graph = DependencyGraph()
    for used, user in edges:
        graph.truth_succ[used].add(user)
        graph.node_kind.setdefault(used, "lemma")
        graph.node_kind.setdefault(user, "lemma")
    if order is not None:
        graph._order = order
        graph._backward = {(u, v) for u, v in edges if order.get(v, 0) <= order.get(u, 0)}
    else:
        graph._backward = None
    return graph


@pytest.mark.parametrize("seed", range(60))
def test_cycles_kept_from_the_last_graph_are_those_of_a_search_of_the_whole_graph(seed):
    rng = random.Random(seed)
    nodes = [f"n{i:02d}" for i in range(rng.randint(4, 30))]
    order = {node: i for i, node in enumerate(nodes)} if seed % 2 else None
    edges = {(rng.choice(nodes), rng.choice(nodes)) for _ in range(rng.randint(3, 60))}
    previous = _graph(edges, order)
    previous.cycles()
    for _step in range(6):
        removed = set(rng.sample(sorted(edges), min(len(edges), rng.randint(0, 4))))
        added = {(rng.choice(nodes), rng.choice(nodes)) for _ in range(rng.randint(0, 4))} - edges
        edges = (edges - removed) | added
        graph = _graph(edges, order)
        keep_cycles(graph, previous, sorted(added), sorted(removed))
        fresh = _graph(edges, order)
        assert graph.cycles() == fresh.cycles()
        assert graph._circular == fresh._circular
        previous = graph


CIRCLE = {
    "main.tex": ("\\documentclass{article}\n\\usepackage{amsthm}\n\\newtheorem{lemma}{Lemma}\n"
                 "\\begin{document}\n\\input{a}\n\\end{document}\n"),
    "a.tex": "".join(
        f"\\begin{{lemma}}\\label{{lem:{n}}}L{n}.\\end{{lemma}}\n\\begin{{proof}}By \\cref{{lem:{m}}}.\\end{{proof}}\n"
        for n, m in [(0, 1), (1, 2), (2, 0), (3, 4), (4, 3), (5, 0), (6, 5)]),
}


def test_renaming_a_claim_on_a_circle_searches_only_its_group(make_project, tmp_path, monkeypatch):
    from test_incremental_index import Mirror

    mirror = Mirror(make_project(tmp_path / "src", CIRCLE), tmp_path / "work")
    assert len(mirror.index.graph.cycles()) == 2
    searches = []
    whole = dag.circular_groups
    monkeypatch.setattr(dag, "circular_groups", lambda succ: searches.append(1) or whole(succ))
    steps = [("\\label{lem:1}", "\\label{lem:one}", "\\cref{lem:1}", "\\cref{lem:one}"),  # renamed: edges go and come
             ("By \\cref{lem:0}.\\end{proof}\n\\begin{lemma}\\label{lem:3}", "By \\cref{lem:3}.\\end{proof}\n"
              "\\begin{lemma}\\label{lem:3}", "", ""),  # the two circles joined
             ("By \\cref{lem:3}.\\end{proof}\n\\begin{lemma}\\label{lem:3}", "By \\cref{lem:0}.\\end{proof}\n"
              "\\begin{lemma}\\label{lem:3}", "", "")]  # and parted again
    for old, new, old2, new2 in steps:
        text = mirror.texts["a.tex"]
        assert old in text
        text = text.replace(old, new, 1)
        if old2:
            text = text.replace(old2, new2, 1)
        mirror.edit("a.tex", text)
        mirror.index.diagnostics()
        assert searches == [], new
        mirror.check(new)  # a cold index searches the whole graph
        searches.clear()
