"""The research pipeline's view of the review layer (colosseum.loops.review): local review of one
solved section before it goes into the draft, a failed section retried alone, and the global
review of the whole draft. Kept behind this small adapter so that the pipeline names one place
where it depends on that API."""

from __future__ import annotations

from dataclasses import replace

BLOCKING = ("fatal", "major")  # the refuters' critiques a section's local reviewer must answer


class ReviewLayer:
    def __init__(self, provider, project_config=None, reviewers: int | None = None, model: str | None = None):
        from colosseum.loops.review import ReviewConfig, review_config

        self.provider = provider
        if project_config is not None:
            config, self.problems = review_config(project_config, reviewers=reviewers, model=model)
        else:
            config, self.problems = ReviewConfig(reviewers=reviewers or ReviewConfig.reviewers, model=model), []
        # the research run's own budget bounds every call (see models.metered.MeteredProvider)
        self.config = replace(config, max_calls=None)

    async def local(self, index, label: str, proof: str, progress=None, carried=()):
        """A ClaimReview of ``proof`` as the proof of ``label`` (not yet in the draft); the
        reviewer must address each of ``carried``, the critiques its refuters left standing."""
        from colosseum.loops.review import review_claim

        return await review_claim(index, label, self.provider, None, proof=proof, config=self.config,
                                  progress=progress, carried=carried)

    async def retry(self, index, label: str, failed, inner_config, catalog=None, progress=None, recorder=None,
                    probes=None):
        """The section alone through the inner loop, its failed draft and critique as the
        previous attempt (``probes``: the refuters' run_python); a SolveResult."""
        from colosseum.loops.review import retry_claim

        return await retry_claim(index, label, failed, self.provider, inner_config, catalog=catalog,
                                 progress=progress, recorder=recorder, probes=probes)

    async def global_(self, index, progress=None):
        """A ReviewReport on the whole document (the paper with the draft in place)."""
        from colosseum.loops.review import review_document

        return await review_document(index, self.provider, self.config, progress)


def critique_json(c, draft=None) -> dict:
    """A critique as recorded in the run; ``draft_line`` is where its quote is in the draft file
    (the line numbers of the reviewed document are those of the theorem's file with the draft in
    place, which is not a file on disk)."""
    return {"id": c.id, "severity": c.severity, "kind": c.kind, "message": c.message, "quote": c.quote,
            "anchored": c.anchored, "file": str(c.file) if c.file else None, "line": c.line,
            "draft_line": draft.draft_line(c.file, c.line) if draft is not None else None,
            "label": getattr(c, "label", None), "repair": c.repair}


def carried_critiques(result) -> list:
    """The critiques the inner loop's refuters left standing on its proof (fatal and major): what
    the local reviewer is given to answer."""
    return [c for c in result.surviving_critiques if c.severity in BLOCKING]


def section_gate(review, result):
    """The section's review with the inner loop's evidence applied: it passes only when its local
    review passed and no fatal critique of its inner loop survives (a reviewer's answer never
    clears a fatal critique). A failure names the fatal critiques, so the retry is told them."""
    fatal = [c for c in result.surviving_critiques if c.severity == "fatal"]
    notes = [f"the refuters' fatal critique [{c.id}] survived the inner loop: \"{c.quote}\" -- {c.explanation}"
             for c in fatal]
    if getattr(result, "verdict", "") == "incomplete":  # a refutation that did not finish is not "none survived"
        notes.append("the inner loop's final refutation did not finish: no verdict on this proof")
    if not notes:
        return review
    return replace(review, verdict="failed", reasons=list(dict.fromkeys(list(review.reasons) + notes)))
