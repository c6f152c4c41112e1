"""Making the dependency graph of a build from the last build's graph and what changed.

Each reference makes at most one dependency edge; each unit of the linker (colosseum.link.linker)
keeps how many of each edge its references make (``Unit.edge_counts``), and the graph counts how
many references make each edge. An edit then costs what it changed: the units that are new or
gone add or take away their counts, the units that refer to a label whose owner changed count
again, and an edge appears or disappears when its count leaves or reaches zero. A unit that only
moved (an edit earlier in its file) keeps its counts. What the graph concludes from its edges,
each node's status and the circular groups, is kept from the last graph or found again by
colosseum.graph.status, from what this records as changed. Which edges can close a circle depends
on whether the project declares its dependencies with ``\\uses`` (a blueprint): when its first
``\\uses`` comes or its last goes, which is rare, the graph is built from nothing.

Whatever this cannot follow (sections added, removed or nested differently, a first build) is
built from nothing, with the same code. It reads the build through a GraphInput
(colosseum.graph.view), never the index: this is the graph's own update (DependencyGraph.build).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from colosseum.core.structure import Claim, Edge, Reference, Section
from colosseum.graph.status import keep_cycles, settle_statuses, update_statuses
from colosseum.graph.view import GraphInput, LinkedUnits
from colosseum.link.state import LinkChange
from colosseum.link.units import Unit, filed

if TYPE_CHECKING:
    from colosseum.graph.dag import DependencyGraph

_ADJACENCY = ("succ", "_pred", "proof_succ", "truth_succ")
# count keys that are not edges: proof references that reach a claim through a label inside it,
# references made with \uses, and (under DECLARES) every \uses in the project
INNER = "inner"
USES = "uses"
DECLARES = ("", "", "declares-uses")
_NOT_EDGES = (INNER, USES, DECLARES[2])


class _Edges:
    """What one reference makes, against the build's labels, claims and sections."""

    def __init__(self, build: GraphInput):
        self.claims, self.sections, self.owner = build.claims, build.sections, build.label_owner
        self.chains: dict[str | None, set[str]] = {}
        self.pairs = documents_of(build)
        self.named = build.external_documents
        self.build_roots = build.root_results
        # each document's labels are its own once there are several roots or a root names another
        # document: a reference sees the labels of the roots that read its file, and through them
        # the documents they name (xr)
        self.separate = bool(self.pairs)
        self.readers: dict[Path, list[Path]] | None = None  # file -> the roots that read it, when first asked
        self.documents: dict[Path, Mapping[str, list]] | None = None  # root -> its labels, when first asked

    def labels_of(self, root: Path) -> Mapping[str, list]:
        if self.documents is None:
            self.documents = {result.root: result.labels for result in self.build_roots}
        return self.documents.get(root, {})

    def resolve(self, name: str, path: Path) -> str | None:
        """The node a reference to ``name`` in ``path`` uses: of the label its document defines, or
        (xr) of label x in a document that a root reading ``path`` names with
        \\externaldocument[prefix]{doc}, for ``name`` = prefix+x (the prefix may be empty). A label
        only another document defines is undefined here, as LaTeX says: no node."""
        owner = self.owner.get(name)
        if not self.separate:
            return owner
        if self.readers is None:
            self.readers = {}
            for result in self.build_roots:
                for f in result.files:
                    self.readers.setdefault(f, []).append(result.root)
        roots = self.readers.get(path)
        if not roots:
            return owner  # a file no root reads: the project's labels
        for root in roots:
            labels = self.labels_of(root).get(name)
            if labels:  # its document's own (the project's first definition, if it is that one's)
                return owner if any(label.owner == owner for label in labels) else labels[0].owner
        for root in roots:
            for prefix, doc in self.named.get(root, ()):
                if name.startswith(prefix):
                    labels = self.labels_of(doc).get(name[len(prefix):])
                    if labels:
                        return labels[0].owner
        return None

    def chain(self, node: str | None) -> set[str]:
        """The sections around a node (its own, and theirs)."""
        found = self.chains.get(node)
        if found is not None:
            return found
        chain = self.chains[node] = set()
        claim = self.claims.get(node)
        sec = claim.section if claim is not None else node
        sections = self.sections
        while sec is not None and sec not in chain and len(chain) < 64:
            chain.add(sec)
            parent = sections.get(sec)
            sec = parent.parent if parent is not None else None
        return chain

    def order(self, node: str) -> int:
        item = self.claims.get(node) or self.sections.get(node)
        return item.order if item is not None else 0

    def key(self, ref: Reference, path: Path) -> tuple[str, str, str] | None:
        user = ref.owner
        part = ref.part
        if user is None or part == "proof-title" or ref.command == "proves":
            return None
        used = self.resolve(ref.label, path)
        if used is None or used == user:
            return None
        sections = self.sections
        if used in sections and used in self.chain(user):
            return None  # a claim citing the section it sits in, or a section citing its parent
        if user in sections and (used in self.claims or used in sections):
            if user in self.chain(used) or self.order(used) > self.order(user):
                return None  # a section's road map: into its own content, or ahead ("see Section 5")
        # a section's prose is what it says, not a proof: its references are statement-uses
        return (used, user, "proof-uses" if part == "proof" else "statement-uses")

    def of_unit(self, unit: Unit) -> dict[tuple[str, str, str], int]:
        counts: dict[tuple[str, str, str], int] = {}
        key, claims, path = self.key, self.claims, unit.path
        for ref in unit.refs:
            if ref.command == "uses":  # the project declares its dependencies (see _closes)
                counts[DECLARES] = counts.get(DECLARES, 0) + 1
            found = key(ref, path)
            if found is not None:
                counts[found] = counts.get(found, 0) + 1
                if ref.command == "uses":
                    declared = (found[0], found[1], USES)
                    counts[declared] = counts.get(declared, 0) + 1
                if found[2] == "proof-uses":
                    claim = claims.get(found[0])
                    if claim is not None and claim.label != ref.label:
                        # through a label inside the claim (an equation, an item): a use, but
                        # not one that closes a circle (see _closes)
                        inner = (found[0], found[1], INNER)
                        counts[inner] = counts.get(inner, 0) + 1
        for pending in unit.pendings:  # a claim proved inside a proof: the claim proved rests on it
            target = pending.target
            for nested in pending.nested if target is not None else ():
                if nested != target:
                    key = (nested, target, "proof-uses")
                    counts[key] = counts.get(key, 0) + 1
        return counts


