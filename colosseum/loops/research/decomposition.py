"""Stage 3, decompose: the decomposer writes a numbered LaTeX skeleton whose sections carry the
obligations (``% colosseum: obligation``) and their edges (``\\uses``, ``\\cref``); the DAG is
then read back from that LaTeX by the ordinary index (see draft.py), never from the model's
answer. A skeleton that does not read back (no obligations, an unknown label, a cycle, a label
that clashes with the paper's) is sent back once with the problems; then the work goes back to
exploration.

Beyond the paper: around a section that fails all its retries, ``redecompose`` re-cuts that one
section into smaller lemmas, keeping the failing lemma's statement and everything else fixed."""

from __future__ import annotations

import re

from colosseum.models.step import ask
from colosseum.loops.research.draft import BREAKING_CODES, DraftDocument, reference_command, section_level_for
from colosseum.loops.research.draft import structure_violations
from colosseum.loops.research.records import Decomposition, Exploration, ReadinessVerdict, ResearchConfig


def label_prefix(target: str) -> str:
    tail = target.split(":")[-1] if ":" in target else target
    return re.sub(r"[^A-Za-z0-9]+", "-", tail).strip("-").lower() or "main"


def skeleton_problems(draft: DraftDocument) -> list[str]:
    """Why the skeleton in the draft cannot be solved as it stands (empty when it can)."""
    problems = []
    if not draft.region_sections():
        problems.append("the skeleton has no sectioning command with a label")
    claims = draft.region_claims()
    unlabelled = [c.id for c in claims if c.label is None]
    if unlabelled:
        problems.append("claims without a \\label: " + ", ".join(unlabelled))
    if len(draft.obligations()) < 2:
        problems.append("the skeleton states no lemma that still needs a proof (mark each with "
                        "`% colosseum: obligation` and give it an empty proof)")
    if not draft.target_proof_in_region():
        problems.append(f"the skeleton has no proof of `{draft.target}` (its last section needs "
                        f"\\begin{{proof}}[Proof of \\cref{{{draft.target}}}] ... \\end{{proof}})")
    for d in draft.region_diagnostics(BREAKING_CODES):
        problems.append(f"line {d.range.start.line - draft._lines().line_of(draft.region_start) + 1} of the "
                        f"skeleton: {d.message}")
    cycle_nodes = {n for cycle in draft.index.graph.cycles() for n in cycle}
    if cycle_nodes & set(draft.obligations()):
        problems.append("the dependencies form a cycle through " + ", ".join(sorted(cycle_nodes & set(draft.obligations()))))
    return problems


def read_back(draft: DraftDocument, attempts: int = 1, summary: str = "") -> Decomposition:
    """The decomposition as the index reads it from the draft."""
    graph = draft.index.graph
    obligations = draft.obligations()
    wanted = set(obligations)
    generations = [[n for n in layer if n in wanted] for layer in graph.generations()]
    generations = [layer for layer in generations if layer]
    edges = sorted((u, v) for u in obligations for v in graph.succ.get(u, ()) if v in wanted)
    region = {c.id for c in draft.region_claims()} | {s.id for s in draft.region_sections()}
    external = sorted({r.label for r in draft.index.references
                       if r.owner in region and r.label in draft.paper_labels})
    return Decomposition(draft.region_text, obligations, generations, edges,
                         [s.id for s in draft.region_sections()], external, attempts, summary)


def paper_labels_text(draft: DraftDocument, limit: int = 300) -> str:
    index = draft.index
    lines = []
    for cid in sorted(draft.paper_claims)[:limit]:
        claim = index.claims.get(cid)
        if claim is not None and claim.label and cid != draft.target:
            lines.append(f"{claim.label} ({claim.kind}{', ' + claim.title if claim.title else ''})")
    return "\n".join(lines) or "(none)"


def open_claims_text(verdict: ReadinessVerdict) -> str:
    return "\n".join(f"{i}. [{c.section}] {c.statement} (role: {c.role}; route: {c.route})"
                     for i, c in enumerate(verdict.open_claims, 1)) or "(none)"


def _overlap(a: str, b: str) -> float:
    wa, wb = ({w for w in re.findall(r"[a-z0-9]+", t.lower()) if len(w) > 3} for t in (a, b))
    return len(wa & wb) / len(wa | wb) if wa | wb else 0.0


