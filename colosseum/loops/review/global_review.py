"""Global review: the whole document read as one argument by several independent reviewers.

1. Render every file in reading order with line numbers, and count the request's tokens with
   the provider's counter. If it is longer than one request may be, cut it into parts along the
   DAG (``splitting``), each with the statements it relies on.
2. Each reviewer reads the document (or every part), from its own first concern; with parts,
   each reviewer ends with a synthesis pass over its parts' findings, which may add cross-part
   critiques and withdraw split artefacts (with the statement that settles them).
3. Quotes are verified and anchored (``anchoring``); dismissed critiques are marked; duplicates
   are merged and the verdict decided by veto (``merging``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from colosseum.models.budget import Budget
from colosseum.models.step import ModelStep
from colosseum.loops.review.anchoring import DocumentText, document_text
from colosseum.loops.review.dismissals import DismissalStore
from colosseum.loops.review.merging import merge_duplicates, sort_critiques, verdict
from colosseum.loops.review.records import (
    GLOBAL_KINDS,
    SEVERITIES,
    VERDICTS,
    ReviewConfig,
    ReviewCritique,
    ReviewerVerdict,
    ReviewPart,
    ReviewReport,
    SplitPlan,
)
from colosseum.loops.review import splitting
from colosseum.loops.review.view import frozen

WHOLE_SCOPE = "The whole paper, every file in reading order."
NO_RELIED_ON = "(none: the whole paper is given)"


def model_name(provider, config: ReviewConfig) -> str:
    """The model asked for, else the configured model of the provider or of a provider it wraps
    (a response cache, a meter), else the provider's name."""
    if config.model:
        return config.model
    layer = provider
    for _ in range(8):  # bounded: wrappers around wrappers
        if layer is None:
            break
        model = getattr(layer, "model", None)
        if isinstance(model, str) and model:
            return model
        layer = getattr(layer, "inner", None)
    return provider.name


def reviewer_step(provider, config: ReviewConfig) -> ModelStep:
    """The calls of one global review (the dry run counts its request with the same step)."""
    return ModelStep(provider, Budget.of_answered_calls(config.max_calls), max_tokens=config.output_tokens,
                     model=config.model)


def _count_text(step: ModelStep, text: str) -> Awaitable[int]:
    """The tokens of ``text`` alone in a request (to size the units a document is cut into)."""
    return step.count_request(splitting.counting_request(text, None, step.model))


def _reviewer_values(config: ReviewConfig, r: int, scope: str, document: str, relied_on: str, part: str = "") -> dict:
    slot = f"reviewer {r + 1} of {config.reviewers}" + (f", {part}" if part else "")
    return {"slot": slot, "focus": config.focuses[r % len(config.focuses)], "scope": scope, "document": document,
            "relied_on": relied_on}


async def review_document(index, provider, config: ReviewConfig = ReviewConfig(), progress=None) -> ReviewReport:
    """See the package docstring."""
    report = progress or (lambda stage, done, total: None)
    index = frozen(index)  # the document as it is now, whatever the author edits meanwhile
    doc = document_text(index)
    step = reviewer_step(provider, config)
    hits_before = getattr(provider, "hits", 0)
    budget = config.part_budget()

    report("counting tokens", 0, 1)
    whole = doc.render_all()
    whole_tokens = await step.count("global_reviewer", _reviewer_values(config, 0, WHOLE_SCOPE, whole, NO_RELIED_ON))
    parts: list[splitting.Part] | None = None
    plan: SplitPlan | None = None
    if whole_tokens > budget:
        parts, plan = await _plan(index, doc, step, config, budget, whole_tokens)
    report("counting tokens", 1, 1)

    planned = config.reviewers * (len(parts) + 1 if parts else 1)
    step.budget.refuse_plan(planned, f"this review needs {planned} model calls; the budget is {config.max_calls}")
    critiques, verdicts = await _review_parts(index, doc, step, config, whole, parts, report)
    withdrawn: dict[str, str] = {}
    if parts is not None:
        outline = await _fitting_outline(index, doc, step, plan, budget)
        withdrawn = await _synthesize(doc, step, config, plan, outline, critiques, verdicts, report)
        critiques = [c for c in critiques if c.id not in withdrawn]

    # dismissals, duplicates, verdict
    DismissalStore(index.root_dir).apply(critiques)
    merged = sort_critiques(merge_duplicates(critiques, lambda c: doc.extent(c.file, c.range)),
                            {p: i for i, p in enumerate(doc.files)})
    outcome, reasons, vetoes = verdict(merged, verdicts, doc.relative)
    if plan is not None:
        reasons.append(plan.describe())
    return ReviewReport(outcome, reasons, merged, verdicts, step.usage, model_name(provider, config),
                        getattr(provider, "hits", 0) - hits_before, step.counts, plan, vetoes, withdrawn)