def build_graph(cls: type[DependencyGraph], build: GraphInput, previous: DependencyGraph | None,
                change: LinkChange | None) -> DependencyGraph:
    """The graph of ``build`` (DependencyGraph.build): from ``previous`` by ``change`` when it
    can follow it, else from nothing."""
    parents = {sid: s.parent for sid, s in build.sections.items()}
    if previous is None or change is None or change.full or previous._external_pairs != documents_of(build):
        # (the roots, or the documents a root names with xr, changed: rare, a preamble's edit)
        return _full(cls, build, parents)
    return _Update(cls, build, previous, change, parents).run()


def documents_of(build: GraphInput) -> tuple[tuple[Path, tuple[tuple[str, Path], ...]], ...]:
    """The documents of a build whose documents are separate (several roots, or xr): each root with
    the (prefix, document) pairs it names with \\externaldocument[prefix]{doc}, in root order; ()
    for one root that names none (what a reference sees is then the build's labels)."""
    if len(build.root_results) < 2 and not build.external_documents:
        return ()
    named = build.external_documents
    return tuple((result.root, tuple(named.get(result.root, ()))) for result in build.root_results)


# ---- from nothing ----------------------------------------------------------------------------------
def _full(cls: type[DependencyGraph], build: GraphInput, parents: dict[str, str | None]) -> DependencyGraph:
    graph = cls()
    state = build.links
    edges = _Edges(build)
    graph._external_pairs = edges.pairs
    counts: dict[tuple[str, str, str], int] = {}
    keep = build.for_edits
    for unit in state.units:
        mine = edges.of_unit(unit)
        if keep:
            unit.edge_counts = mine
        for key, n in mine.items():
            counts[key] = counts.get(key, 0) + n
    graph._counts = counts
    # each edge is its own key (a named tuple hashes as the tuple): the count keys can go
    graph._dependencies = {edge: edge for edge in (Edge(*key) for key in counts if key[2] not in _NOT_EDGES)}
    graph._declares_uses = blueprint = DECLARES in counts
    claims, sections = build.claims, build.sections
    succ, proof_succ, truth_succ = graph.succ, graph.proof_succ, graph.truth_succ
    graph._pred = None  # the reverse of succ, made when first read (a report seldom asks; an edit's graph does)
    dependencies = graph._dependencies
    for used, user, _kind in dependencies:
        succ[used].add(user)
    if not keep:
        _freeze(succ)
    for used, user, kind in dependencies:
        if kind == "proof-uses":
            proof_succ[used].add(user)
    if not keep:
        _freeze(proof_succ)
    for used, user, _kind in dependencies:
        if _closes(counts, claims, sections, used, user, blueprint):
            truth_succ[used].add(user)
    if not keep:
        _freeze(truth_succ)
    order = graph._order = {sid: section.order for sid, section in sections.items()}
    order.update((cid, claim.order) for cid, claim in claims.items())
    graph._backward = {(used, user) for used, users in truth_succ.items() for user in users
                       if order.get(used, 0) >= order.get(user, 0)}
    kinds = dict.fromkeys(sections, "section")
    kinds.update((cid, claim.kind) for cid, claim in claims.items())
    graph.node_kind = kinds
    graph._section_parent = parents
    contained: dict[str, int] = {}
    for cid, claim in claims.items():
        graph._claim_info[cid] = (claim.section, claim.role)
        if claim.section is not None:
            contained[claim.section] = contained.get(claim.section, 0) + 1
            if claim.section in sections:
                graph._contains[cid] = Edge(claim.section, cid, "contains")
    for sid, parent in parents.items():
        if parent is not None:
            contained[parent] = contained.get(parent, 0) + 1
            if parent in sections:
                graph._section_contains[sid] = Edge(parent, sid, "contains")
    graph._contained = contained
    if not keep:
        graph._counts = None  # only the next graph reads them, and a report's graph has none
    settle_statuses(graph, build)
    graph._edges = None
    return graph


