"""Reviews, set up once for the CLI and the editor: the global review of the whole document (and
its dry run), and the local review of one claim or section."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from colosseum.app.run_settings import RunOverrides, RunSettings
from colosseum.app.stops import StopReason, until_stopped
from colosseum.app.solve import StageProgress
from colosseum.core.paths import local_reviews_dir
from colosseum.loops.review import LocalReviewCache, LocalReviewer, review_config, review_document, write_report
from colosseum.loops.review.local_review import material


@dataclass(frozen=True)
class ReviewSetup:
    """A review's settings: the run's model settings, ``[review]`` with the command's overrides,
    and what colosseum.toml got wrong (its defaults are used)."""

    settings: RunSettings
    config: object
    problems: list[str]


def review_setup(index, overrides: RunOverrides, reviewers: int | None = None) -> ReviewSetup:
    config, problems = review_config(index.config, overrides.max_calls, reviewers, overrides.model)
    return ReviewSetup(RunSettings.of(index, overrides), config, problems)


@dataclass(frozen=True)
class Refusal:
    """Why a label cannot have a local review, said before any call; ``no_proof``: the label is
    there but has nothing to review."""

    message: str
    no_proof: bool = False


def refusal(index, label: str) -> Refusal | None:
    if label not in index.claims and label not in index.sections:
        return Refusal(f"no claim or section `{label}` in the project")
    if not material(index, label).proof.strip():
        return Refusal(f"nothing to review: `{label}` has no proof", no_proof=True)
    return None


@dataclass
class GlobalReviewOutcome:
    """The review and its written report, or the reason it stopped."""

    report: object = None
    path: Path | None = None
    stop: StopReason | None = None
    computation: dict | None = None  # label -> the catalog's computations on it, shown apart from the review


async def review_globally(index, provider, config, progress: StageProgress, prices: dict | None) -> GlobalReviewOutcome:
    from colosseum.app.evidence import claims_computation

    async def work() -> GlobalReviewOutcome:
        report = await review_document(index, provider, config, progress)
        computation = await asyncio.to_thread(claims_computation, index)
        path = await asyncio.to_thread(write_report, report, index, "global", prices, computation)
        return GlobalReviewOutcome(report, path, computation=computation)

    return await until_stopped(work(), lambda reason: GlobalReviewOutcome(stop=reason))


def local_reviewer(root_dir: Path, provider, config, refresh: bool = False) -> LocalReviewer:
    """A reviewer whose answers are kept by what each review read (``refresh``: none is served)."""
    return LocalReviewer(provider, LocalReviewCache(local_reviews_dir(root_dir), refresh=refresh), config)


@dataclass
class LocalReviewOutcome:
    review: object = None
    stop: StopReason | None = None


async def review_claim(reviewer: LocalReviewer, index, label: str, progress: StageProgress) -> LocalReviewOutcome:
    async def work() -> LocalReviewOutcome:
        return LocalReviewOutcome(await reviewer.review(index, label, progress=progress))

    return await until_stopped(work(), lambda reason: LocalReviewOutcome(stop=reason))


@dataclass
class ManyReviewsOutcome:
    reviews: list = None
    stop: StopReason | None = None


async def review_many(reviewer: LocalReviewer, index, labels: list[str], progress: StageProgress) -> ManyReviewsOutcome:
    """Local reviews of ``labels`` together (LocalReviewer.review_many: one run against the budget,
    their calls in flight at once, so with --batch they go out as one batch)."""
    async def work() -> ManyReviewsOutcome:
        return ManyReviewsOutcome(await reviewer.review_many(index, labels, progress))

    return await until_stopped(work(), lambda reason: ManyReviewsOutcome(stop=reason))


@dataclass(frozen=True)
class ReviewEstimate:
    """What a global review would cost: the document's size, how it was measured, the calls."""

    tokens: int
    measured_by: str
    calls: int
    note: str
    upper_cost_usd: float | None


async def estimate_global_review(index, provider, model: str, config, prices: dict | None) -> ReviewEstimate:
    """Counted by the API's token counter when there is a provider, else from characters."""
    from colosseum.loops.review.anchoring import document_text
    from colosseum.loops.review.global_review import NO_RELIED_ON, WHOLE_SCOPE, _reviewer_values, reviewer_step
    from colosseum.models.pricing import cost_usd
    from colosseum.models.provider import Usage

    values = _reviewer_values(config, 0, WHOLE_SCOPE, document_text(index).render_all(), NO_RELIED_ON)
    if provider is None:
        tokens = _estimated_tokens("global_reviewer", values)
        # why there is no provider (no API key, most often) was said once, on stderr: not said again here
        how = "a character-based estimate, one token per four characters: the API's counter was not asked"
    else:
        tokens = await reviewer_step(provider, config).count("global_reviewer", values)
        how = "counted by the API's token counter" if getattr(provider, "exact_token_counts", False) else \
            "an estimate: this provider has no counter API"
    budget = config.part_budget()
    if tokens <= budget:
        planned, note = config.reviewers, "read in one request"
    else:
        parts = -(-tokens // budget) + 1  # the cut is along sections, so about one part more
        planned, note = config.reviewers * (parts + 1), f"too long for one request: about {parts} parts and a synthesis"
    upper = cost_usd(Usage(input_tokens=planned * min(tokens, budget), output_tokens=planned * config.output_tokens),
                     model, prices)
    return ReviewEstimate(tokens, how, planned, note, upper)


def _estimated_tokens(role: str, values: dict) -> int:
    from colosseum.models.prompts import load_prompt

    system, user = load_prompt(role).render(values)
    return (len(system) + len(user)) // 4 + 1
