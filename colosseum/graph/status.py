"""What the dependency graph concludes about its nodes: each one's status, and which sit on a circle.

A claim's own status (its base) follows from the claim alone: formal, proved, draft (a model's
proof no person has accepted yet), open, an obligation, or stated (a claim that needs no proof and
has none: a definition, remark, example, exercise or axiom; settled, but not proved). A proof that rests, along proof-uses
edges, on an open claim, an obligation or a draft is conditional; a section's status summarises what it holds. When a graph is made from the last
one (colosseum.graph.update), statuses are computed again for the nodes whose data changed; the
search for what is conditional on an open obligation runs again only when an obligation, or an
edge or status on its paths, changed; the circular groups are found again only when an edge
inside one, or an edge that can close one, changed.

A first build and an edit share this code: the build from nothing calls ``settle_statuses``, an
edit ``update_statuses`` and ``keep_cycles``, both over the same rules.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

from colosseum.core.structure import Claim
from colosseum.graph.cycles import components, shortest_cycle
from colosseum.graph.view import GraphInput

if TYPE_CHECKING:
    from colosseum.graph.dag import DependencyGraph

# what a proof resting on is conditional: a model's draft too, until a person accepts it
ORIGINS = ("obligation", "open", "draft")
# what a proof may rest on without being conditional: proved, checked by Lean, or owing no proof
SETTLED = ("proved", "formal", "stated")
# what a section's status summarises, worst first: a draft has a proof (better than open) that no
# person has read (worse than a proof that merely rests on something unsettled)
_RANK = {"obligation": 4, "open": 3, "draft": 2, "conditional": 1}


def settle_statuses(graph: DependencyGraph, build: GraphInput) -> None:
    """Every node's status, from nothing."""
    graph._formal = build.formal_labels
    graph._label_owner = build.label_owner
    base = graph._base
    several = graph._several_proofs
    for cid, claim in build.claims.items():
        base[cid] = claim_status(claim, cid in graph._formal)
        if claim.proof_alternatives:
            several[cid] = claim.proof_alternatives
    base.update(section_bases(graph, build))
    find_conditional(graph)
    summarise_sections(graph)


def claim_status(claim: Claim, formal: bool) -> str:
    if formal:
        return "formal"  # checked by Lean: never conditional on the paper's gaps
    if claim.role == "conjecture":
        return "open"  # unproved by nature, whatever follows it
    if claim.mathlibok or claim.cited:
        return "proved"
    proof = claim.proof
    if proof is not None and proof.has_content:
        # an \obligation inside the proof: what is there is a sketch, the proof is still owed
        if proof.obligation:
            return "obligation"
        # a model's proof (colosseum.latex.draft_marker) is a draft until a person accepts it
        return "draft" if proof.draft_run is not None else "proved"
    if claim.obligation:
        return "obligation"
    if claim.needs_proof:
        return "open"
    # definitions, remarks, exercises, axioms: nothing to prove, and nothing proved (an exercise
    # shown as "proved" read as solved)
    return "stated"


def section_bases(graph: DependencyGraph, build: GraphInput) -> dict[str, str]:
    """Each section's own status: an obligation section stays an obligation until it holds a
    claim and every claim in it (its subsections' too) is proved; any other section is proved
    (what it holds is summarised afterwards, by summarise_sections)."""
    sections = build.sections
    bases = dict.fromkeys(sections, "proved")
    marked = {sid for sid, section in sections.items() if section.obligation}
    if not marked:
        return bases
    held: set[str] = set()
    unproved: set[str] = set()
    parent, base = graph._section_parent, graph._base
    for cid, info in graph._claim_info.items():
        settled = base.get(cid) in SETTLED
        sec, steps = info[0], 0
        while sec is not None and steps < 64:
            if sec in marked:
                held.add(sec)
                if not settled:
                    unproved.add(sec)
            sec, steps = parent.get(sec), steps + 1
    for sid in marked:
        if sid not in held or sid in unproved:
            bases[sid] = "obligation"
    return bases