def _drop_contains(table: dict[str, Edge], parent: str, child: str) -> None:
    """Forget the edge from ``parent`` to ``child`` (a node has one parent: the tables are keyed
    by the child alone, no (parent, child) tuple beside each edge)."""
    edge = table.get(child)
    if edge is not None and edge.source == parent:
        del table[child]


def _freeze(adjacency: dict[str, set[str]]) -> None:
    """A report's graph is read, never updated: most nodes have a few neighbours, and a tuple of
    them is a fifth of a set (in the set's order: what iterates them sees no difference). Each
    adjacency is frozen once made, before the next is, so no two are sets at once."""
    for node, neighbours in adjacency.items():
        adjacency[node] = tuple(neighbours)


def _closes(counts: dict[tuple[str, str, str], int], claims: Mapping[str, Claim], sections: Mapping[str, Section], used: str, user: str, blueprint: bool) -> bool:
    """Whether the edge ``used -> user`` can close a circular argument. A section is not an
    argument: no circle runs through one. A statement closes one when it uses a definition. In a
    project that declares its dependencies with ``\\uses`` (``blueprint``, as leanblueprint does),
    a ``\\uses`` closes one, in a statement or a proof, and a proof's ``\\ref``s and ``\\cref``s
    are mentions ("this completes the proof of Theorem 1"): uses that close none. Elsewhere a
    proof closes one when it cites the claim itself (its own label), not only a label inside it,
    e.g. a hypothesis displayed in its statement (``\\eqref{g-small}``)."""
    if used in sections or user in sections:
        return False
    if blueprint and (used, user, USES) in counts:
        return True
    claim = claims.get(used)
    definition = claim is not None and claim.role == "definition"
    if definition and (used, user, "statement-uses") in counts:
        return True
    if blueprint:
        return False
    if definition:
        return (used, user, "proof-uses") in counts
    return counts.get((used, user, "proof-uses"), 0) > counts.get((used, user, INNER), 0)


