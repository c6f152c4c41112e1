"""The dependency DAG: nodes are claims and sections, ``A -> B`` means *B uses A*.

The queries the index needs on every edit (strongly connected components, generations,
reachability) are small linear-time algorithms over plain adjacency dicts: importing networkx
alone costs 0.3 s, more than indexing a whole blueprint. ``DependencyGraph.nx`` builds the
networkx mirror on first use, for everything else (drawing, ad-hoc analysis), and the tests
check every query here against networkx's own.

A graph is never changed once built: an edit makes a new one from the last
(colosseum.graph.update; its statuses and circular groups, colosseum.graph.status), sharing with it
what did not change.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from colosseum.core.structure import Claim, Edge
from colosseum.graph.cycles import circular_groups, components, in_name_order, shortest_cycle
from colosseum.graph.update import build_graph
from colosseum.graph.view import GraphInput
from colosseum.link.state import LinkChange

if TYPE_CHECKING:
    import networkx

DEPENDENCY_KINDS = ("statement-uses", "proof-uses")
STATUSES = ("proved", "open", "obligation", "conditional", "formal", "draft", "stated")


class DependencyGraph:
    def __init__(self):
        self.node_kind: dict[str, str] = {}  # id -> environment name or "section"
        self._edges: list[Edge] | None = []  # materialized from the edge tables when first read
        self._dependencies: dict[tuple[str, str, str], Edge] = {}  # (source, target, kind) -> edge
        self._counts: dict[tuple[str, str, str], int] = {}  # how many references make each
        self._contains: dict[str, Edge] = {}  # claim -> its section's edge to it
        self._section_contains: dict[str, Edge] = {}  # subsection -> its parent's edge to it
        self.succ: dict[str, set[str]] = defaultdict(set)  # dependency edges only
        self._pred: dict[str, set[str]] | None = defaultdict(set)
        self.proof_succ: dict[str, set[str]] = defaultdict(set)  # proof-uses only: what carries conditionality
        # edges along which truth depends, that can close a circle (colosseum.graph.update._closes)
        self.truth_succ: dict[str, set[str]] = defaultdict(set)
        self.status: dict[str, str] = {}
        self.conditional_on: dict[str, list[str]] = {}  # id -> path from an open obligation
        self.conditional_origins: dict[str, list[str]] = {}  # id -> every unsettled node its proof rests on
        self._nx = None
        self._cycles: list[list[str]] | None = None
        # what the next graph needs to be made from this one (colosseum.graph.update, dag_status)
        self._base: dict[str, str] = {}  # status before conditionality
        self._claim_info: dict[str, tuple] = {}  # claim -> (section, role, order) as last seen
        self._section_parent: dict[str, str | None] = {}
        self._section_order: dict[str, int] = {}
        self._contained: dict[str, int] = {}  # section -> how many claims and sections it holds
        self._reached: set[str] = set()  # every node the conditional search went through
        self._unsettled: set[str] = set()  # the origins of that search and what it made conditional
        self._circular: dict[str, int] = {}  # node -> its circular group, when cycles() ran
        # truth edges that do not go forward in reading order: a circle needs one, so with none
        # there is none (papers cite what comes before)
        self._backward: set[tuple[str, str]] | None = None
        self._order: dict[str, int] = {}  # node -> its place in reading order
        self._formal: frozenset[str] = frozenset()
        # claims with several proofs -> the labels each complete proof refers to (one unconditional
        # proof proves the claim), and the build's label owners to read them (colosseum.graph.status)
        self._several_proofs: dict[str, tuple[frozenset[str], ...]] = {}
        self._label_owner: Mapping[str, str | None] = {}
        # separate documents (several roots, xr): each root and the (prefix, document) pairs it names
        self._external_pairs: tuple = ()
        # the project declares its dependencies with \uses: a proof's plain reference closes no circle
        self._declares_uses = False

    # ---- construction ----------------------------------------------------------------------------
    @classmethod
    def build(cls, build: GraphInput, previous: "DependencyGraph | None" = None,
              change: LinkChange | None = None) -> "DependencyGraph":
        """The graph of a build's claims and references: made from ``previous`` by what the
        build changed (``change``) when it can, else from nothing (colosseum.graph.update)."""
        return build_graph(cls, build, previous, change)

    @property
    def edges(self) -> list[Edge]:
        """Every edge, dependencies first then ``contains``; built when first read."""
        if self._edges is None:
            self._edges = (list(self._dependencies.values()) + list(self._contains.values())
                           + list(self._section_contains.values()))
        return self._edges

    @property
    def pred(self) -> dict[str, set[str]]:
        """node -> the nodes it uses (reverse of ``succ``); built when first read."""
        if self._pred is None:
            pred: dict[str, set[str]] = defaultdict(set)
            for used, users in self.succ.items():
                for user in users:
                    pred[user].add(used)
            self._pred = pred
        return self._pred

    @property
    def declares_uses(self) -> bool:
        """Whether the project declares its dependencies with ``\\uses`` (at least one): then a
        proof's plain reference is a mention, a use that closes no circle."""
        return self._declares_uses

    def _add_node(self, node: str, kind: str) -> None:
        self.node_kind[node] = kind

    # ---- queries ---------------------------------------------------------------------------------
    def dependency_edges(self) -> list[Edge]:
        return [e for e in self.edges if e.kind in DEPENDENCY_KINDS]

    def ancestors(self, node: str) -> set[str]:
        """Everything ``node`` rests on (the results it may assume are the others)."""
        return self._reach(node, self.pred)

    def assumptions_of(self, node: str, claims: Mapping[str, Claim]) -> list[str]:
        """The assumed claims (axioms, assumptions, hypotheses: role ``assumption``) that ``node``
        rests on, directly or through what it uses, in name order: what it is proved *from*, though
        it is not conditional on them (a hover says "assumes X")."""
        return sorted(other for other in self.ancestors(node)
                      if other in claims and claims[other].role == "assumption")

    def descendants(self, node: str) -> set[str]:
        """Everything an edit of ``node`` can affect."""
        return self._reach(node, self.succ)

    @staticmethod
    def _reach(node: str, adjacency: dict[str, set[str]]) -> set[str]:
        seen: set[str] = set()
        stack = list(adjacency.get(node, ()))
        while stack:
            cur = stack.pop()
            if cur in seen:
                continue
            seen.add(cur)
            stack.extend(adjacency.get(cur, ()))
        seen.discard(node)
        return seen

    def strongly_connected_components(self, adjacency: dict[str, set[str]] | None = None) -> list[list[str]]:
        """Every strongly connected component, each sorted; the same order on every run."""
        succ = self.succ if adjacency is None else adjacency
        return components(succ, sorted(self.node_kind.keys() | succ.keys()), in_name_order, smallest=1)

    def cycles(self) -> list[list[str]]:
        """Circular arguments: one shortest cycle per circular group, as a closed path [a, ..., a].

        Only edges along which truth depends count: a proof that uses a result, or a statement
        that uses a definition; in a project that declares its dependencies with ``\\uses``, a
        ``\\uses`` and not a proof's plain reference (colosseum.graph.update._closes). Two
        statements that mention each other ("see also Lemma 3") are cross-references, not a
        circle."""
        if self._cycles is not None:
            return self._cycles
        if self._backward is not None and not self._closes_a_circle():
            self._cycles, self._circular = [], {}
            return self._cycles
        out = []
        circular: dict[str, int] = {}
        succ = self.truth_succ
        for component in circular_groups(succ):
            for member in component:
                circular[member] = len(out)
            path = shortest_cycle(component, succ)
            out.append(path)
        self._cycles, self._circular = out, circular
        return out

    def _closes_a_circle(self) -> bool:
        """Whether a truth edge that does not go forward in reading order lies on a circle:
        every circle has one (forward edges only go on), and all its nodes lie between the
        earliest end and the latest start of those edges."""
        backward, order, succ = self._backward, self._order, self.truth_succ
        if not backward:
            return False
        low = min(order.get(user, 0) for _used, user in backward)
        high = max(order.get(used, 0) for used, _user in backward)
        for used, user in backward:
            seen = {user}
            stack = [user]
            while stack:
                node = stack.pop()
                if node == used:
                    return True
                for nxt in succ.get(node, ()):
                    if nxt not in seen and low <= order.get(nxt, 0) <= high:
                        seen.add(nxt)
                        stack.append(nxt)
        return False

    def generations(self) -> list[list[str]]:
        """Layers that can be settled in parallel (Kahn); nodes on a cycle come last, together."""
        nodes = self.node_kind.keys() | self.succ.keys() | self.pred.keys()
        indegree = {n: len(self.pred.get(n, ())) for n in nodes}
        layer = sorted(n for n, d in indegree.items() if d == 0)
        out = []
        done = 0
        while layer:
            out.append(layer)
            done += len(layer)
            nxt = set()
            for node in layer:
                for child in self.succ.get(node, ()):
                    indegree[child] -= 1
                    if indegree[child] == 0:
                        nxt.add(child)
            layer = sorted(nxt)
        if done < len(indegree):
            out.append(sorted(n for n, d in indegree.items() if d > 0))
        return out

    @property
    def nx(self) -> "networkx.DiGraph":
        """The networkx mirror: every node with its kind and status, every edge with its kind."""
        if self._nx is None:
            import networkx

            g = networkx.DiGraph()
            for node, kind in self.node_kind.items():
                g.add_node(node, kind=kind, status=self.status.get(node))
            for edge in self.edges:
                if g.has_edge(edge.source, edge.target):
                    data = g.edges[edge.source, edge.target]
                    data["kinds"].add(edge.kind)
                    if data["kind"] == "contains" or (data["kind"] == "proof-uses" and edge.kind == "statement-uses"):
                        data["kind"] = edge.kind
                else:
                    g.add_edge(edge.source, edge.target, kind=edge.kind, kinds={edge.kind})
            self._nx = g
        return self._nx
