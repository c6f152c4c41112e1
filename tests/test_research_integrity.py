"""Evidence integrity in the research pipeline (issue 14, hand-offs 2 and 3): a section passes
only when no fatal critique of its inner loop survives and its local reviewer addressed every
critique it was given; the readiness gate is not ready while a fatal falsifier critique of the
main route stands without a checked rebuttal; failed routes are recorded from what reached the
root, never from a leaf critique that was later resolved; the exploration runs the paper's
widths unless the author turns adaptive widths on. Scripted providers (test doubles) only."""

from __future__ import annotations

from colosseum.loops.inner.solve import ObligationContext
from colosseum.loops.research.exploration import explore
from colosseum.loops.research.records import ResearchConfig
from colosseum.loops.research.settings import research_settings
from colosseum.models.budget import Budget
from colosseum.models.metered import MeteredProvider
from colosseum.models.scripted_provider import ScriptedProvider
from colosseum.settings import load_config
from doubles.research_script import ResearchScript

CONTEXT = ObligationContext("thm:goal", "Every admissible input has the property.", assumable="[lem:known] A fact.")


def metered(script) -> MeteredProvider:
    return MeteredProvider(ScriptedProvider(script), Budget.of_started_calls(None))


# ---- widths: the paper's unless the author turns adaptive widths on ----------------------------------
async def test_exploration_runs_the_papers_widths_unless_adaptive_widths_are_turned_on(tmp_path):
    research, _, _ = research_settings(load_config(tmp_path))  # no colosseum.toml: the defaults
    assert research.exploration_widths == (32, 16, 8, 5, 1) and research.adaptive_widths is False
    # every batch would find the same flaw: adaptive widths would stop after 16 leaves
    provider = metered(ResearchScript(distinct_fatal_flaws=False))
    result = await explore(CONTEXT, provider, ResearchConfig(seed=5), seed=5)
    roles = [r.role for r in provider.inner.calls]
    assert result.widths == (32, 16, 8, 5, 1) and roles.count("explorer") == 32 and result.calls_saved == 0
    (tmp_path / "colosseum.toml").write_text("[research]\nadaptive_widths = true\n")
    research, _, _ = research_settings(load_config(tmp_path))
    assert research.adaptive_widths is True
