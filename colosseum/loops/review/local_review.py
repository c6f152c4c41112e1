"""Local review of one claim or section, incremental; a failed one retried through the inner loop.

A claim's review reads its statement, its proof (wherever the proof is) and the statements of the
results it uses directly (its predecessors in the DAG). A section's review reads the section's
text as the proof of the claims it contains, with the statements of what it refers to outside.
The review is keyed by that text, those statements, the prompt's version and the model: after an
edit, a claim is reviewed again only if its own text changed or a statement it uses did."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.core.atomic_files import write_atomically
from colosseum.loops.inner import obligation_context, solve
from colosseum.loops.notation import preamble_notation
from colosseum.models import Usage
from colosseum.models.budget import Budget
from colosseum.models.prompts import load_prompt
from colosseum.models.step import ModelStep
from colosseum.loops.review.anchoring import _searchable, document_text, normalize_quote
from colosseum.loops.review.dismissals import DismissalStore
from colosseum.loops.review.global_review import model_name
from colosseum.loops.review.records import LOCAL_KINDS, SEVERITIES, ClaimReview, ReviewConfig, ReviewCritique
from colosseum.loops.review.view import frozen

ROLE = "local_reviewer"


class NothingToReview(ValueError):
    """The claim has no proof (or an empty draft) to review: no call is made."""


@dataclass
class Material:
    """What a local review reads, and where it is in the document."""

    label: str
    statement: str
    proof: str
    used: list[tuple[str, str]]  # (label, statement) of what it uses, sorted by label
    spans: list[tuple[Path, int, int]]  # (file, first line, last line) of the statement and proof
    draft: bool = False  # the proof is a draft given by the caller, not the document's

    def render_used(self) -> str:
        return "\n\n".join(f"[{label}]: {statement}" for label, statement in self.used) or "(none)"


def _text(index, path: Path, start: int, end: int) -> str:
    ft = index.text_of(path)
    return ft.text[start:end] if ft is not None else ""


def _statement_of(index, label: str) -> str:
    claim = index.claims.get(label)
    if claim is not None and claim.kind == "leannode":  # \inputleannode: the paper holds no text of it
        return "(stated in the project's Lean code, not in the paper: take it as stated there)"
    return claim.statement_text.strip() if claim is not None else ""


def material(index, label: str, proof: str | None = None) -> Material:
    """The statement, proof and used statements of a claim or a section (KeyError if neither)."""
    claim = index.claims.get(label)
    if claim is not None:
        spans = [(claim.file, claim.location.range.start.line, claim.end.range.end.line)]
        text = ""
        if claim.proof is not None:
            p = claim.proof
            text = _text(index, p.file, p.spans[1], p.spans[2]).strip()
            spans.append((p.file, p.location.range.start.line, p.end.range.end.line))
        used = sorted((u, _statement_of(index, u)) for u in index.graph.pred.get(label, ()) if u in index.claims)
        return Material(label, claim.statement_text.strip(), proof if proof is not None else text, used, spans,
                        proof is not None)
    section = index.sections.get(label)
    if section is None:
        raise KeyError(f"no claim or section `{label}` in the project")
    first, last = _section_lines(index, label)
    ft = index.text_of(section.file)
    body = "\n".join(ft.lines.line_text(n) for n in range(first, last + 1)) if ft is not None else ""
    inside = [c for c in index.claims.values() if c.file == section.file
              and first <= c.location.range.start.line <= last]
    statement = "\n\n".join(f"[{c.id}] {c.kind}: {c.statement_text.strip()}" for c in inside) or \
        f"(the section \"{section.title}\" states no claim of its own)"
    outside: set[str] = set()
    for ref in index.references:
        if ref.file == section.file and first <= ref.location.range.start.line <= last:
            owner = index.label_owner.get(ref.label)
            if owner in index.claims and owner not in {c.id for c in inside}:
                outside.add(owner)
    used = sorted((u, _statement_of(index, u)) for u in outside)
    return Material(label, statement, proof if proof is not None else body, used,
                    [(section.file, first, last)], proof is not None)


def _depth(index, sid: str) -> int:
    seen: set[str] = set()
    node = index.sections[sid].parent
    while node is not None and node in index.sections and node not in seen and len(seen) < 64:
        seen.add(node)
        node = index.sections[node].parent
    return len(seen)


def _section_lines(index, label: str) -> tuple[int, int]:
    """A section's lines in its file: from its heading to before the next heading of the same
    or a higher level in that file (or the end of the file)."""
    section = index.sections[label]
    depth = _depth(index, label)
    start = section.location.range.start.line
    ft = index.text_of(section.file)
    last = ft.text.count("\n") if ft is not None else start
    for sid, other in index.sections.items():
        line = other.location.range.start.line
        if other.file == section.file and line > start and _depth(index, sid) <= depth:
            last = min(last, line - 1)
    return start, last


def local_review_key(index, label: str, proof: str | None, prompt_version: int, model: str) -> str:
    """The incremental key: the claim's text (statement and proof), the statements of what it
    uses, the prompt version and the model."""
    m = material(index, label, proof)
    return _key(m, prompt_version, model)


def _key(m: Material, prompt_version: int, model: str, carried: str = "") -> str:
    fields = {"label": m.label, "statement": m.statement, "proof": m.proof, "used": m.used,
              "prompt": [ROLE, prompt_version], "model": model}
    if carried:  # the critiques it had to address are part of what was reviewed
        fields["carried"] = carried
    payload = json.dumps(fields, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class LocalReviewCache:
    """Finished local reviews by key, in memory and (with a directory) on disk, one JSON file per
    key. Quotes are stored, never positions: a served review is anchored again in the current
    text, since unrelated edits above a claim move it."""

    def __init__(self, directory: Path | None, refresh: bool = False):
        self.directory = Path(directory) if directory is not None else None
        self.refresh = refresh  # serve nothing stored before (``--no-cache``); new reviews are still stored
        self._memory: dict[str, dict] = {}

    def get(self, key: str) -> dict | None:
        if self.refresh:
            return self._memory.get(key)  # only what this cache itself reviewed
        found = self._memory.get(key)
        if found is None and self.directory is not None:
            try:
                found = json.loads((self.directory / key[:2] / f"{key}.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                found = None
            if isinstance(found, dict) and {"verdict", "reasons", "critiques"} <= found.keys():
                self._memory[key] = found
            else:
                found = None
        return found

    def put(self, key: str, record: dict) -> None:
        self._memory[key] = record
        if self.directory is not None:
            versioned = {"schema_version": SCHEMA_VERSION, **record}
            write_atomically(self.directory / key[:2] / f"{key}.json", json.dumps(versioned, ensure_ascii=False))


def _critiques(index, items: list[dict], m: Material, label: str) -> list[ReviewCritique]:
    doc = document_text(index)
    used_spans = [(c.file, c.location.range.start.line, c.end.range.end.line)
                  for c in (index.claims.get(u) for u, _ in m.used) if c is not None]
    out = []
    for j, item in enumerate(items):
        quote = str(item.get("quote") or "")
        # in the claim's own statement and proof, else in a statement it uses: nowhere else
        found = doc.find(quote, within=m.spans, only_within=True) if quote.strip() else None
        if found is None and quote.strip() and used_spans:
            found = doc.find(quote, within=used_spans, only_within=True)
        if found is not None and m.draft and not _in_text(quote, m.proof + "\n" + m.statement):
            found = None  # a draft's critique quotes the draft; a match elsewhere is a coincidence
        in_reviewed = found is not None or _in_text(quote, m.proof + "\n" + m.statement)
        severity = item.get("severity") if item.get("severity") in SEVERITIES else "major"
        kind = item.get("kind") if item.get("kind") in LOCAL_KINDS else "other"
        out.append(ReviewCritique(f"{label}.{j + 1}", severity, kind, str(item.get("message") or ""), quote,
                                  in_reviewed, found[0] if found else None, found[1] if found else None,
                                  str(item.get("repair") or ""), ("local reviewer",), label=label))
    return out


def _in_text(quote: str, text: str) -> bool:
    pieces = normalize_quote(quote)
    if not pieces:
        return False
    haystack = _searchable(Path("."), text, None).text
    position = 0
    for piece in pieces:
        position = haystack.find(piece, position)
        if position < 0:
            return False
        position += len(piece)
    return True


def render_carried(carried) -> str:
    """The critiques the proof's refuters left standing, as the local reviewer reads them (each
    with the id it must answer by); ``carried`` holds the inner loop's Critique records."""
    return "\n".join(f"- [{c.id}] {c.severity} {c.kind}: \"{c.quote}\" -- {c.explanation}" for c in carried) \
        or "(none)"