def summarise_sections(graph: DependencyGraph) -> None:
    """A section's status says what it holds: obligation if it (or anything in it) is an open
    obligation, else open if it holds an open claim, else conditional if it holds a conditional
    claim, else proved. Its own prose references never make it conditional."""
    status, parent, base = graph.status, graph._section_parent, graph._base
    worst = dict.fromkeys(parent, 0)

    def raise_from(sec: str | None, rank: int) -> None:
        steps = 0
        while sec is not None and worst.get(sec, rank) < rank and steps < 64:
            worst[sec] = rank
            sec, steps = parent.get(sec), steps + 1

    for sid in parent:
        if base.get(sid) == "obligation":
            raise_from(sid, _RANK["obligation"])
    info = graph._claim_info
    for cid in graph._unsettled:
        rank = _RANK.get(status.get(cid), 0)
        if rank and cid in info:
            raise_from(info[cid][0], rank)
    names = {rank: name for name, rank in _RANK.items()}
    for sid, rank in worst.items():
        status[sid] = names.get(rank, "proved")


def find_conditional(graph: DependencyGraph) -> None:
    """Statuses from the base ones: proved, but a proof-uses path leads back to something not
    settled (an open obligation, or a claim with no proof, e.g. a conjecture), is conditional (the
    path is kept, from the first such origin in name order). A claim with several proofs is held
    where the search reaches it, and made conditional only once every one of its complete proofs
    rests on something unsettled (one unconditional proof proves it)."""
    search = _Search(graph)
    for origin in search.origins:
        search.spread(origin, [], origin)
    search.free_held()
    graph.status, graph.conditional_on, graph._reached = search.status, search.conditional, search.reached
    graph.conditional_origins = search.rests_on
    graph._unsettled = set(search.origins) | search.conditional.keys()


class _Search:
    """The conditional search of find_conditional: breadth first from each origin along
    proof-uses edges."""

    def __init__(self, graph: DependencyGraph):
        self.graph = graph
        self.status = dict(graph._base)
        self.conditional: dict[str, list[str]] = {}
        self.rests_on: dict[str, list[str]] = {}  # every origin of each conditional node, in name order
        self.reached: set[str] = set()
        self.origins = sorted(n for n, s in graph._base.items() if s in ORIGINS)
        # claims with several proofs that the search reached: the path to each, and its origins
        self.held: dict[str, list[str]] = {}
        self.held_origins: dict[str, list[str]] = {}

    def spread(self, start: str, before: list[str], origin: str) -> None:
        """Everything ``start`` leads to becomes conditional on ``origin`` (``before`` is the path
        from the origin to ``start``, without it)."""
        status, conditional, several = self.status, self.conditional, self.graph._several_proofs
        parent: dict[str, str | None] = {start: None}
        queue = deque([start])
        proof_succ = self.graph.proof_succ
        while queue:
            node = queue.popleft()
            users = proof_succ.get(node, ())
            # in name order: a set's own order follows how it was built (added to edit by edit, or
            # at once), and the path kept must be the same either way
            for nxt in sorted(users) if len(users) > 1 else users:
                if nxt in parent:
                    continue
                parent[nxt] = node
                if status.get(nxt) == "proved" and several.get(nxt):
                    self.held.setdefault(nxt, self._path(parent, nxt, before))
                    self.held_origins.setdefault(nxt, []).append(origin)
                    continue  # not through it until every proof of it is known to rest on one
                queue.append(nxt)
                if status.get(nxt) in ("proved", "conditional"):
                    self.rests_on.setdefault(nxt, []).append(origin)
                if status.get(nxt) in ("proved", "conditional") and nxt not in conditional:
                    conditional[nxt] = self._path(parent, nxt, before)
                    status[nxt] = "conditional"
        self.reached.update(parent)

    @staticmethod
    def _path(parent: dict[str, str | None], node: str, before: list[str]) -> list[str]:
        path = [node]
        while parent[path[-1]] is not None:
            path.append(parent[path[-1]])
        return before + list(reversed(path))

    def free_held(self) -> None:
        """Make conditional each held claim whose every complete proof rests on something
        unsettled, and carry on from it, until none is left to free."""
        freed_any = False
        while True:
            freed = [node for node in sorted(self.held) if self._every_proof_rests(node)]
            if not freed:
                break
            freed_any = True
            for node in freed:
                path = self.held.pop(node)
                origins = sorted(set(self.held_origins.pop(node)))
                self.status[node], self.conditional[node] = "conditional", path
                self.rests_on[node] = origins
                for origin in origins:
                    self.spread(node, path[:-1], origin)
        if freed_any:  # origins reached through a freed claim came out of name order
            self.rests_on = {node: sorted(set(found)) for node, found in self.rests_on.items()}

    def _every_proof_rests(self, node: str) -> bool:
        """Whether each complete proof of ``node`` refers to something unsettled."""
        if self.status.get(node) != "proved":
            return False
        owner, status = self.graph._label_owner, self.status
        unsettled = (*ORIGINS, "conditional")
        return all(any(owner.get(label) not in (None, node) and status.get(owner.get(label)) in unsettled
                       for label in labels) for labels in self.graph._several_proofs[node])


