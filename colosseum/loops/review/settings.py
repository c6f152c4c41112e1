"""``[review]`` in colosseum.toml as a ReviewConfig: the table is declared, checked and reported
with the others by colosseum.settings (a bad value keeps its default); this module adds the
budget and the command line's overrides."""

from __future__ import annotations

from dataclasses import replace

from colosseum.loops.review.records import ReviewConfig
from colosseum.settings import table


def review_config(project_config, max_calls: int | None = None, reviewers: int | None = None,
                  model: str | None = None) -> tuple[ReviewConfig, list[str]]:
    """(config, problems): ``[review]`` over the defaults, the budget from ``[budget]
    max_calls`` unless ``max_calls`` is given, and ``reviewers``/``model`` overrides."""
    problems: list[str] = []
    review = table(project_config, "review")
    config = replace(ReviewConfig(), reviewers=review.reviewers, context_tokens=review.context_tokens,
                     output_tokens=review.output_tokens)
    if max_calls is None:
        max_calls = table(project_config, "budget").max_calls
    if config.output_tokens * 2 > config.context_tokens:
        problems.append("`review.output_tokens` must be at most half of `review.context_tokens`; "
                        "a quarter of the window is used")
        config = replace(config, output_tokens=config.context_tokens // 4)
    return replace(config, max_calls=max_calls, reviewers=reviewers or config.reviewers, model=model), problems