def addressed_of(items, carried) -> dict[str, dict]:
    """What the reviewer said of each carried critique, by id: {status, reason}; a critique it did
    not name, or answered without a reason, is missing here (it counts as standing)."""
    wanted = {c.id for c in carried}
    said: dict[str, dict] = {}
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or item.get("critique") not in wanted:
            continue
        status = item.get("status") if item.get("status") in ("stands", "answered") else "stands"
        reason = str(item.get("reason") or "").strip()
        if status == "answered" and not reason:
            continue  # an answer with no argument is no answer
        said.setdefault(str(item["critique"]), {"status": status, "reason": reason})
    return said


def _verdict(said: str, critiques: list[ReviewCritique], carried=(), addressed: dict | None = None
             ) -> tuple[str, list[str]]:
    serious = [c for c in critiques if c.active and c.severity in ("fatal", "major")]
    notes = [f"{c.severity} {c.kind}: {c.message}" + ("" if c.anchored else " (its quote is not in the text: "
                                                      "unanchored)") for c in serious]
    addressed = addressed or {}
    standing = [c for c in carried if addressed.get(c.id, {}).get("status") != "answered"]
    notes += [f"the refuters' {c.severity} critique [{c.id}] stands"
              + ("" if c.id in addressed else " (the reviewer did not address it)") + f": {c.explanation}"
              for c in standing]
    if serious or standing or said == "failed":
        return "failed", notes
    return "passed", notes