async def _review_parts(index, doc: DocumentText, step: ModelStep, config: ReviewConfig, whole: str,
                        parts: list[splitting.Part] | None, report) -> tuple[list[ReviewCritique], list[ReviewerVerdict]]:
    """Every reviewer over the whole document, or over every part: their critiques, and the
    verdicts of those who read the whole (with parts, the synthesis gives each one's verdict)."""
    reviewers = config.reviewers
    jobs: list[tuple[int, int | None, dict]] = []
    if parts is None:
        jobs = [(r, None, _reviewer_values(config, r, WHOLE_SCOPE, whole, NO_RELIED_ON)) for r in range(reviewers)]
    else:
        for p, part in enumerate(parts):
            scope = (f"Part {p + 1} of {len(parts)} of the paper ({'; '.join(u.title for u in part.units)}). The other "
                     "parts are reviewed separately: take the statements listed below as given, but check that their "
                     "hypotheses hold where this part uses them.")
            text = splitting.render_units(doc, part.units)
            relied = splitting.render_statements(index, doc, part.relies_on)
            for r in range(reviewers):
                jobs.append((r, p, _reviewer_values(config, r, scope, text, relied, f"part {p + 1} of {len(parts)}")))
    done = 0

    async def run(job):
        nonlocal done
        data = await step.ask("global_reviewer", job[2])
        done += 1
        report("reviewing", done, len(jobs))
        return data

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(run(job)) for job in jobs]
    critiques: list[ReviewCritique] = []
    verdicts: list[ReviewerVerdict] = []
    for (r, p, _values), task in zip(jobs, tasks):
        data, name = task.result(), f"reviewer {r + 1}"
        within = [(s.path, s.first, s.last) for s in parts[p].segments] if parts is not None else None
        for j, item in enumerate(data.get("critiques") or []):
            cid = f"R{r + 1}.{j + 1}" if p is None else f"R{r + 1}.P{p + 1}.{j + 1}"
            critiques.append(_critique(item, cid, name, doc, within, None if p is None else f"part {p + 1}"))
        if p is None:
            verdicts.append(_verdict(name, data))
    return critiques, verdicts


async def _synthesize(doc: DocumentText, step: ModelStep, config: ReviewConfig, plan: SplitPlan, outline: str,
                      critiques: list[ReviewCritique], verdicts: list[ReviewerVerdict], report) -> dict[str, str]:
    """With parts: each reviewer's synthesis over its own parts' findings. Its cross-part
    critiques and its verdict are added to ``critiques`` and ``verdicts``; returns the findings
    it withdrew, with why."""
    reviewers = config.reviewers
    done = 0

    async def synthesize(r: int) -> dict:
        nonlocal done
        own = [c for c in critiques if c.reviewers == (f"reviewer {r + 1}",)]
        data = await step.ask("review_synthesis", {"slot": f"reviewer {r + 1} of {reviewers}",
                                                   "split_note": plan.describe() + "\n" + _parts_note(plan),
                                                   "outline": outline, "findings": _findings(own, doc)})
        done += 1
        report("synthesis", done, reviewers)
        return data

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(synthesize(r)) for r in range(reviewers)]
    withdrawn: dict[str, str] = {}
    for r, task in enumerate(tasks):
        data, name = task.result(), f"reviewer {r + 1}"
        own_ids = {c.id for c in critiques if c.reviewers == (name,)}
        for item in data.get("withdrawn") or []:
            fid, why = str(item.get("finding", "")), str(item.get("why", "")).strip()
            if fid in own_ids and why:
                withdrawn[fid] = why  # withdrawn by an argument, never by a count
        for j, item in enumerate(data.get("critiques") or []):
            critiques.append(_critique(item, f"R{r + 1}.S.{j + 1}", name, doc, None, "synthesis"))
        verdicts.append(_verdict(name, data))
    return withdrawn


def _verdict(name: str, data: dict) -> ReviewerVerdict:
    said = data.get("verdict")
    return ReviewerVerdict(name, said if said in VERDICTS else "revise", [str(r) for r in data.get("reasons") or []])


def _critique(item: dict, cid: str, reviewer: str, doc: DocumentText, within, part: str | None) -> ReviewCritique:
    quote = str(item.get("quote") or "")
    line = item.get("line")
    found = doc.find(quote, item.get("file"), line if isinstance(line, int) else None, within)
    severity = item.get("severity") if item.get("severity") in SEVERITIES else "major"
    kind = item.get("kind") if item.get("kind") in GLOBAL_KINDS else "other"
    return ReviewCritique(cid, severity, kind, str(item.get("message") or ""), quote, found is not None,
                          found[0] if found else None, found[1] if found else None, str(item.get("repair") or ""),
                          (reviewer,), part=part)


