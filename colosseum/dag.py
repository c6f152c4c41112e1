"""The dependency DAG: nodes are claims and sections, ``A -> B`` means *B uses A*.

The queries the index needs on every edit (strongly connected components, generations,
reachability) are small linear-time algorithms over plain adjacency dicts: importing networkx
alone costs 0.3 s, more than indexing a whole blueprint. ``DependencyGraph.nx`` builds the
networkx mirror on first use, for everything else (drawing, ad-hoc analysis), and the tests
check every query here against networkx's own.
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import TYPE_CHECKING

from colosseum.structure import Edge

if TYPE_CHECKING:
    import networkx

    from colosseum.index import ProjectIndex

DEPENDENCY_KINDS = ("statement-uses", "proof-uses")
STATUSES = ("proved", "open", "obligation", "conditional", "formal")


class DependencyGraph:
    def __init__(self):
        self.node_kind: dict[str, str] = {}  # id -> environment name or "section"
        self._edges: list[Edge] | None = []  # materialized from _edge_keys when first read
        self._edge_keys: dict[tuple[str, str, str], None] = {}
        self._contains: list[tuple[str, str]] = []
        self.succ: dict[str, set[str]] = defaultdict(set)  # dependency edges only
        self._pred: dict[str, set[str]] | None = defaultdict(set)
        self.proof_succ: dict[str, set[str]] = defaultdict(set)  # proof-uses only: what carries conditionality
        # edges along which truth depends: proof-uses, and statement-uses of a definition
        self.truth_succ: dict[str, set[str]] = defaultdict(set)
        self.status: dict[str, str] = {}
        self.conditional_on: dict[str, list[str]] = {}  # id -> path from an open obligation
        self._nx = None
        self._previous: DependencyGraph | None = None
        self._cycles: list[list[str]] | None = None
        self._truth_key: frozenset | None = None

    # ---- construction ----------------------------------------------------------------------------
    @classmethod
    def build(cls, index: "ProjectIndex", previous: "DependencyGraph | None" = None) -> "DependencyGraph":
        """The graph of the index's current claims and references. ``previous`` lets queries
        whose input did not change (the circular groups) be reused instead of recomputed."""
        graph = cls()
        graph._previous = previous
        kinds = dict.fromkeys(index.sections, "section")
        kinds.update((cid, claim.kind) for cid, claim in index.claims.items())
        graph.node_kind = kinds
        # adjacency holds only nodes with edges (most nodes have none in some of the four)
        label_owner = index.label_owner
        section_parent = {sid: s.parent for sid, s in index.sections.items()}
        file_rank: dict = {}
        for result in index.root_results:
            for path in result.files:
                file_rank.setdefault(path, len(file_rank))

        def order(node: str) -> tuple:
            item = index.claims.get(node) or index.sections.get(node)
            if item is None:
                return (0, 0, 0)
            return (file_rank.get(item.file, 0),) + tuple(item.location.range.start)
        claim_section = {cid: c.section for cid, c in index.claims.items()}

        chains: dict[str | None, set[str]] = {}

        def section_chain(node: str | None) -> set[str]:
            cached = chains.get(node)
            if cached is not None:
                return cached
            chain = chains[node] = set()
            sec = claim_section.get(node) if node in claim_section else node
            while sec is not None and sec not in chain and len(chain) < 64:
                chain.add(sec)
                sec = section_parent.get(sec)
            return chain

        seen: dict[tuple[str, str, str], None] = {}
        succ, proof_succ, truth_succ = graph.succ, graph.proof_succ, graph.truth_succ
        claims = index.claims
        for ref in index.references:
            user = ref.owner
            part = ref.part
            if user is None or part == "proof-title" or ref.command == "proves":
                continue
            used = label_owner.get(ref.label)
            if used is None or used == user:
                continue
            if used in section_parent and used in section_chain(user):
                continue  # a claim citing the section it sits in, or a section citing its parent
            if user in section_parent and (used in claim_section or used in section_parent):
                if user in section_chain(used) or order(used) > order(user):
                    continue  # a section's road map: into its own content, or ahead ("see Section 5")
            kind = "statement-uses" if part == "statement" else "proof-uses"
            key = (used, user, kind)
            if key in seen:
                continue
            seen[key] = None
            succ[used].add(user)
            if kind == "proof-uses":
                proof_succ[used].add(user)
                truth_succ[used].add(user)
            else:
                claim = claims.get(used)
                if claim is not None and claim.role == "definition":
                    truth_succ[used].add(user)
        sections = index.sections
        graph._contains = [(c.section, cid) for cid, c in index.claims.items() if c.section in sections]
        graph._contains += [(s.parent, sid) for sid, s in sections.items() if s.parent in sections]
        graph._edge_keys, graph._edges, graph._pred = seen, None, None
        graph._compute_status(index)
        return graph

    @property
    def edges(self) -> list[Edge]:
        """Every edge, dependencies first then ``contains``; built when first read."""
        if self._edges is None:
            self._edges = [Edge(*key) for key in self._edge_keys]
            self._edges += [Edge(parent, child, "contains") for parent, child in self._contains]
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

    def _add_node(self, node: str, kind: str) -> None:
        self.node_kind[node] = kind

    def _compute_status(self, index: "ProjectIndex") -> None:
        contained: dict[str, bool] = {}
        for claim in index.claims.values():
            if claim.section:
                contained[claim.section] = True
        for section in index.sections.values():
            if section.parent:
                contained[section.parent] = True
        formal = getattr(index, "formal_labels", ())
        for cid, claim in index.claims.items():
            proved = (claim.proof is not None and claim.proof.has_content) or claim.mathlibok or claim.cited
            if cid in formal:
                self.status[cid] = "formal"  # checked by Lean: never conditional on the paper's gaps
            elif proved:
                self.status[cid] = "proved"
            elif claim.obligation:
                self.status[cid] = "obligation"
            elif claim.needs_proof:
                self.status[cid] = "open"
            else:
                self.status[cid] = "proved"  # definitions and remarks: nothing to prove
        for sid, section in index.sections.items():
            empty = not section.has_content and not contained.get(sid)
            self.status[sid] = "obligation" if section.obligation and empty else "proved"
        # conditional: proved, but a proof-uses path leads back to an open obligation
        for origin in sorted(n for n, s in self.status.items() if s == "obligation"):
            parent = {origin: None}
            queue = deque([origin])
            while queue:
                node = queue.popleft()
                for nxt in self.proof_succ.get(node, ()):
                    if nxt in parent:
                        continue
                    parent[nxt] = node
                    queue.append(nxt)
                    if self.status.get(nxt) in ("proved", "conditional") and nxt not in self.conditional_on:
                        path = [nxt]
                        while parent[path[-1]] is not None:
                            path.append(parent[path[-1]])
                        self.conditional_on[nxt] = list(reversed(path))
                        self.status[nxt] = "conditional"

    # ---- queries ---------------------------------------------------------------------------------
    def dependency_edges(self) -> list[Edge]:
        return [e for e in self.edges if e.kind in DEPENDENCY_KINDS]

    def ancestors(self, node: str) -> set[str]:
        """Everything ``node`` rests on (the results it may assume are the others)."""
        return self._reach(node, self.pred)

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
        """Tarjan's algorithm, iterative (papers have long dependency chains)."""
        succ = self.succ if adjacency is None else adjacency
        index_of: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        components: list[list[str]] = []
        counter = 0
        for start in sorted(self.node_kind.keys() | succ.keys()):
            if start in index_of:
                continue
            work = [(start, iter(sorted(succ.get(start, ()))))]
            index_of[start] = low[start] = counter
            counter += 1
            stack.append(start)
            on_stack.add(start)
            while work:
                node, children = work[-1]
                advanced = False
                for child in children:
                    if child not in index_of:
                        index_of[child] = low[child] = counter
                        counter += 1
                        stack.append(child)
                        on_stack.add(child)
                        work.append((child, iter(sorted(succ.get(child, ())))))
                        advanced = True
                        break
                    if child in on_stack:
                        low[node] = min(low[node], index_of[child])
                if advanced:
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index_of[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
        return components

    def cycles(self) -> list[list[str]]:
        """Circular arguments: one shortest cycle per circular group, as a closed path [a, ..., a].

        Only edges along which truth depends count: a proof that uses a result, or a statement
        that uses a definition. Two statements that mention each other ("see also Lemma 3") are
        cross-references, not a circle."""
        if self._cycles is not None:
            return self._cycles
        self._truth_key = frozenset((u, v) for u, targets in self.truth_succ.items() for v in targets)
        previous, self._previous = self._previous, None
        if previous is not None and previous._cycles is not None and previous._truth_key == self._truth_key:
            self._cycles = previous._cycles  # the same truth edges: the same circles
            return self._cycles
        out = []
        succ = self.truth_succ
        for component in self.strongly_connected_components(succ):
            if len(component) < 2:
                continue
            members = set(component)
            start = component[0]
            parent = {start: None}
            queue = deque([start])
            found = None
            while queue and found is None:
                node = queue.popleft()
                for nxt in sorted(succ.get(node, ())):
                    if nxt not in members:
                        continue
                    if nxt == start:
                        found = node
                        break
                    if nxt not in parent:
                        parent[nxt] = node
                        queue.append(nxt)
            path = [start]
            node = found
            while node is not None and node != start:
                path.append(node)
                node = parent[node]
            path = [start] + list(reversed(path[1:])) + [start]
            out.append(path)
        self._cycles = out
        return out

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
