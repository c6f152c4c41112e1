"""Local review of one claim or section, incremental; a failed one retried through the inner loop."""

from __future__ import annotations

from pathlib import Path

from colosseum.review.records import ClaimReview, ReviewConfig


def local_review_key(index, label: str, proof: str | None, prompt_version: int, model: str) -> str:
    raise NotImplementedError


class LocalReviewCache:
    def __init__(self, directory: Path | None):
        self.directory = directory


class LocalReviewer:
    def __init__(self, provider, cache: LocalReviewCache | None = None, config: ReviewConfig = ReviewConfig()):
        self.provider, self.cache, self.config = provider, cache, config
        self.reviewed: list[str] = []
        self.served: list[str] = []

    async def review(self, index, label: str, *, proof: str | None = None, progress=None) -> ClaimReview:
        raise NotImplementedError

    async def review_many(self, index, labels=None, progress=None) -> list[ClaimReview]:
        raise NotImplementedError


async def review_claim(index, label: str, provider, cache: LocalReviewCache | None = None, *,
                       proof: str | None = None, config: ReviewConfig = ReviewConfig(), progress=None) -> ClaimReview:
    raise NotImplementedError


def failed_context(index, label: str, failed: ClaimReview, catalog=None):
    raise NotImplementedError


async def retry_claim(index, label: str, failed: ClaimReview, provider, inner_config, catalog=None, progress=None,
                      recorder=None):
    raise NotImplementedError
