"""How much the graders agree: the raw agreement (Fleiss' observed agreement, the share of
grader pairs that gave an answer the same grade, averaged over the answers) and Fleiss' kappa
(that agreement corrected for the agreement chance alone would give)."""

from __future__ import annotations

from collections import Counter

from colosseum.bench.records import GRADES


def rating_table(ratings: list[list[str]], categories: tuple[str, ...] = GRADES) -> list[list[int]]:
    """One row per answer: how many graders gave each category. Only answers graded by the same
    (largest) number of graders count: Fleiss' kappa needs as many ratings on every row."""
    if not ratings:
        return []
    n = max(len(r) for r in ratings)
    return [[Counter(r)[c] for c in categories] for r in ratings if len(r) == n and n >= 2]


def observed_agreement(table: list[list[int]]) -> float | None:
    """P-bar: the mean over the rows of the share of agreeing grader pairs."""
    if not table:
        return None
    n = sum(table[0])
    return sum((sum(c * c for c in row) - n) / (n * (n - 1)) for row in table) / len(table)


def fleiss_kappa(table: list[list[int]]) -> float | None:
    """Fleiss' kappa of the table; None when it is undefined (no rows, or every grade the same
    category, where chance agreement is already complete)."""
    if not table:
        return None
    n, rows = sum(table[0]), len(table)
    shares = [sum(row[j] for row in table) / (rows * n) for j in range(len(table[0]))]
    chance = sum(p * p for p in shares)
    if chance >= 1.0:
        return None
    return (observed_agreement(table) - chance) / (1 - chance)
