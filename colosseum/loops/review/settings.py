"""``[review]`` in colosseum.toml, checked key by key (a bad value is a clear message and the
default stays). colosseum/config.py checks the table against KEYS and reports its problems with the
others; this module reads the valid keys."""

from __future__ import annotations

from dataclasses import replace

from colosseum.loops.review.records import ReviewConfig


def _positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


KEYS = {
    "reviewers": (_positive_int, "a positive integer"),
    "context_tokens": (lambda v: _positive_int(v) and v >= 2_000, "an integer of at least 2000"),
    "output_tokens": (lambda v: _positive_int(v) and v >= 256, "an integer of at least 256"),
}


def review_config(project_config, max_calls: int | None = None, reviewers: int | None = None,
                  model: str | None = None) -> tuple[ReviewConfig, list[str]]:
    """(config, problems): ``[review]`` over the defaults, the budget from ``[budget]
    max_calls`` unless ``max_calls`` is given, and ``reviewers``/``model`` overrides."""
    raw = getattr(project_config, "raw", {}) or {}
    problems: list[str] = []
    from colosseum.settings.project import valid_table

    values = valid_table(project_config, "review")  # colosseum.settings.project reported the bad keys; their defaults stay
    config = replace(ReviewConfig(), **values)
    if max_calls is None:
        budget = raw.get("budget", {})
        candidate = budget.get("max_calls") if isinstance(budget, dict) else None
        max_calls = candidate if _positive_int(candidate) else None
    if config.output_tokens * 2 > config.context_tokens:
        problems.append("`review.output_tokens` must be at most half of `review.context_tokens`; "
                        "a quarter of the window is used")
        config = replace(config, output_tokens=config.context_tokens // 4)
    return replace(config, max_calls=max_calls, reviewers=reviewers or config.reviewers, model=model), problems
