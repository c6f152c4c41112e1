"""``[research]`` in colosseum.toml, checked key by key (a bad value is a clear message and the
default stays), with the command line's overrides. colosseum/config.py checks the table against
KEYS and reports its problems with the others; this module reads the valid keys."""

from __future__ import annotations

from dataclasses import dataclass, replace

from colosseum.loops.research.records import ResearchConfig


def _positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _widths(value) -> bool:
    return (isinstance(value, list) and len(value) >= 2 and all(_positive_int(w) for w in value) and value[-1] == 1
            and all(a >= b for a, b in zip(value, value[1:])))


KEYS = {
    "exploration_widths": (_widths, "a non-increasing list of positive integers ending with 1, e.g. [32, 16, 8, 5, 1]"),
    "k": (_positive_int, "a positive integer"),
    "falsifiers": (_positive_int, "a positive integer"),
    "adaptive_widths": (lambda v: isinstance(v, bool), "true or false"),
    "batch": (_positive_int, "a positive integer"),
    "explorations": (_positive_int, "a positive integer"),
    "section_retries": (_count, "a non-negative integer"),
    "redecompose": (lambda v: isinstance(v, bool), "true or false"),
    "max_redecompositions": (_count, "a non-negative integer"),
    "parallel_sections": (_positive_int, "a positive integer"),
    "rounds": (_positive_int, "a positive integer"),
    "judges": (_positive_int, "a positive integer"),
    "select_threshold": (_positive_int, "a positive integer"),
}
FIELDS = {"exploration_widths": "exploration_widths", "k": "k", "falsifiers": "falsifiers_per_card",
          "adaptive_widths": "adaptive_widths", "batch": "batch", "explorations": "max_explorations",
          "section_retries": "section_retries", "redecompose": "redecompose",
          "max_redecompositions": "max_redecompositions", "parallel_sections": "max_parallel_sections",
          "rounds": "rounds"}


@dataclass(frozen=True)
class SelectionSettings:
    judges: int = 8
    threshold: int = 5


def research_settings(project_config, rounds: int | None = None, max_calls: int | None = None,
                      judges: int | None = None, threshold: int | None = None
                      ) -> tuple[ResearchConfig, SelectionSettings, list[str]]:
    raw = getattr(project_config, "raw", {}) or {}
    problems: list[str] = []
    from colosseum.settings.project import valid_table

    values = valid_table(project_config, "research")  # colosseum.settings.project reported the bad keys; their defaults stay
    fields = {FIELDS[k]: (tuple(v) if isinstance(v, list) else v) for k, v in values.items() if k in FIELDS}
    for name, given in (("rounds", rounds), ("max_calls", max_calls), ("judges", judges), ("threshold", threshold)):
        if given is not None and not _positive_int(given):
            problems.append(f"`{name}` must be a positive integer, not {given!r}: the configured value is used")
    rounds = rounds if _positive_int(rounds) else None
    judges = judges if _positive_int(judges) else None
    threshold = threshold if _positive_int(threshold) else None
    max_calls = max_calls if _positive_int(max_calls) else None
    if max_calls is None:
        budget = raw.get("budget", {})
        candidate = budget.get("max_calls") if isinstance(budget, dict) else None
        max_calls = candidate if _positive_int(candidate) else None
    config = replace(ResearchConfig(), **fields, max_calls=max_calls)
    if rounds is not None:
        config = replace(config, rounds=rounds)
    selection = SelectionSettings(judges or values.get("judges", 8), threshold or values.get("select_threshold", 5))
    if selection.threshold > selection.judges:
        problems.append(f"the selection threshold ({selection.threshold}) is more than the number of judges "
                        f"({selection.judges}): the default 5 of 8 is used")
        selection = SelectionSettings()
    return config, selection, problems


def planned_calls(config: ResearchConfig, inner_config, reviewers: int, obligations: int) -> dict:
    """What a run is expected to cost, in calls, for a skeleton of ``obligations`` obligations
    with no retry and one round (the upper bounds say what retries and rounds can add)."""
    explore = config.planned_exploration_calls() + 1  # the tree, then the gate
    decompose = 1
    per_obligation = inner_config.planned_calls() + 1  # the inner loop, then its local review
    review = reviewers
    first = explore + decompose + obligations * per_obligation + review
    worst_section = per_obligation * (1 + config.section_retries)
    worst = config.max_explorations * (explore + config.decomposition_attempts
                                       + obligations * worst_section) + config.rounds * (review + 2)
    return {"exploration": explore, "decomposition": decompose, "per_obligation": per_obligation,
            "global_review": review, "typical": first, "upper": worst}
