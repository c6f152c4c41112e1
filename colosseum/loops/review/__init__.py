"""Global and local review: the verifier of the outer loop (``../shared/method.md``, steps 4 and 5).

Public API (stable; everything else in this package is internal)::

    from colosseum.loops.review import (ReviewConfig, ReviewReport, ReviewCritique, ClaimReview,
                                  review_document, review_claim, LocalReviewer, LocalReviewCache,
                                  retry_claim, failed_context, anchor_quote, DismissalStore,
                                  write_report, review_config)

    report = await review_document(index, provider, config=ReviewConfig(), progress=None)
        # Reads every root's files in reading order with file:line anchors, as one argument.
        # ``config.reviewers`` independent reviewers (default 3); a document whose request is
        # longer than ``config.part_budget()`` tokens (counted with ``provider.count_tokens``) is
        # cut into parts along the DAG, each with the statements it relies on, and each reviewer
        # ends with a synthesis pass over its parts' findings (``report.split`` says how).
        # Critiques that say the same thing (same kind, nearly the same quoted span) are merged;
        # the others are all kept. Verdict: "rejected" if one anchored, undismissed fatal
        # critique exists (a veto, never a vote); else "revise" if a major (or unanchored
        # fatal) critique remains or a reviewer asked for revision; else "accepted".
        # ``progress(stage, done, total)`` may raise SolveCancelled to stop; the budget
        # (``config.max_calls``) raises BudgetExceeded before any call, BudgetReached mid-way
        # (both from colosseum.models.errors). Dismissals in .colosseum/reviews/ are applied.
    report.verdict, report.reasons, report.critiques, report.usage, report.to_json(root_dir)
    path = write_report(report, index)   # .colosseum/reviews/<time>-global.md (+ .json)

    review = await review_claim(index, label, provider, cache=None, *, proof=None,
                                config=ReviewConfig(), progress=None)
        # One claim (or section, by its label): does the proof prove exactly its statement, and
        # do the hypotheses of each result it cites hold where it cites them? ``proof`` reviews a
        # draft instead of the proof in the document (the research pipeline's solved section).
        # One model call, or none when ``cache`` (a LocalReviewCache) holds the same key. A claim
        # with no proof raises NothingToReview (no call); an empty draft fails without a call.
        # Each call of ``review`` is a run of its own against ``config.max_calls``.
    review.verdict ("passed" | "failed"), review.passed, review.critiques, review.cached

    reviewer = LocalReviewer(provider, LocalReviewCache(local_reviews_dir(root_dir)),  # colosseum.core.paths
                             config=ReviewConfig())
    reviews = await reviewer.review_many(index, labels=None, progress=None)
        # Incremental: a review is keyed by the claim's text, the statements of what it uses
        # (its direct predecessors in the DAG), the prompt version and the model. After an edit
        # only the claims whose key changed cost a call; ``reviewer.reviewed`` and
        # ``reviewer.served`` list what was re-run and what came from the cache. The budget
        # (``reviewer.config.max_calls``, read at the start of each run) bounds one run:
        # ``review_many`` refuses with BudgetExceeded before any call when more are needed.

    context = failed_context(index, label, failed_review, catalog=None)  # an ObligationContext
    result = await retry_claim(index, label, failed_review, provider, inner_config,
                               catalog=None, progress=None, recorder=None)
        # A failed section retried alone through the inner loop, its failed draft and the
        # critique given as the previous attempt (ObligationContext.previous).

    anchor = anchor_quote(index, quote, hint_file=None, hint_line=None)
        # (file, Range) of a quoted span in whichever file, or None: whitespace-insensitive,
        # comment lines ignored, the hint only chooses between several exact occurrences.

    store = DismissalStore(root_dir)  # .colosseum/reviews/dismissed.json
    store.dismiss(critique); store.is_dismissed(critique); store.restore(key)

    config, problems = review_config(project_config, max_calls=None)  # from [review] and [budget]

Every model call goes through a ``colosseum.models`` provider (a CachedProvider serves unchanged
requests from disk); prompts are ``prompts/global_reviewer.md``, ``local_reviewer.md`` and
``review_synthesis.md``. Natural-language review is evidence, not a formal check.
"""

from colosseum.loops.review.anchoring import anchor_quote
from colosseum.loops.review.dismissals import DismissalStore
from colosseum.loops.review.global_review import review_document
from colosseum.loops.review.local_review import (
    LocalReviewCache,
    LocalReviewer,
    NothingToReview,
    failed_context,
    local_review_key,
    retry_claim,
    review_claim,
)
from colosseum.loops.review.records import (
    ClaimReview,
    ReviewConfig,
    ReviewCritique,
    ReviewerVerdict,
    ReviewPart,
    ReviewReport,
    SplitPlan,
)
from colosseum.loops.review.report import write_report
from colosseum.loops.review.settings import review_config

__all__ = [
    "ClaimReview", "DismissalStore", "LocalReviewCache", "LocalReviewer", "NothingToReview", "ReviewConfig", "ReviewCritique",
    "ReviewPart", "ReviewReport", "ReviewerVerdict", "SplitPlan", "anchor_quote", "failed_context",
    "local_review_key", "retry_claim", "review_claim", "review_config", "review_document", "write_report",
]
