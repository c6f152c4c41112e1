"""Any paper is a problem set: each chosen claim is a problem, its proof in the paper (when it has
one) the reference solution, and the results it does not depend on are assumable as in solve.

The claims are chosen by ``--labels`` or by a comment line ``% colosseum: benchmark`` in the
claim's statement or proof (read here from the claim's own source text: the marker belongs to
the benchmark, not to the index).

What a solver sees is the claim's ``ObligationContext`` and nothing else: never the reference
proof, and never a catalog entry that states the claim (one linked to its label, or whose
statement is the claim's statement), which would hand it the answer."""

from __future__ import annotations

import re
from dataclasses import dataclass

from colosseum.catalog.retrieval import CatalogSearch
from colosseum.catalog.store import Catalog
from colosseum.loops.inner import ObligationContext, obligation_context

BENCHMARK_MARKER = re.compile(r"(?m)^\s*%+\s*colosseum:\s*benchmark\b")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[A-Za-z]{3,}")
SAME_CLAIM_SIMILARITY = 0.5


class NoProblems(ValueError):
    """The labels name no claim, or no claim carries the marker: there is nothing to benchmark."""


@dataclass(frozen=True)
class Problem:
    """One claim as a problem: what the solvers see (``context``) and what only the graders see
    (``reference``, the claim's proof in the paper; "" when it has none)."""

    label: str
    statement: str
    reference: str
    context: ObligationContext

    @property
    def has_reference(self) -> bool:
        return bool(self.reference.strip())


def proof_text(index, claim) -> str:
    """The text of the claim's proof in the paper, between ``\\begin{proof}`` and ``\\end{proof}``."""
    proof = claim.proof
    if proof is None:
        return ""
    text = index.text_of(proof.file)
    if text is None:
        return ""
    _, begin_end, end_start, _ = proof.spans
    return text.text[begin_end:end_start].strip()


def is_marked(index, claim) -> bool:
    """The claim's statement or proof has a line ``% colosseum: benchmark``."""
    return bool(BENCHMARK_MARKER.search(claim.statement_text) or BENCHMARK_MARKER.search(proof_text(index, claim)))


def marked_labels(index) -> list[str]:
    """Every claim with the benchmark marker, in reading order."""
    return [c.id for c in sorted(index.claims.values(), key=lambda c: c.order) if is_marked(index, c)]


def _flat(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def without_the_claim(catalog: Catalog | None, label: str, statement: str, title: str | None = None) -> Catalog | None:
    """The catalog less the entries that state the problem's claim: linked to its label; with the
    claim's statement (its comments and labels aside) in theirs; named by the claim's title (every
    word of it in the entry's title); or close to its statement (TF-IDF similarity at least
    ``SAME_CLAIM_SIMILARITY``: the starter catalog states many standard lemmas)."""
    if catalog is None:
        return None
    clean = "\n".join(line for line in statement.splitlines() if not line.strip().startswith(("%", "\\label")))
    target, named = _flat(clean), _words(title or "")
    close = {entry_id for score, entry_id in CatalogSearch(catalog).similar(clean) if score >= SAME_CLAIM_SIMILARITY}

    def states_it(entry) -> bool:
        if label in (entry.links.get("labels") or []) or entry.id in close:
            return True
        if named and named <= _words(entry.title):
            return True
        return any(target and target in _flat(str(entry.data.get(key) or "")) for key in ("statement", "claim"))

    return Catalog({k: e for k, e in catalog.entries.items() if not states_it(e)}, list(catalog.problems))


def problems_of(index, labels: list[str] | None, catalog: Catalog | None = None) -> list[Problem]:
    """The problems of ``labels`` (every marked claim when None); NoProblems when there are none
    or a label names no claim."""
    chosen = marked_labels(index) if labels is None else labels
    unknown = [label for label in chosen if label not in index.claims]
    if unknown:
        raise NoProblems(f"no claim {', '.join(f'`{u}`' for u in unknown)} in the project")
    if not chosen:
        raise NoProblems("no claim carries a line `% colosseum: benchmark` (or name them with --labels)")
    problems = []
    for label in dict.fromkeys(chosen):
        claim = index.claims[label]
        context = obligation_context(index, label, without_the_claim(catalog, label, claim.statement_text, claim.title))
        reference = BENCHMARK_MARKER.sub("", proof_text(index, claim)).strip()  # the marker is ours, not the proof's
        problems.append(Problem(label, context.statement, reference, context))
    return problems
