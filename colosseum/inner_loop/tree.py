"""The overlapping random-sampling tree: each aggregator of the next level draws k bundles
uniformly without replacement from the current level; aggregators draw independently, so groups
overlap and one bundle may feed several of them (or, by chance, none)."""

from __future__ import annotations

import random


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