async def _plan(index, doc: DocumentText, step: ModelStep, config: ReviewConfig, budget: int, whole_tokens: int):
    overhead = await step.count("global_reviewer", _reviewer_values(config, 0, WHOLE_SCOPE, "", "(none)"))
    empty = await _count_text(step, "")

    async def counter(text: str) -> int:
        return await _count_text(step, text)

    unit_budget = budget - overhead
    units = await splitting.make_units(index, doc, unit_budget, counter, empty)
    ordered = splitting.dag_order(index, units)
    needed = sorted({c for u in units for c in splitting.relies_on(index, splitting.Part([u]))})
    label_tokens: dict[str, int] = {}

    async def count_statement(label: str) -> None:
        label_tokens[label] = max(1, await counter(splitting.render_statements(index, doc, [label])) - empty)

    async with asyncio.TaskGroup() as group:
        for label in needed:
            group.create_task(count_statement(label))
    parts = splitting.pack(index, ordered, unit_budget, label_tokens)
    # the assembled parts, counted as sent; one past the budget (counts are not quite additive)
    # gives its last unit to a part of its own (bounded: a part of one unit is never cut again)
    checked: list[splitting.Part] = []
    queue = list(parts)
    for _ in range(4 * len(units) + 4):
        if not queue:
            break
        part = queue.pop(0)
        part.tokens = await step.count("global_reviewer", _reviewer_values(
            config, 0, "part", splitting.render_units(doc, part.units),
            splitting.render_statements(index, doc, part.relies_on)))
        if part.tokens > budget and len(part.units) > 1:
            head, tail = splitting.Part(part.units[:-1]), splitting.Part(part.units[-1:])
            head.relies_on, tail.relies_on = splitting.relies_on(index, head), splitting.relies_on(index, tail)
            queue[:0] = [head, tail]
            continue
        checked.append(part)
    checked += queue
    exact = bool(getattr(step.provider, "exact_token_counts", False))
    plan = SplitPlan([ReviewPart(f"part {i + 1}", [u.title for u in p.units],
                                 list(dict.fromkeys(doc.relative(s.path) for s in p.segments)), p.relies_on, p.tokens)
                      for i, p in enumerate(checked)], whole_tokens, budget, exact)
    return checked, plan


def _parts_note(plan: SplitPlan) -> str:
    return "\n".join(f"- {p.id}: {'; '.join(p.units)} (files {', '.join(p.files)}; relies on "
                     f"{', '.join(p.relies_on) or 'nothing outside it'})" for p in plan.parts)


MAIN_KINDS = frozenset(("theorem", "proposition", "corollary", "maintheorem", "thm", "prop", "cor"))


async def _fitting_outline(index, doc: DocumentText, step: ModelStep, plan: SplitPlan, budget: int) -> str:
    """Every statement if the synthesis request leaves half the budget for the findings; else
    the main results' statements only; else those cut short (said so in the outline)."""
    outline = ""
    for kinds, cut in ((None, None), (MAIN_KINDS, None), (MAIN_KINDS, 400)):
        outline = _outline(index, doc, kinds, cut)
        tokens = await step.count("review_synthesis", {"slot": "", "split_note": plan.describe(), "outline": outline,
                                                        "findings": ""})
        if tokens <= budget // 2:
            break
    return outline


def _outline(index, doc: DocumentText, kinds=None, cut: int | None = None) -> str:
    items = []
    if kinds is not None:
        items.append((-1, "(Only the main results' statements are listed: the full outline is too long"
                          + (", and each is cut short" if cut else "") + ".)"))
    for sid, s in index.sections.items():
        if s.parent is None or s.level in ("part", "chapter", "section", "subsection"):
            items.append((s.order, f"{s.level} \"{s.title}\" ({doc.relative(s.file)}:{s.location.range.start.line + 1})"))
    for cid, claim in index.claims.items():
        if kinds is not None and claim.kind.lower() not in kinds:
            continue
        title = f" ({claim.title})" if claim.title else ""
        statement = claim.statement_text.strip()
        if cut is not None and len(statement) > cut:
            statement = statement[:cut] + " [...]"
        items.append((claim.order, f"[{cid}] {claim.kind}{title}, {doc.relative(claim.file)}:"
                                   f"{claim.location.range.start.line + 1}:\n{statement}"))
    return "\n\n".join(text for _, text in sorted(items, key=lambda item: item[0])) or "(no statements)"


def _findings(critiques: list[ReviewCritique], doc: DocumentText) -> str:
    if not critiques:
        return "(no findings)"
    lines = []
    for c in critiques:
        where = f"{doc.relative(c.file)}:{c.line}" if c.anchored else "quote not found in the paper"
        lines.append(f"- [{c.id}] {c.severity} {c.kind} ({c.part}; {where}): \"{c.quote}\" -- {c.message}")
    return "\n".join(lines)