class LocalReviewer:
    """Local reviews with a cache: ``reviewed`` and ``served`` list the labels that cost a call
    and those served from the cache, over this reviewer's life (clear them to count a run).
    ``config`` (the budget included) is read at the start of every run: set it to change it."""

    def __init__(self, provider, cache: LocalReviewCache | None = None, config: ReviewConfig = ReviewConfig()):
        self.provider, self.config = provider, config
        self.cache = cache if cache is not None else LocalReviewCache(None)
        self.reviewed: list[str] = []
        self.served: list[str] = []
        self.usage = Usage()
        self.model = model_name(provider, config)

    def key(self, index, label: str, proof: str | None = None) -> str:
        return local_review_key(index, label, proof, load_prompt(ROLE).version, self.model)

    def needs_call(self, index, label: str, proof: str | None = None) -> bool:
        """Whether reviewing ``label`` now would cost a model call (its key is not in the cache
        and it has something to review)."""
        m = material(frozen(index), label, proof)
        return bool(m.proof.strip()) and self.cache.get(_key(m, load_prompt(ROLE).version, self.model)) is None

    async def review(self, index, label: str, *, proof: str | None = None, progress=None, carried=()) -> ClaimReview:
        """One claim or section: one call, or none when its key is in the cache. A run of its
        own against the budget (the budget is per run, never per session). ``carried``: the
        critiques the proof's refuters left standing (inner-loop Critique records); the reviewer
        must answer each, and one it does not answer fails the review."""
        return await self._review(index, label, proof, progress, self._run(self.config), tuple(carried))

    def _run(self, config: ReviewConfig) -> ModelStep:
        """The calls of one run against the budget: a single review is a run of its own, and every
        review of one ``review_many`` shares one."""
        return ModelStep(self.provider, Budget.of_started_calls(config.max_calls), max_tokens=config.output_tokens,
                         model=config.model)

    async def _review(self, index, label: str, proof: str | None, progress, run: ModelStep,
                      carried: tuple = ()) -> ClaimReview:
        index = frozen(index)
        m = material(index, label, proof)
        spec = load_prompt(ROLE)
        key = _key(m, spec.version, self.model, render_carried(carried) if carried else "")
        if not m.proof.strip():
            if not m.draft:
                raise NothingToReview(f"nothing to review: `{label}` has no proof")
            # an empty draft fails without a call (the caller retries it like any failed one)
            return ClaimReview(label, "failed", ["the draft is empty: there is no proof to review"], [], key, m.proof,
                               m.statement, Usage(), False, self.model)
        record = self.cache.get(key)
        cached = record is not None
        usage = Usage()
        if record is None:
            outcome = await run.call(ROLE, {"label": label, "statement": m.statement, "proof": m.proof,
                                            "used": m.render_used(), "notation": preamble_notation(index) or "(none)",
                                            "carried": render_carried(carried)})
            data = outcome.answer()
            usage = outcome.usage
            self.usage = self.usage + usage
            record = {"label": label, "verdict": data.get("verdict", "failed"),
                      "reasons": [str(r) for r in data.get("reasons") or []],
                      "critiques": [c for c in data.get("critiques") or [] if isinstance(c, dict)],
                      "addressed": [a for a in data.get("addressed") or [] if isinstance(a, dict)]}
            self.cache.put(key, record)
            self.reviewed.append(label)
        else:
            self.served.append(label)
        critiques = _critiques(index, record["critiques"], m, label)
        DismissalStore(index.root_dir).apply(critiques)
        addressed = addressed_of(record.get("addressed"), carried)
        verdict, notes = _verdict(record["verdict"], critiques, carried, addressed)
        if progress is not None:
            progress("local review", 1, 1)
        return ClaimReview(label, verdict, list(dict.fromkeys(record["reasons"] + notes)), critiques, key, m.proof,
                           m.statement, usage, cached, self.model, addressed)

    def reviewable(self, index) -> list[str]:
        """Every claim with a proof of its own in the document, in reading order."""
        return [cid for cid, c in sorted(index.claims.items(), key=lambda item: item[1].order)
                if c.needs_proof and c.proof is not None and c.proof.has_content and not c.cited]

    async def review_many(self, index, labels=None, progress=None) -> list[ClaimReview]:
        """Each label (default: every claim with a proof), independent ones in parallel; only
        those whose key is not in the cache cost a call. One run against the budget."""
        index = frozen(index)  # one reading of the document for every review of the run
        config = self.config
        labels = list(labels) if labels is not None else self.reviewable(index)
        fresh = [lb for lb in labels if self.needs_call(index, lb)]
        run = self._run(config)
        run.budget.refuse_plan(len(fresh), f"{len(fresh)} claims need a review; the budget is {config.max_calls} calls")
        done = 0

        async def one(label: str) -> ClaimReview:
            nonlocal done
            result = await self._review(index, label, None, None, run)
            done += 1
            if progress is not None:
                progress("local review", done, len(labels))
            return result

        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(label)) for label in labels]
        return [t.result() for t in tasks]


