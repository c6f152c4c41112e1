"""Circular groups of a dependency graph and one shortest cycle through each: pure functions on
successor maps, shared by the whole-graph search (`dag`) and the search after an edit (`status`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator


def shortest_cycle(component: list[str], succ: dict[str, set[str]]) -> list[str]:
    """One shortest closed path through the first (smallest) node of a circular group, its
    successors taken in name order: the same path however the group was found."""
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
    return [start] + list(reversed(path[1:])) + [start]


def circular_groups(succ: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node, each sorted, in the order of
    their smallest node (only nodes with edges out can be on a circle, and the order of the search
    does not matter once the groups are sorted)."""
    groups = components(succ, [node for node, users in succ.items() if users], iter, smallest=2)
    groups.sort()
    return groups


def in_name_order(nodes: set[str]) -> Iterator[str]:
    return iter(sorted(nodes))


def components(succ: dict[str, set[str]], starts: list[str],
                visit: Callable[[set[str]], Iterator[str]], smallest: int) -> list[list[str]]:
    """Tarjan's algorithm, iterative (papers have long dependency chains): the strongly connected
    components reached from ``starts`` with at least ``smallest`` nodes, each sorted, in the order
    the search closes them. ``visit(successors)`` iterates a node's successors (``iter``, or
    ``in_name_order`` for the same order on every run)."""
    index_of: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in starts:
        if start in index_of:
            continue
        index_of[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work = [(start, visit(succ.get(start, ())))]
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index_of:
                    index_of[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, visit(succ.get(child, ()))))
                    advanced = True
                    break
                if child in on_stack and index_of[child] < low[node]:
                    low[node] = index_of[child]
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == index_of[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) >= smallest:
                    components.append(sorted(component))
    return components