# ---- from the last graph ---------------------------------------------------------------------------
def update_statuses(graph: DependencyGraph, previous: DependencyGraph, build: GraphInput,
                    nodes: Iterable[str], base_changed: set[str], proof_sources: set[str],
                    removed_nodes: set[str]) -> None:
    """The statuses of a graph made from ``previous``: ``nodes`` were read afresh, the sections in
    ``base_changed`` gained or lost a claim or subsection, the nodes in ``proof_sources`` had
    proof-uses edges come or go, and ``removed_nodes`` are gone."""
    claims, sections = build.claims, build.sections
    formal = build.formal_labels
    graph._formal = formal
    todo = set(nodes) | base_changed | (formal ^ previous._formal)
    graph._label_owner = build.label_owner
    several_changed = _keep_several_proofs(graph, previous, claims, todo)
    base = graph._base
    changed: list[tuple[str, str | None, str | None]] = []
    sections_touched = bool(base_changed)
    for node in todo:
        claim = claims.get(node)
        if claim is not None:
            new = claim_status(claim, node in formal)
        elif node in sections:
            sections_touched = True
            continue
        else:
            new = None
        old = base.get(node)
        if new != old:
            if new is None:
                del base[node]
            else:
                base[node] = new
            changed.append((node, old, new))
    if changed or sections_touched:  # an obligation section waits on the claims in it
        for node, new in section_bases(graph, build).items():
            old = base.get(node)
            if new != old:
                base[node] = new
                changed.append((node, old, new))
    reached = previous._reached
    again = any(old in ORIGINS or new in ORIGINS or node in reached for node, old, new in changed)
    again = again or any(node in reached or base.get(node) in ORIGINS for node in proof_sources)
    again = again or not reached.isdisjoint(removed_nodes) or several_changed
    # a section that came or went (or whose label a claim now carries) has no summary to keep
    again = again or graph._section_parent.keys() != previous._section_parent.keys()
    if again:
        find_conditional(graph)
        summarise_sections(graph)
        return
    if not changed and not sections_touched and graph._section_parent == previous._section_parent:
        graph.status, graph.conditional_on, graph._reached = previous.status, previous.conditional_on, reached
        graph.conditional_origins = previous.conditional_origins
        graph._unsettled = previous._unsettled
        return
    status = dict(previous.status)
    for node, _old, new in changed:
        if new is None:
            status.pop(node, None)
        else:
            status[node] = new
    graph.status, graph.conditional_on, graph._reached = status, previous.conditional_on, reached
    graph.conditional_origins = previous.conditional_origins
    graph._unsettled = previous._unsettled
    summarise_sections(graph)


