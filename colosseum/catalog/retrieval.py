"""Which catalog entries go into a prompt about one target, within a token budget.

Order: failed routes for this very target (always, so an attempt is never guessed again), then
entries linked to the target or to the results it rests on (its DAG ancestors), then the others
by text similarity to the target's statement. Retracted entries never go in. The run records how
many tokens the catalog took."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")


@dataclass
class Retrieved:
    entries: list  # catalog Entry objects, in prompt order
    text: str
    tokens: int  # an estimate: 4 characters a token
    reasons: dict  # entry id -> why it was taken


def entry_text(entry) -> str:
    data = entry.data
    parts = [f"[{entry.id}] {entry.kind}: {entry.title}"]
    for key in ("statement", "claim", "approach", "conclusion"):
        if data.get(key):
            parts.append(str(data[key]).strip())
    if data.get("hypotheses"):
        parts.append("Hypotheses: " + "; ".join(str(h) for h in data["hypotheses"]))
    if data.get("failure_point"):
        parts.append(f"It failed at: {str(data['failure_point']).strip()}")
    return "\n".join(parts)


def _vector(text: str, idf: dict[str, float]) -> dict[str, float]:
    counts = Counter(w.lower() for w in _WORD.findall(text))
    vec = {w: c * idf.get(w, 0.0) for w, c in counts.items()}
    norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
    return {w: v / norm for w, v in vec.items()}


class CatalogSearch:
    """TF-IDF over the catalog's entry texts, built once per catalog."""

    def __init__(self, catalog):
        self.entries = [e for e in catalog.entries.values() if e.status != "retracted"]
        self.texts = {e.id: entry_text(e) for e in self.entries}
        # the curator's records of run outcomes are found by their links only: kept out of the
        # statistics, a run that adds one leaves the next run's similarity ranking (and prompts) as they were
        searchable = [e for e in self.entries if "run-outcome" not in (e.data.get("tags") or [])]
        docs = [set(w.lower() for w in _WORD.findall(self.texts[e.id])) for e in searchable]
        n = max(1, len(docs))
        df = Counter(w for d in docs for w in d)
        self.idf = {w: math.log(1 + n / c) for w, c in df.items()}
        self.vectors = {e.id: _vector(self.texts[e.id], self.idf) for e in searchable}
        self.by_word: dict[str, list[str]] = {}
        for entry_id, vec in self.vectors.items():
            for word in vec:
                self.by_word.setdefault(word, []).append(entry_id)

    def similar(self, query: str, limit: int = 50) -> list[tuple[float, str]]:
        q = _vector(query, self.idf)
        scores: dict[str, float] = {}
        for word, weight in q.items():  # only entries sharing a word with the query are scored
            for entry_id in self.by_word.get(word, ()):
                scores[entry_id] = scores.get(entry_id, 0.0) + weight * self.vectors[entry_id][word]
        return sorted(((s, e) for e, s in scores.items()), reverse=True)[:limit]

    def retrieve(self, target: str, ancestors: set[str], query: str, token_budget: int = 4000) -> Retrieved:
        chosen: list = []
        reasons: dict[str, str] = {}
        by_id = {e.id: e for e in self.entries}

        # a previous run's outcome on this very target tells the provers nothing they can use (its
        # proof is in the run's report, not the entry) and would make every rerun's prompts new
        own_outcomes = {e.id for e in self.entries
                        if "run-outcome" in (e.data.get("tags") or []) and target in (e.links.get("labels") or [])}

        def take(entry, why: str) -> None:
            if entry.id not in reasons and entry.id not in own_outcomes:
                chosen.append(entry)
                reasons[entry.id] = why

        for e in self.entries:
            if e.kind == "failed-route" and (e.data.get("target") or {}).get("label") == target:
                take(e, "a failed route for this target")
        for e in self.entries:
            labels = set(e.links.get("labels") or [])
            if target in labels:
                take(e, "linked to the target")
            elif labels & ancestors:
                take(e, "linked to a result it rests on")
        for score, entry_id in self.similar(query):
            if score > 0.05:
                take(by_id[entry_id], f"similar to the statement ({score:.2f})")
        texts, used, kept = [], 0, []
        for entry in chosen:
            text = self.texts[entry.id]
            cost = len(text) // 4 + 1
            if used + cost > token_budget and reasons[entry.id] != "a failed route for this target":
                continue  # failed routes for the target always go in
            texts.append(text)
            kept.append(entry)
            used += cost
        return Retrieved(kept, "\n\n".join(texts) or "(none)", used, {e.id: reasons[e.id] for e in kept})