def section_routes(draft: DraftDocument, verdict: ReadinessVerdict, main) -> dict[str, str]:
    """The route the plan assigned each obligation of the skeleton: the gate's open claim (else the
    strategy card's needed lemma) whose statement or section is closest to the obligation's, with
    the main route's key mechanism; the key mechanism alone when nothing matches."""
    planned = [(f"{c.statement} {c.section}", c.route) for c in verdict.open_claims if c.route.strip()]
    planned += [(lemma["statement"], lemma["route"]) for lemma in main.needed_lemmas if lemma.get("route", "").strip()]
    routes = {}
    for label in draft.obligations():
        try:
            statement = draft.statement(label)
        except KeyError:
            continue
        section = draft.section_of(label)
        title = getattr(draft.index.sections.get(section), "title", "") if section else ""
        scored = [(_overlap(f"{statement} {title}", text), route) for text, route in planned]
        score, route = max(scored, default=(0.0, ""))
        mechanism = main.key_mechanism.strip()
        if score > 0 and route:
            routes[label] = route + (f" (main route: {mechanism})" if mechanism else "")
        elif mechanism:
            routes[label] = f"the main route: {mechanism}"
    return routes


async def decompose(context, exploration: Exploration, verdict: ReadinessVerdict, draft: DraftDocument, provider,
                    config: ResearchConfig) -> tuple[Decomposition | None, list[str]]:
    """(decomposition, []) once a skeleton reads back, else (None, the last problems)."""
    values = {"problem": f"{context.label}: {context.statement}", "target": draft.target,
              "assumable": context.assumable or "(none)", "notation": context.notation or "(none)",
              "strategy": exploration.main.render(), "open_claims": open_claims_text(verdict),
              "paper_labels": paper_labels_text(draft), "level": section_level_for(draft.index, draft.target),
              "label_prefix": label_prefix(draft.target), "ref": reference_command(draft.index)}
    previous, problems = "(none)", []
    for attempt in range(1, config.decomposition_attempts + 1):
        data = await ask(provider, "decomposer", {**values, "previous": previous,
                                                   "slot": f"decomposition attempt {attempt}"})
        skeleton = str(data.get("skeleton", ""))
        draft.set_region(skeleton)
        problems = skeleton_problems(draft) if skeleton.strip() else ["the skeleton is empty"]
        if not problems:
            return read_back(draft, attempt, str(data.get("summary", ""))), []
        previous = "The skeleton below did not read back:\n" + "\n".join(f"- {p}" for p in problems) + \
                   "\n\n" + skeleton
    draft.set_region("")
    return None, problems


async def redecompose(draft: DraftDocument, label: str, attempts_text: str, context, provider) -> tuple[bool, str, list[str]]:
    """Re-cut the section holding ``label`` into smaller lemmas. (done, reason, problems): when
    the new cut breaks the rest of the skeleton, the draft is left as it was."""
    section = draft.section_of(label)
    if section is None:
        return False, "", [f"`{label}` is in no section of the skeleton"]
    before_text, before = draft.region_text, draft.structure()
    data = await ask(provider, "redecomposer", {
        "problem": f"{context.label}: {context.statement}", "target": draft.target, "label": label,
        "statement": draft.statement(label), "section": draft.section_text(section), "attempts": attempts_text,
        "notation": context.notation or "(none)", "assumable": context.assumable or "(none)",
        "label_prefix": label_prefix(draft.target) + "-" + label_prefix(label),
        "level": section_level_for(draft.index, draft.target)})
    latex = str(data.get("section", ""))
    draft.set_region(draft.with_section(section, latex))
    after = draft.structure()
    problems = structure_violations(before, after, {section}, may_add_claims=True, may_drop_sections=False)
    if label not in after.claims:
        problems.append(f"`{label}` is gone")
    elif after.claims[label][1] != before.claims.get(label, (None, ""))[1]:
        problems.append(f"the statement of `{label}` changed")
    if not [c for c in after.claims if c not in before.claims]:
        problems.append("no new lemma")
    problems += [d.message for d in draft.region_diagnostics(BREAKING_CODES)]
    if problems:
        draft.set_region(before_text)
        return False, str(data.get("reason", "")), problems
    return True, str(data.get("reason", "")), []

