"""``[research]`` in colosseum.toml as a ResearchConfig and the cross-model selection: the table is
declared, checked and reported with the others by colosseum.settings (a bad value keeps its
default); this module adds the budget and the command line's overrides, and the planned calls."""

from __future__ import annotations

from dataclasses import dataclass, replace

from colosseum.loops.research.records import ResearchConfig, routed_inner_config
from colosseum.settings import table


def _positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


# key of [research] -> the ResearchConfig field it sets (judges and select_threshold set the selection)
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
    """(config, selection, problems): ``[research]`` over the defaults (colosseum.settings reported
    its bad keys), the budget from ``[budget] max_calls``, and the command line's overrides."""
    problems: list[str] = []
    research = table(project_config, "research")
    for name, given in (("rounds", rounds), ("max_calls", max_calls), ("judges", judges), ("threshold", threshold)):
        if given is not None and not _positive_int(given):
            problems.append(f"`{name}` must be a positive integer, not {given!r}: the configured value is used")
    rounds = rounds if _positive_int(rounds) else None
    judges = judges if _positive_int(judges) else None
    threshold = threshold if _positive_int(threshold) else None
    max_calls = max_calls if _positive_int(max_calls) else table(project_config, "budget").max_calls
    config = replace(ResearchConfig(), **{field: getattr(research, key) for key, field in FIELDS.items()},
                     max_calls=max_calls)
    if rounds is not None:
        config = replace(config, rounds=rounds)
    selection = SelectionSettings(judges or research.judges, threshold or research.select_threshold)
    if selection.threshold > selection.judges:
        problems.append(f"the selection threshold ({selection.threshold}) is more than the number of judges "
                        f"({selection.judges}): the default 5 of 8 is used")
        selection = SelectionSettings()
    return config, selection, problems


def planned_calls(config: ResearchConfig, inner_config, reviewers: int, obligations: int) -> dict:
    """What a run is expected to cost, in calls, for a skeleton of ``obligations`` obligations
    with no retry and one round (the upper bounds say what retries and rounds can add)."""
    explore = config.planned_exploration_calls() + 1  # the tree, then the gate (and a check per rebuttal it claims)
    decompose = 1
    # the inner loop on the route the plan assigned (no angle planning of its own), then its local review
    per_obligation = routed_inner_config(inner_config).planned_calls() + 1
    review = reviewers
    first = explore + decompose + obligations * per_obligation + review
    worst_section = (routed_inner_config(inner_config).maximum_calls() + 1) * (1 + config.section_retries)  # every resolution checked
    worst = config.max_explorations * (explore + config.decomposition_attempts
                                       + obligations * worst_section) + config.rounds * (review + 2)
    leaves = config.exploration_widths[0]
    return {"exploration": explore, "decomposition": decompose, "per_obligation": per_obligation,
            "global_review": review, "typical": first, "upper": worst,
            "explorers": leaves, "falsifiers": leaves * config.falsifiers_per_card,
            "strategy_aggregators": sum(config.exploration_widths[1:]), "gate": 1,
            "inner_loop": routed_inner_config(inner_config).planned_calls()}