def _keep_several_proofs(graph: DependencyGraph, previous: DependencyGraph, claims, todo: set[str]) -> bool:
    """The claims with several proofs, from the last graph's and the claims read afresh; whether
    one of those read afresh has or had several (its held place in the search may have moved)."""
    several = graph._several_proofs = dict(previous._several_proofs)
    changed = False
    for node in todo:
        claim = claims.get(node)
        alternatives = claim.proof_alternatives if claim is not None else ()
        if alternatives or node in several:
            changed = changed or several.get(node) != alternatives
            if alternatives:
                several[node] = alternatives
            else:
                del several[node]
    return changed


def keep_cycles(graph: DependencyGraph, previous: DependencyGraph,
                truth_added: list[tuple[str, str]], truth_removed: list[tuple[str, str]]) -> None:
    """The circular groups of ``graph`` from those of ``previous`` and the truth edges that came
    (``truth_added``) and went (``truth_removed``): the groups no such edge touches are kept with
    their cycles, and the groups are found again only among the nodes a changed edge can affect
    (``_affected``); else they are left to be found when cycles() is first asked."""
    if graph._backward is not None and not graph._backward:
        graph._cycles, graph._circular = [], {}  # every truth edge goes forward: no circle
        return
    if previous._cycles is not None and not truth_added and not truth_removed:
        graph._cycles, graph._circular = previous._cycles, previous._circular  # the same truth edges
        return
    if not previous._cycles and previous._cycles is not None and graph._backward is not None:
        return  # none before: whether one closes now is asked when cycles() is (cheaply)
    if previous._cycles is None or len(truth_added) + len(truth_removed) > MAX_CHANGED_TRUTH_EDGES:
        return  # found when first asked (the whole graph searched once costs less)
    graph._cycles, graph._circular = _updated_cycles(graph, previous, truth_added, truth_removed)


# past this many truth edges changed at once (a file read afresh), one search of the whole graph
MAX_CHANGED_TRUTH_EDGES = 400


def _updated_cycles(graph: DependencyGraph, previous: DependencyGraph, truth_added: list[tuple[str, str]],
                    truth_removed: list[tuple[str, str]]) -> tuple[list[list[str]], dict[str, int]]:
    """The circular groups after an edit, as cycles() would find them afresh.

    Every group of the new graph is one of: a group of the last graph that no changed edge lies
    inside (its edges are all still there, and a group that grew would hold an added edge); a
    group holding an added edge ``used -> user`` (all its nodes are reached from ``user`` and reach
    ``used``); or a part of a last group that a changed edge lay inside. The last two lie in
    ``_affected``, a union of whole groups of the new graph: the groups are searched for there
    only, and the others are kept with their cycles."""
    succ = graph.truth_succ
    members: dict[int, list[str]] = {}
    for node, group in previous._circular.items():
        members.setdefault(group, []).append(node)
    circular = previous._circular
    touched = {circular[u] for u, v in truth_added + truth_removed if u in circular and circular.get(v) == circular[u]}
    area = _affected(graph, truth_added)
    for group in touched:
        area.update(members[group])
    kept = {group for group in members if group not in touched and not area.intersection(members[group])}
    inside = {node: {nxt for nxt in succ.get(node, ()) if nxt in area} for node in area}
    found = components(inside, [node for node, users in inside.items() if users], iter, smallest=2)
    old_groups = {tuple(sorted(members[group])): group for group in kept}
    groups = sorted([list(g) for g in old_groups] + found)
    cycles, out_circular = [], {}
    for n, component in enumerate(groups):
        group = old_groups.get(tuple(component))
        cycles.append(previous._cycles[group] if group is not None else shortest_cycle(component, succ))
        for member in component:
            out_circular[member] = n
    return cycles, out_circular


