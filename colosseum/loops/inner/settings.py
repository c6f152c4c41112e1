"""``[solve]`` and ``[budget]`` of colosseum.toml as the inner loop's InnerLoopConfig, with the valid
keys of ``[models]``: the tables are declared, checked and reported by colosseum.settings (a bad
value keeps its default); this module adds the command line's budget and the widths' default shape."""

from __future__ import annotations

from colosseum.loops.inner.records import InnerLoopConfig
from colosseum.settings import table, valid_table


def inner_loop_config(project_config, max_calls: int | None = None) -> tuple[InnerLoopConfig, dict]:
    """(config, the valid keys of [models]), shared by every command that runs the inner loop;
    ``max_calls`` overrides ``[budget] max_calls``."""
    solve, budget = table(project_config, "solve"), table(project_config, "budget")
    widths = solve.widths or (solve.leaves, 8, 5, 1)
    if widths[0] != solve.leaves:  # a bad `leaves` beside good widths (reported): the default shape
        widths = (solve.leaves, 8, 5, 1)
    config = InnerLoopConfig(leaves=solve.leaves, refuters_per_candidate=solve.refuters, widths=widths, k=solve.k,
                             cover_strategies=solve.cover_strategies, final_refuters=solve.final_refuters,
                             plan_angles=solve.plan_angles,
                             max_calls=max_calls if max_calls is not None else budget.max_calls)
    return config, valid_table(project_config, "models")
