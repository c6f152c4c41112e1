"""Global review: the whole document read as one argument by several independent reviewers."""

from __future__ import annotations

from colosseum.review.records import ReviewConfig, ReviewReport


async def review_document(index, provider, config: ReviewConfig = ReviewConfig(), progress=None) -> ReviewReport:
    """See the package docstring."""
    raise NotImplementedError("global review: implementation in progress")
