"""The DAG for other graph tools: GraphML and GEXF (through networkx), and the transitive
reduction leanblueprint's graph draws on request.

The reduction drops a dependency edge ``A -> C`` when a longer path ``A -> B -> C`` already says
that C rests on A. It is computed on the condensation (each circular group one node), so the edges
of a circle are kept: in a circle every edge is implied by the others, and dropping them would hide
the circle the checks report. ``contains`` edges are never dropped.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from colosseum.graph.dag import DEPENDENCY_KINDS
from colosseum.graph.export import dag_dot, drawn_status, node_records

if TYPE_CHECKING:
    from colosseum.core.structure import Edge
    from colosseum.graph.view import DrawnProject as ProjectIndex


def reduced_edges(edges: list["Edge"]) -> list["Edge"]:
    """``edges`` without the dependency edges a longer path implies (cycles' edges kept)."""
    import networkx as nx  # the reduction only on request: importing networkx costs 0.3 s

    uses = nx.DiGraph((e.source, e.target) for e in edges if e.kind in DEPENDENCY_KINDS)
    condensed = nx.condensation(uses)
    group = condensed.graph["mapping"]  # node -> its strongly connected component
    kept = set(nx.transitive_reduction(condensed).edges())
    return [e for e in edges if e.kind not in DEPENDENCY_KINDS or group[e.source] == group[e.target]
            or (group[e.source], group[e.target]) in kept]


class _ReducedGraph:
    """A graph that reads as ``graph`` but with fewer edges: what the renderers read."""

    def __init__(self, graph, edges: list["Edge"]):
        self._graph = graph
        self.edges = edges

    def dependency_edges(self) -> list["Edge"]:
        return [e for e in self.edges if e.kind in DEPENDENCY_KINDS]

    def __getattr__(self, name):
        return getattr(self._graph, name)


class _ReducedProject:
    def __init__(self, index: "ProjectIndex"):
        self._index = index
        self.graph = _ReducedGraph(index.graph, reduced_edges(list(index.graph.edges)))

    def __getattr__(self, name):
        return getattr(self._index, name)


def transitively_reduced(index: "ProjectIndex") -> "ProjectIndex":
    """The project as every renderer reads it, its graph transitively reduced."""
    return _ReducedProject(index)  # type: ignore[return-value]


def _networkx_graph(index: "ProjectIndex"):
    import networkx as nx

    drawn = nx.MultiDiGraph()
    for node in node_records(index):
        # GraphML and GEXF take scalars only: a missing title is "", a missing draft False
        drawn.add_node(node["id"], label=node["id"], kind=node["kind"], title=node["title"] or "",
                       status=drawn_status(node), file=node["file"], line=node["line"],
                       draft=bool(node.get("draft", False)))
    for edge in index.graph.edges:
        drawn.add_edge(edge.source, edge.target, kind=edge.kind)
    return drawn


def dag_graphml(index: "ProjectIndex") -> str:
    import networkx as nx

    return "\n".join(nx.generate_graphml(_networkx_graph(index)))


def dag_gexf(index: "ProjectIndex") -> str:
    import networkx as nx

    out = io.BytesIO()
    nx.write_gexf(_networkx_graph(index), out)
    return out.getvalue().decode("utf-8")


class GraphvizMissing(RuntimeError):
    """``--format svg`` where graphviz's ``dot`` is not installed."""


def dag_svg(index: "ProjectIndex") -> str:
    """The DOT drawing laid out by graphviz's ``dot`` (the layout a reader of a blueprint knows)."""
    import shutil
    import subprocess

    dot = shutil.which("dot")
    if dot is None:
        raise GraphvizMissing("colosseum dag --format svg needs graphviz's `dot` program, which is not on PATH: "
                              "install graphviz (apt-get install graphviz, brew install graphviz), or use "
                              "--format html, which needs nothing")
    done = subprocess.run([dot, "-Tsvg"], input=dag_dot(index), capture_output=True, text=True, encoding="utf-8")
    if done.returncode != 0:
        raise GraphvizMissing(f"graphviz's dot failed ({done.returncode}): {done.stderr.strip()[:500]}")
    return done.stdout