# ---- from the last graph ---------------------------------------------------------------------------
class _Update:
    def __init__(self, cls: type[DependencyGraph], build: GraphInput, previous: DependencyGraph,
                 change: LinkChange, parents: dict[str, str | None]):
        self.build, self.previous, self.change = build, previous, change
        self.state: LinkedUnits = build.links
        graph = self.graph = cls()
        # what readers of the last graph see is copied; the bookkeeping only the next graph reads
        # is handed over (the last graph is not made into another one again)
        graph.node_kind = dict(previous.node_kind)
        graph._dependencies = dict(previous._dependencies)
        graph._counts, previous._counts = previous._counts, None
        graph._contains = dict(previous._contains)
        graph._section_contains = dict(previous._section_contains)
        for name in _ADJACENCY:
            old = getattr(previous, name) if name != "_pred" else previous.pred
            setattr(graph, name, defaultdict(set, old))
        graph._base, previous._base = previous._base, None
        graph._claim_info, previous._claim_info = previous._claim_info, None
        graph._section_parent = parents
        graph._contained, previous._contained = previous._contained, None
        graph._backward = set(previous._backward) if previous._backward is not None else None
        graph._order = dict(previous._order)
        graph._declares_uses = previous._declares_uses  # until the counts say otherwise (see run)
        self.owned: dict[str, set[str]] = {name: set() for name in _ADJACENCY}  # sets copied for this graph
        self.edges = _Edges(build)
        self.proof_sources: set[str] = set()  # nodes whose proof-uses edges changed
        self.truth_added: list[tuple[str, str]] = []
        self.truth_removed: list[tuple[str, str]] = []
        self.base_changed: set[str] = set()
        self.removed_nodes: set[str] = set()

    def run(self) -> DependencyGraph:
        graph, build, change = self.graph, self.build, self.change
        claims, sections = build.claims, build.sections
        recount = self._to_recount(change)
        roles_changed = []
        order = graph._order
        for node in change.nodes:
            claim = claims.get(node)
            item = claim if claim is not None else sections.get(node)
            if item is not None:
                order[node] = item.order
            else:
                order.pop(node, None)
            if claim is not None:
                old = graph._claim_info.get(node)
                info = (claim.section, claim.role)
                graph.node_kind[node] = claim.kind
                if old != info:
                    graph._claim_info[node] = info
                    self._move_claim(node, old[0] if old else None, claim.section)
                    if old is not None and old[0] != claim.section:
                        for name in [claim.label, *claim.inner_labels]:
                            recount.update(filed(self.state.by_ref, name))
                    if old is not None and old[1] != claim.role:
                        roles_changed.append(node)
            else:
                old = graph._claim_info.pop(node, None)  # no longer a claim (a section now, or gone)
                if old is not None:
                    self._move_claim(node, old[0], None)
                if node in sections:
                    graph.node_kind[node] = "section"
                elif node in graph.node_kind:
                    self.removed_nodes.add(node)
                    del graph.node_kind[node]
        if self.previous._section_parent != graph._section_parent:
            self._sections(recount)
        # units: what is new counts in, what is gone counts out, what only moved keeps its counts
        gone: dict[tuple, list] = {}
        for unit in change.removed:
            gone.setdefault(unit.semantic, []).append(unit)
        for unit in change.added:
            twins = gone.get(unit.semantic)
            if twins:
                unit.edge_counts = twins.pop().edge_counts
            else:
                unit.edge_counts = self.edges.of_unit(unit)
                self._apply(unit.edge_counts, +1)
        for twins in gone.values():
            for unit in twins:
                self._apply(unit.edge_counts or {}, -1)
        current = self.state.unit_set
        for unit in recount:
            if unit in current:
                counts = self.edges.of_unit(unit)
                if counts != unit.edge_counts:
                    self._apply(unit.edge_counts or {}, -1)
                    self._apply(counts, +1)
                    unit.edge_counts = counts
        if (DECLARES in graph._counts) != graph._declares_uses:
            # the first \uses came or the last went: which references close a circle changed
            # throughout (rare: built from nothing)
            return _full(type(graph), build, graph._section_parent)
        for node in roles_changed:
            for user in list(graph.succ.get(node, ())):
                self._pair(node, user)
        if graph._backward is not None:  # nodes read afresh may sit elsewhere in reading order now
            truth = graph.truth_succ
            for node in change.nodes:
                for user in truth.get(node, ()):
                    self._direction(node, user, True)
                for used in graph._pred.get(node, ()):
                    if node in truth.get(used, ()):
                        self._direction(used, node, True)
        update_statuses(graph, self.previous, build, change.nodes, self.base_changed, self.proof_sources,
                        self.removed_nodes)
        keep_cycles(graph, self.previous, self.truth_added, self.truth_removed)
        graph._edges = None
        return graph

    def _to_recount(self, change: LinkChange) -> set[Unit]:
        """The units to count again: those holding retargeted proofs, those referring to a label
        whose owner changed (xr: through a prefix too), and, where documents are separate, those
        whose document's labels of that name changed or that a root began or stopped reading."""
        recount = set(change.pending_units)
        by_ref = self.state.by_ref
        documents = self.edges.pairs
        prefixes = [p for p in dict.fromkeys(p for _root, pairs in documents for p, _doc in pairs) if p]
        self.graph._external_pairs = documents
        names = set(change.owners)
        # separate documents: what a reference sees changes with each root's definitions (a label
        # another document defines too), and a unit read by other roots than before sees other labels
        for root, _pairs in documents:
            names.update(change.root_names.get(root, ()))
            recount.update(change.root_added.get(root, ()))
            recount.update(change.root_removed.get(root, ()))
        for name in names:
            recount.update(filed(by_ref, name))
            for prefix in prefixes:  # xr: \ref{prefix+name} in the documents that name its document
                recount.update(filed(by_ref, prefix + name))
        return recount

    # ---- edges
    def _set(self, name: str, node: str) -> set[str]:
        """The graph's own copy of one adjacency set (the last graph's stays as it was)."""
        table = getattr(self.graph, name)
        owned = self.owned[name]
        if node not in owned:
            owned.add(node)
            found = table.get(node)
            table[node] = set(found) if found else set()
        return table[node]

    def _member(self, name: str, node: str, other: str, present: bool) -> bool:
        table = getattr(self.graph, name)
        current = other in table.get(node, ())
        if current == present:
            return False
        found = self._set(name, node)
        if present:
            found.add(other)
        else:
            found.discard(other)
            if not found:
                del table[node]
                self.owned[name].discard(node)
        return True

    def _apply(self, counts: dict, sign: int) -> None:
        table = self.graph._counts
        for key, n in counts.items():
            old = table.get(key, 0)
            new = old + sign * n
            if new > 0:
                table[key] = new
            else:
                table.pop(key, None)
            if key == DECLARES:
                continue  # not an edge: read once every count is in (see run)
            # the pair's truth weighs proof references against those through inner labels
            weighed = key[2] == INNER or (key[2] == "proof-uses" and (key[0], key[1], INNER) in table)
            if (old > 0) != (new > 0) or (weighed and old != new):
                if key[2] not in _NOT_EDGES:
                    if new > 0:
                        self.graph._dependencies[key] = Edge(*key)
                    else:
                        self.graph._dependencies.pop(key, None)
                self._pair(key[0], key[1])

    def _pair(self, used: str, user: str) -> None:
        """Set the adjacency of one pair of nodes from the edges between them."""
        counts = self.graph._counts
        proof = (used, user, "proof-uses") in counts
        statement = (used, user, "statement-uses") in counts
        self._member("succ", used, user, proof or statement)
        self._member("_pred", user, used, proof or statement)
        if self._member("proof_succ", used, user, proof):
            self.proof_sources.add(used)
        truth = _closes(counts, self.build.claims, self.build.sections, used, user, self.graph._declares_uses)
        if self._member("truth_succ", used, user, truth):
            (self.truth_added if truth else self.truth_removed).append((used, user))
        self._direction(used, user, truth)

    def _direction(self, used: str, user: str, truth: bool) -> None:
        backward = self.graph._backward
        if backward is None:
            return
        order = self.graph._order
        if truth and order.get(used, 0) >= order.get(user, 0):
            backward.add((used, user))
        else:
            backward.discard((used, user))

    def _sections(self, recount: set) -> None:
        """Sections came, went or moved in the tree: the contains edges and counts follow, and
        the references whose use depends on where a node sits (a section citing its own
        content, a claim citing its section) are counted again, for every node under them."""
        graph, sections, state = self.graph, self.build.sections, self.state
        old, new = self.previous._section_parent, graph._section_parent
        missing = object()
        changed = {sid for sid in old.keys() | new.keys() if old.get(sid, missing) != new.get(sid, missing)}
        for sid in changed:
            before, after = old.get(sid), new.get(sid)  # a section gone or new has no parent there
            if before is not None:
                _drop_contains(graph._section_contains, before, sid)
                self._count_in(before, -1)
            if after is not None:
                self._count_in(after, +1)
                if after in sections:
                    graph._section_contains[sid] = Edge(after, sid, "contains")
        below: dict[str, set[str]] = {}
        for table in (old, new):
            for sid, parent in table.items():
                if parent is not None:
                    below.setdefault(parent, set()).add(sid)
        affected, stack = set(), list(changed)
        while stack:
            sid = stack.pop()
            if sid not in affected:
                affected.add(sid)
                stack.extend(below.get(sid, ()))
        nodes = set(affected)
        nodes.update(cid for cid, info in graph._claim_info.items() if info[0] in affected)
        nodes.update(cid for cid, claim in self.build.claims.items() if claim.section in affected)
        for node in nodes:
            units = filed(state.by_node, node)
            recount.update(units)
            for unit in units:
                for label in unit.labels:
                    if label.owner == node:
                        recount.update(filed(state.by_ref, label.name))

    def _move_claim(self, cid: str, old: str | None, new: str | None) -> None:
        graph, sections = self.graph, self.build.sections
        if old == new:
            return
        if old is not None:
            _drop_contains(graph._contains, old, cid)
            self._count_in(old, -1)
        if new is not None:
            self._count_in(new, +1)
            if new in sections:
                graph._contains[cid] = Edge(new, cid, "contains")

    def _count_in(self, section: str, delta: int) -> None:
        """One claim or subsection more (+1) or fewer (-1) in a section (its status depends on it)."""
        contained = self.graph._contained
        held = contained.get(section, 0) + delta
        if held > 0:
            contained[section] = held
        else:
            contained.pop(section, None)
        self.base_changed.add(section)