def _affected(graph: DependencyGraph, truth_added: list[tuple[str, str]]) -> set[str]:
    """The nodes that are reached from the user of an added truth edge and reach its used node:
    every group holding an added edge lies in them. A circle lies between the earliest end and the
    latest start of the truth edges that go backward in reading order (dag._closes_a_circle): the
    searches keep to them."""
    succ, backward, order = graph.truth_succ, graph._backward, graph._order
    low, high = -1, float("inf")
    if backward is not None:
        if not backward:
            return set()
        low = min(order.get(user, 0) for _used, user in backward)
        high = max(order.get(used, 0) for used, _user in backward)
    starts = [(used, user) for used, user in truth_added
              if used != user and low <= order.get(used, 0) <= high and low <= order.get(user, 0) <= high]
    if not starts:
        return set()
    reached = {user for _used, user in starts}
    stack = list(reached)
    while stack:
        for nxt in succ.get(stack.pop(), ()):
            if nxt not in reached and low <= order.get(nxt, 0) <= high:
                reached.add(nxt)
                stack.append(nxt)
    back: dict[str, list[str]] = {}
    for node in reached:
        for nxt in succ.get(node, ()):
            if nxt in reached:
                back.setdefault(nxt, []).append(node)
    affected = {used for used, _user in starts if used in reached}
    stack = list(affected)
    while stack:
        for prev in back.get(stack.pop(), ()):
            if prev not in affected:
                affected.add(prev)
                stack.append(prev)
    return affected


def _reaches(adjacency: dict[str, set[str]], start: str, goal: str) -> bool:
    seen = {start}
    stack = [start]
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        for nxt in adjacency.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


# ---- what a section holds, in words ------------------------------------------------------------------
# a section's status is the worst of what it holds (kept for JSON readers); "proved" is said of
# results, so a reader is told what the section holds instead: "all 5 claims proved", "2 of 5 open"
NOTHING_OWED = "nothing owed"
_HELD_WORDS = {"obligation": ("an open obligation", "open obligations"), "open": ("open", "open"),
               "draft": ("a draft", "drafts"), "conditional": ("conditional", "conditional")}


def section_holdings(graph: DependencyGraph) -> dict[str, dict[str, int]]:
    """Each section -> how many of the claims in it (its subsections' too) have each status."""
    parent, status = graph._section_parent, graph.status
    held: dict[str, dict[str, int]] = {sid: {} for sid in parent}
    for cid, info in graph._claim_info.items():
        claim_status_now = status.get(cid)
        sec, steps = info[0], 0
        while sec is not None and steps < 64 and sec in held:
            counts = held[sec]
            counts[claim_status_now] = counts.get(claim_status_now, 0) + 1
            sec, steps = parent.get(sec), steps + 1
    return held


def section_summary(graph: DependencyGraph, sid: str, counts: dict[str, int] | None = None) -> str:
    """What a section holds, in words: "all 5 claims proved", "2 of 5 open, 1 of 5 a draft",
    "nothing owed" (no claim in it needs a proof). ``counts`` as section_holdings gives them
    (found here when not given)."""
    if counts is None:
        counts = section_holdings(graph).get(sid, {})
    owed = sum(n for s, n in counts.items() if s != "stated")
    if graph._base.get(sid) == "obligation" and not any(counts.get(s) for s in _HELD_WORDS):
        return "marked as an obligation: open until it holds claims and all are proved"
    if not owed:
        return NOTHING_OWED + (f" ({_claims(sum(counts.values()))}, none needing a proof)" if counts else "")
    parts = [f"{counts[s]} of {owed} {_HELD_WORDS[s][counts[s] != 1]}" for s in _HELD_WORDS if counts.get(s)]
    if parts:
        return ", ".join(parts)
    return "its claim proved" if owed == 1 else f"all {owed} claims proved"


def _claims(n: int) -> str:
    return f"{n} claim" + ("" if n == 1 else "s")


def status_words(status: str) -> str:
    """A claim's status as a hover or page says it: a stated claim is not proved, and says why."""
    return "stated (no proof expected)" if status == "stated" else status