async def review_claim(index, label: str, provider, cache: LocalReviewCache | None = None, *,
                       proof: str | None = None, config: ReviewConfig = ReviewConfig(), progress=None,
                       carried=()) -> ClaimReview:
    """See the package docstring; ``carried`` as in LocalReviewer.review."""
    return await LocalReviewer(provider, cache, config).review(index, label, proof=proof, progress=progress,
                                                               carried=carried)


def render_failure(failed: ClaimReview) -> str:
    """The failed draft and its critique, as the inner loop's "previous attempt"."""
    lines = ["A previous draft of this proof failed its local review.", "", "Failed draft:", failed.proof or "(empty)",
             "", "Local review critique:"]
    lines += [f"- {r}" for r in failed.reasons]
    for c in failed.critiques:
        if c.active:
            lines.append(f"- {c.severity} {c.kind}: \"{c.quote}\" -- {c.message}"
                         + (f" Repair: {c.repair}" if c.repair else ""))
    return "\n".join(lines)


def failed_context(index, label: str, failed: ClaimReview, catalog=None):
    """The ObligationContext of a retry: the usual context, with the failed draft and the
    critique as the previous attempt."""
    index = frozen(index)
    if label not in index.claims:
        raise KeyError(f"a retry works on a claim; `{label}` is not one")
    return obligation_context(index, label, catalog, previous=render_failure(failed))


async def retry_claim(index, label: str, failed: ClaimReview, provider, inner_config, catalog=None, progress=None,
                      recorder=None, probes=None):
    """The inner loop on this claim alone, from its failed draft and critique; all other work is
    kept (``probes``: the refuters' run_python, as in ``solve``). Returns the SolveResult."""
    return await solve(failed_context(index, label, failed, catalog), provider, inner_config, progress, recorder,
                       probes)
