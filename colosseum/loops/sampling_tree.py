"""The overlapping random-sampling tree: each aggregator of the next level draws k bundles
uniformly without replacement from the current level; aggregators draw independently, so groups
overlap and one bundle may feed several of them (or, by chance, none)."""

from __future__ import annotations

import random
from collections.abc import Callable

Tree = list[list[tuple[str, list[str]]]]  # per level above the leaves: (aggregator, the bundles it drew)


def aggregator_names(widths: tuple[int, ...]) -> list[list[str]]:
    """The aggregators' names, level by level: ``A<level>.<i>`` (level 1 is the first above the leaves)."""
    return [[f"A{level}.{i}" for i in range(width)] for level, width in enumerate(widths[1:], start=1)]


def draw_tree(leaves: list[str], widths: tuple[int, ...], k: int, rng: random.Random,
              after_first_level: Callable[[list[list[str]]], None] | None = None) -> Tree:
    """Every aggregator's group, for all levels, before any aggregator runs. Each level is drawn over
    the names of the level below, from the one ``rng`` and in the same order as drawing each level
    when it is reached, so a seed gives the same tree either way. ``after_first_level`` may change
    the first level's groups in place (and draw from ``rng``) before the next level is drawn."""
    tree: Tree = []
    current = leaves
    for level, names in enumerate(aggregator_names(widths), start=1):
        groups = draw_groups(current, len(names), k, rng)
        if level == 1 and after_first_level is not None:
            after_first_level(groups)
        tree.append(list(zip(names, groups)))
        current = names
    return tree


def draw_groups(items: list[str], width: int, k: int, rng: random.Random) -> list[list[str]]:
    """``width`` groups of ``min(k, len(items))`` distinct items each, drawn independently."""
    size = min(k, len(items))
    return [rng.sample(items, size) for _ in range(width)]


def ancestors_reaching(root: str, sources: dict[str, tuple[str, ...]]) -> set[str]:
    """Every bundle that feeds ``root`` through some chain of aggregations."""
    seen: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        for parent in sources.get(node, ()):
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return seen


def strategy_clusters(strategies: dict[str, str], threshold: float = 0.5) -> list[list[str]]:
    """Leaves grouped by the strategy they actually took (greedy, by word overlap): a cheap
    stand-in for a judgement of "the same idea", enough to see which ideas are in the minority."""
    def words(text: str) -> set[str]:
        return {w for w in "".join(c.lower() if c.isalnum() else " " for c in text).split() if len(w) > 3}

    clusters: list[tuple[set[str], list[str]]] = []
    for leaf, text in strategies.items():
        bag = words(text)
        for centre, members in clusters:
            union = bag | centre
            if union and len(bag & centre) / len(union) >= threshold:
                members.append(leaf)
                break
        else:
            clusters.append((bag, [leaf]))
    return [members for _, members in clusters]


def cover_clusters(groups: list[list[str]], clusters: list[list[str]], rng: random.Random) -> list[str]:
    """Make every cluster reach some group: for a cluster no group drew, swap one of its members
    into a group, in place of a member of the best-represented cluster. Returns what was swapped in."""
    cluster_of = {leaf: i for i, members in enumerate(clusters) for leaf in members}
    swapped = []
    for members in clusters:
        drawn = {leaf for group in groups for leaf in group}
        if any(leaf in drawn for leaf in members):
            continue
        counts: dict[int, int] = {}
        for group in groups:
            for leaf in group:
                counts[cluster_of.get(leaf, -1)] = counts.get(cluster_of.get(leaf, -1), 0) + 1
        crowded = max(counts, key=lambda c: (counts[c], -c))
        for group in sorted(groups, key=lambda g: -sum(cluster_of.get(x, -1) == crowded for x in g)):
            victims = [i for i, leaf in enumerate(group) if cluster_of.get(leaf, -1) == crowded]
            if victims:
                newcomer = rng.choice(members)
                group[rng.choice(victims)] = newcomer
                swapped.append(newcomer)
                break
    return swapped
