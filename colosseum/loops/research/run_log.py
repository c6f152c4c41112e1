"""The run directory of a research run, ``<time>-research-<label>/`` under ``core.paths.runs_dir``: every
stage's artefacts as JSON and Markdown, written as the run goes (``run.json`` always says how far
it got and with what status), so a run stopped anywhere can be audited.

    explore-<n>.json/.md     the cards, their critiques, the tree's groups, the widths used
    gate-<n>.json/.md        the readiness verdict, with the rules it broke
    skeleton-<n>.tex         the skeleton as the decomposer wrote it; decompose-<n>.json/.md the DAG read back
    sections/<label>-<k>/    each inner-loop run (run.json, report.md); sections.json the outcomes
    round-<r>/               draft.tex (what the review read), revised.tex, global-review.json/.md, revision.json
    run.json, report.md      the whole run: status, usage per stage, cost, calls saved
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from colosseum.core.atomic_files import write_atomically
from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.core.liveness import process_stamp
from colosseum.loops.research.calls import usage_json
from colosseum.loops.research.records import Decomposition, Exploration, ReadinessVerdict, RoundRecord, SectionOutcome




class ResearchRecorder:
    def __init__(self, directory: Path, label: str, model: str, config, prices: dict | None = None):
        self.directory, self.label, self.model, self.config, self.prices = directory, label, model, config, prices
        self.started = time.time()
        self.stages: list[dict] = []  # what happened, in order
        self.last_progress: dict = {}
        self.status = "running"
        self.computation: tuple = ()  # the catalog's computations on the theorem (colosseum.catalog.evidence)

    def _json(self, name: str, data) -> None:
        if isinstance(data, dict):  # every record of the run names its format
            data = {"schema_version": SCHEMA_VERSION, **{k: v for k, v in data.items() if k != "schema_version"}}
        write_atomically(self.directory / name, json.dumps(data, indent=2, ensure_ascii=False, default=str))

    def _md(self, name: str, text: str) -> None:
        write_atomically(self.directory / name, text.rstrip() + "\n")

    def note(self, stage: str, **data) -> None:
        self.stages.append({"stage": stage, "at_s": round(time.time() - self.started, 3), **data})

    # ---- stages --------------------------------------------------------------------------------
    def exploration(self, attempt: int, exploration: Exploration) -> None:
        self._json(f"explore-{attempt}.json", {
            "main": exploration.main.to_json(), "alternatives": [c.to_json() for c in exploration.alternatives],
            "widths": list(exploration.widths), "planned_widths": list(exploration.planned_widths),
            "batches": exploration.batches, "calls_saved": exploration.calls_saved, "seed": exploration.seed,
            "executions": exploration.executions,
            "groups": [[{"aggregator": n, "drew": m} for n, m in level] for level in exploration.groups],
            "bundles": {b.id: {"level": b.level, "sources": list(b.sources), "cards": [c.to_json() for c in b.cards],
                               "critiques": [vars(c) for c in b.critiques], "resolved": b.resolved,
                               "conflicts": b.conflicts} for b in exploration.bundles.values()}})
        lines = [f"# Exploration {attempt} for `{self.label}`", "",
                 f"Widths {exploration.widths} (planned {exploration.planned_widths}); "
                 f"{exploration.calls_saved} calls saved by adaptive widths.", "", "## Main route", "",
                 exploration.main.render(), ""]
        if exploration.main.critiques:
            lines += ["Critiques still attached:", ""]
            lines += [f"- **{c.severity}** {c.kind} [{c.id}]: \"{c.target}\" — {c.explanation}"
                      for c in exploration.main.critiques]
        refuted = exploration.refuted_by_execution()
        if exploration.executions:
            lines += ["", f"{len(exploration.executions)} run(s) of the cards' falsifiable tests in the sandbox "
                      f"(computation, apart from model review); {len(refuted)} card(s) refuted by a run:", ""]
            lines += [f"- card {c.origin} [{c.id}]: \"{c.target}\" — {c.explanation}" for c in refuted]
        lines += ["", "## Alternatives", ""] + ([c.render() for c in exploration.alternatives] or ["(none)"])
        lines += ["", "## Batches of leaves", ""]
        lines += [f"- {len(b['leaves'])} cards: {b['fatal_flaws']} fatal flaws, {b['new_fatal_flaws']} new"
                  for b in exploration.batches]
        self._md(f"explore-{attempt}.md", "\n".join(lines))
        self.note("explore", attempt=attempt, widths=list(exploration.widths), calls_saved=exploration.calls_saved)
        self.flush()

    def gate(self, attempt: int, verdict: ReadinessVerdict, catalog_entries: list[str]) -> None:
        self._json(f"gate-{attempt}.json", {**verdict.to_json(), "catalog_entries": catalog_entries})
        lines = [f"# Readiness gate {attempt}: {'ready' if verdict.ready else 'not ready'}", "",
                 *(f"- {r}" for r in verdict.reasons), "", "## Open claims", ""]
        lines += [f"{i}. [{c.section}] {c.statement} — role: {c.role}; route: {c.route}"
                  for i, c in enumerate(verdict.open_claims, 1)] or ["(none)"]
        if verdict.fatal_bridges:
            lines += ["", "## Fatal bridges", ""] + [f"- {b['assumption']}: {b['why']}" for b in verdict.fatal_bridges]
        if verdict.rebuttals:  # the evidence a cleared fatal critique rests on: a referee's check
            lines += ["", "## Rebuttals of fatal critiques, each checked by a referee", ""]
            lines += [f"- [{r['critique']}] {'confirmed' if r['confirmed'] else 'not confirmed'}: {r['argument']}"
                      f" — referee: {r['reason']}" for r in verdict.rebuttals]
        if verdict.standing_critiques:
            lines += ["", "## Fatal critiques of the main route left standing", ""]
            lines += [f"- [{c['id']}] {c['kind']}: {c['explanation']}" for c in verdict.standing_critiques]
        if catalog_entries:
            lines += ["", "Recorded in the catalog as failed routes: " + ", ".join(Path(e).name for e in catalog_entries)]
        self._md(f"gate-{attempt}.md", "\n".join(lines))
        self.note("gate", attempt=attempt, ready=verdict.ready)
        self.flush()

    def decomposition(self, attempt: int, skeleton: str, decomposition: Decomposition | None, problems: list[str]) -> None:
        write_atomically(self.directory / f"skeleton-{attempt}.tex", skeleton)
        data = {"problems": problems}
        if decomposition is not None:
            data.update({"obligations": decomposition.obligations, "generations": decomposition.generations,
                         "edges": decomposition.edges, "sections": decomposition.sections,
                         "external": decomposition.external, "attempts": decomposition.attempts,
                         "summary": decomposition.summary})
        self._json(f"decompose-{attempt}.json", data)
        if decomposition is None:
            lines = [f"# Decomposition {attempt}: the skeleton did not read back", ""] + [f"- {p}" for p in problems]
        else:
            lines = [f"# Decomposition {attempt}", "", decomposition.summary, "",
                     f"{len(decomposition.obligations)} obligations in {len(decomposition.generations)} generations "
                     "(read back from the LaTeX by the index):", ""]
            lines += [f"{i}. " + ", ".join(f"`{x}`" for x in layer) for i, layer in enumerate(decomposition.generations, 1)]
            lines += ["", "Edges (used → user): " + (", ".join(f"`{u}` → `{v}`" for u, v in decomposition.edges) or "none")]
            if decomposition.external:
                lines += ["", "Results of the paper it uses: " + ", ".join(f"`{x}`" for x in decomposition.external)]
        self._md(f"decompose-{attempt}.md", "\n".join(lines))
        self.note("decompose", attempt=attempt, obligations=len(decomposition.obligations) if decomposition else 0)
        self.flush()

    def sections(self, outcomes: dict[str, SectionOutcome], redecompositions: list[dict]) -> None:
        self._json("sections.json", {"sections": {k: vars(v) for k, v in outcomes.items()},
                                     "redecompositions": redecompositions})
        lines = ["# Sections", ""]
        for label, o in sorted(outcomes.items(), key=lambda item: (item[1].generation, item[0])):
            lines += [f"## `{label}`: {o.status}", "", f"Generation {o.generation + 1}; {o.attempts} inner-loop run(s).", ""]
            for r in o.reviews:
                addressed = r.get("addressed") or {}
                lines.append(f"- local review ({r['attempt']}): {r['verdict']}"
                             + "".join(f"\n  - {c['severity']} {c['kind']}: \"{c['quote']}\" — {c['message']}"
                                       for c in r["critiques"])
                             + "".join(f"\n  - refuters' {c['severity']} [{c['id']}] \"{c['quote']}\" — "
                                       f"{c['explanation']}; reviewer: "
                                       + (f"{addressed[c['id']]['status']} ({addressed[c['id']]['reason']})"
                                          if c["id"] in addressed else "not addressed")
                                       for c in r.get("surviving") or []))
            lines.append("")
        for r in redecompositions:
            lines.append(f"- Re-cut around `{r['label']}`: {'done' if r['done'] else 'refused'}. {r['reason']}"
                         + "".join(f"\n  - {p}" for p in r["problems"]))
        self._md("sections.md", "\n".join(lines))
        self.flush()

    def round(self, record: RoundRecord, draft: str, report_json: dict | None, revised: str | None = None) -> None:
        """``draft`` is what the global review read; ``revised`` what an accepted revision made of it."""
        folder = f"round-{record.round}"
        write_atomically(self.directory / folder / "draft.tex", draft)
        if revised is not None:
            write_atomically(self.directory / folder / "revised.tex", revised)
        if report_json is not None:
            self._json(f"{folder}/global-review.json", report_json)
        lines = [f"# Round {record.round}: global review {record.verdict}", ""] + [f"- {r}" for r in record.reasons]
        lines += ["", "## Critiques", ""] + ([f"- **{c['severity']}** {c['kind']}"
                                              + (f" (draft line {c['draft_line']})" if c.get("draft_line") else
                                                 f" (line {c['line']})" if c.get("line") else " (unanchored)")
                                              + f": \"{c['quote']}\" — {c['message']}" for c in record.critiques]
                                             or ["(none)"])
        if record.revision is not None:
            r = record.revision
            self._json(f"{folder}/revision.json", vars(r))
            lines += ["", f"## Revision: {r.decision}, {'accepted' if r.accepted else 'rejected'}", "", r.reason]
            lines += [f"- broke a rule: {v}" for v in r.violations]
        self._md(f"{folder}/global-review.md", "\n".join(lines))
        self.note("round", round=record.round, verdict=record.verdict)
        self.flush()

    def progress(self, event) -> None:
        self.last_progress = {"stage": event.stage, "round": event.round, "frontier": list(event.frontier),
                              "done": event.done, "total": event.total}

    # ---- the whole run -------------------------------------------------------------------------
    def flush(self, result=None, provider=None) -> None:
        record = {"label": self.label, "status": self.status, **process_stamp(), "model": self.model,
                  "config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(self.config).items()
                             if k != "angles"},
                  "stages": self.stages, "progress": self.last_progress,
                  "elapsed_s": round(time.time() - self.started, 3),
                  "computation": [item.as_json() for item in self.computation]}
        if provider is not None:
            from colosseum.models.pricing import cost_usd

            record["usage"] = {**usage_json(provider.usage), "response_cache_hits": provider.cached_answers,
                               "cost_usd": cost_usd(provider.usage, self.model, self.prices)}
            record["usage_by_stage"] = {k: usage_json(v) for k, v in provider.by_stage.items()}
        if result is not None:
            record.update({"status": result.status, "message": result.message, "calls_saved": result.calls_saved,
                           "final_verdict": result.final_verdict, "complete": result.complete})
        self._json("run.json", record)

    def finish(self, result, provider) -> None:
        self.status = result.status
        self.flush(result, provider)
        self._md("report.md", report(result, provider, self))


def report(result, provider, recorder: ResearchRecorder) -> str:
    from colosseum.models.pricing import cost_usd

    cost = cost_usd(provider.usage, recorder.model, recorder.prices)
    lines = [f"# Research run for `{result.label}`: {result.status}", "", result.message, "",
             f"{provider.usage.calls} model calls, {provider.usage.input_tokens:,} input tokens "
             f"({provider.usage.cache_read_tokens:,} read from the prompt cache), {provider.usage.output_tokens:,} "
             f"output tokens, {provider.cached_answers} answers from the response cache; cost "
             + (f"about ${cost:.2f}." if cost is not None else f"unknown (no price for {recorder.model})."), ""]
    if result.calls_saved:
        lines += ["Calls saved beyond the paper: " + ", ".join(f"{k} {v}" for k, v in result.calls_saved.items()), ""]
    lines += ["Calls by stage: " + ", ".join(f"{k} {v.calls}" for k, v in provider.by_stage.items()), ""]
    if result.explorations:
        last = result.explorations[-1]
        lines += ["## Strategy cards (last exploration)", "", "### Main route", "", last.main.render(), ""]
        for card in last.alternatives:
            lines += ["### Alternative", "", card.render(), ""]
    for i, gate in enumerate(result.gates, 1):
        lines.append(f"- Readiness gate {i}: {'ready' if gate.ready else 'not ready'}"
                     + ("" if gate.ready else " — " + "; ".join(gate.reasons)))
    if result.decomposition is not None:
        d = result.decomposition
        lines += ["", "## Skeleton", "", f"{len(d.obligations)} obligations in {len(d.generations)} generations.", "",
                  "| obligation | generation | status | attempts |", "|---|---|---|---|"]
        for label in d.obligations:
            o = result.sections.get(label)
            lines.append(f"| `{label}` | {o.generation + 1 if o else '-'} | {o.status if o else 'not started'} | "
                         f"{o.attempts if o else 0} |")
    if result.rounds:
        lines += ["", "## Rounds", ""]
        for r in result.rounds:
            rev = ""
            if r.revision is not None:
                rev = f"; revision {r.revision.decision} {'accepted' if r.revision.accepted else 'rejected'}"
            lines.append(f"- Round {r.round} (exploration {r.attempt}): global review {r.verdict}{rev}")
    if recorder.computation:
        from colosseum.catalog.evidence import ClaimEvidence, computation_report_section

        lines += [""] + computation_report_section(ClaimEvidence(result.label, tuple(recorder.computation)))
    lines += ["", "Natural-language review is evidence, not a formal check: nothing here is \"proved\" until a "
              "person has read it or Lean has checked it."]
    return "\n".join(lines)
