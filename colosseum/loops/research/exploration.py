"""Stage 1, explore: many explorers write strategy cards from different angles, strategy
falsifiers attack each card, and an overlapping random-sampling tree of strategy aggregators
(the inner loop's tree, widths (32, 16, 8, 5, 1) by default) keeps one main route and at most
two genuinely different alternatives.

Beyond the paper: with ``adaptive_widths`` the leaves come in batches, and widening stops after
a batch whose refutations found no fatal flaw that an earlier batch had not already found; the
tree above is cut to the leaves actually written, and the calls saved are recorded.

With probes (``probes``: a colosseum.probe.tool.ProbeTools) the falsifiers run the card's tests in
the sandbox (``falsification.py``); a card a run refuted keeps that critique to the gate."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from colosseum.loops.research.falsification import card_critiques, falsify
from colosseum.loops.sampling_tree import draw_groups
from colosseum.models.step import ModelStep
from colosseum.loops.research.records import CardBundle, CardCritique, Exploration, ResearchConfig, StrategyCard

Report = Callable[[str, int, int], None]  # (what, done, total)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


def similar(a: str, b: str, threshold: float = 0.5) -> bool:
    """Two texts say the same thing when their content words overlap this much (a cheap stand-in
    for a judgement; enough to tell a repeated objection from a new one)."""
    wa, wb = _words(a), _words(b)
    union = wa | wb
    return bool(union) and len(wa & wb) / len(union) >= threshold


def widths_for(leaves: int, planned: tuple[int, ...]) -> tuple[int, ...]:
    """The tree over ``leaves`` leaves: the planned widths that are narrower, ending with 1."""
    above = tuple(w for w in planned[1:] if w < leaves)
    if not above or above[-1] != 1:
        above = above + (1,)
    return (leaves,) + above if leaves > 1 else (1, 1)


def render_card_bundles(bundles: list[CardBundle]) -> str:
    parts = []
    for b in bundles:
        lines = [f"## Bundle {b.id}", *(card.render() for card in b.cards), "", "Critiques attached:"]
        if not b.critiques:
            lines.append("(none)")
        for c in b.critiques:
            lines.append(f"- [{c.id}] {c.severity} {c.kind} against {c.origin}: \"{c.target}\" -- {c.explanation}"
                         + (" [refuted by execution: a run of the card's test showed it; no argument resolves it]"
                            if c.computational else ""))
        lines += [f"- open conflict: {x}" for x in b.conflicts]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


async def explore(context, provider, config: ResearchConfig, previous: str = "(none)", seed: int = 0,
                  report: Report | None = None, probes=None) -> Exploration:
    """``context`` is the target's ObligationContext (statement, assumable results, notation,
    catalog); ``previous`` what earlier attempts learned (gate failures, a rejected draft)."""
    step = ModelStep(provider, base={"problem": f"{context.label}: {context.statement}",
                                     "assumable": context.assumable or "(none)",
                                     "notation": context.notation or "(none)"})
    explorer = _Explorer(step, config, report or (lambda what, done, total: None),
                         {"catalog": context.catalog or "(none)", "previous": previous}, probes)
    planned = tuple(config.exploration_widths)
    leaves, batches = await explorer.write_leaves(planned[0])
    widths = widths_for(len(leaves), planned) if len(leaves) < planned[0] else planned
    bundles, groups_per_level, root = await explorer.aggregate(leaves, widths, random.Random(seed))
    main, alternatives = choose_routes(root.cards, config.max_alternatives)
    main.critiques = list(root.critiques)
    planned_calls = config.planned_exploration_calls()
    used_calls = len(leaves) * (1 + config.falsifiers_per_card) + sum(widths[1:])
    return Exploration(main, alternatives, bundles, groups_per_level, widths, planned, batches,
                       max(0, planned_calls - used_calls), seed, list(explorer.executions))


@dataclass
class _Explorer:
    """The calls of one exploration: ``step`` carries the inputs every role shares, ``leaf_inputs``
    those only the explorers read."""

    step: ModelStep
    config: ResearchConfig
    report: Report
    leaf_inputs: dict
    probes: object = None  # ProbeTools: the falsifiers run the cards' tests; None: no tool
    executions: list = field(default_factory=list)  # every run of run_python, with its card and falsifier

    async def leaf(self, i: int, total_leaves: int) -> CardBundle:
        """One explorer's strategy card, attacked by the falsifiers."""
        config = self.config
        angle = config.angles[i % len(config.angles)]
        data = await self.step.ask("explorer", {**self.leaf_inputs, "angle": angle,
                                                "slot": f"explorer {i + 1} of {total_leaves}"})
        card = StrategyCard.from_data(f"E{i}", data, angle)

        async def one(r: int) -> list[CardCritique]:
            found, runs = await falsify(self.step, card, f"falsifier {r + 1} of card {card.id}", self.probes)
            self.executions.extend({"card": card.id, "falsifier": r, **run} for run in runs)
            return card_critiques(found, card, r, runs, self.probes)

        async with asyncio.TaskGroup() as group:  # a card's falsifiers side by side, tools or not
            tasks = [group.create_task(one(r)) for r in range(config.falsifiers_per_card)]
        critiques = [c for task in tasks for c in task.result()]
        card.critiques = list(critiques)
        return CardBundle(card.id, 0, [card], critiques)

    async def write_leaves(self, total_leaves: int) -> tuple[dict[str, CardBundle], list[dict]]:
        """The leaves, in batches when widening adaptively: widening stops after a batch whose
        refutations found no fatal flaw that an earlier batch had not already found."""
        config = self.config
        batch = min(config.batch, total_leaves) if config.adaptive_widths else total_leaves
        leaves: dict[str, CardBundle] = {}
        fatal_seen: list[str] = []
        batches: list[dict] = []
        done = 0

        async def leaf(i: int) -> CardBundle:
            nonlocal done
            bundle = await self.leaf(i, total_leaves)
            done += 1
            self.report("exploring: cards written and attacked", done, total_leaves)
            return bundle

        start = 0
        while start < total_leaves:  # bounded: each pass writes at least one leaf
            size = min(batch, total_leaves - start)
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(leaf(i)) for i in range(start, start + size)]
            new = 0
            for task in tasks:
                bundle = task.result()
                leaves[bundle.id] = bundle
                for c in bundle.critiques:
                    if c.severity != "fatal":
                        continue
                    signature = f"{c.kind} {c.explanation}"
                    if not any(similar(signature, seen) for seen in fatal_seen):
                        new += 1
                    fatal_seen.append(signature)
            batches.append({"leaves": [t.result().id for t in tasks], "new_fatal_flaws": new,
                            "fatal_flaws": sum(1 for t in tasks for c in t.result().critiques if c.severity == "fatal")})
            start += size
            if config.adaptive_widths and len(batches) > 1 and new == 0:
                break  # this batch's refutations found nothing an earlier batch had not: stop widening
        return leaves, batches

    async def aggregate(self, leaves: dict[str, CardBundle], widths: tuple[int, ...], rng: random.Random):
        """The tree of strategy aggregators over the leaves: (every bundle, the groups drawn per
        level, the root)."""
        bundles: dict[str, CardBundle] = dict(leaves)
        current = list(leaves)
        groups_per_level: list[list[tuple[str, list[str]]]] = []
        for level, width in enumerate(widths[1:], start=1):
            groups = draw_groups(current, width, self.config.k, rng)
            names = [f"S{level}.{i}" for i in range(width)]
            groups_per_level.append(list(zip(names, groups)))
            finished = 0

            async def aggregate(name: str, members: list[str]) -> CardBundle:
                nonlocal finished
                inputs = [bundles[m] for m in members]
                data = await self.step.ask("strategy_aggregator", {
                    "bundles": render_card_bundles(inputs), "slot": f"aggregator {name}",
                    "max_alternatives": str(self.config.max_alternatives)})
                finished += 1
                self.report(f"exploring: aggregation level {level} of {len(widths) - 1}", finished, width)
                return aggregated_cards(name, level, inputs, data)

            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(aggregate(n, g)) for n, g in zip(names, groups)]
            for task in tasks:
                bundles[task.result().id] = task.result()
            current = names
        return bundles, groups_per_level, bundles[current[0]]


def aggregated_cards(name: str, level: int, inputs: list[CardBundle], data: dict) -> CardBundle:
    """A strategy aggregator's bundle: its cards (or the first input's, rather than losing the
    route), every critique carried up except those resolved by an argument, every open conflict."""
    cards = [StrategyCard.from_data(f"{name}/{j}", c) for j, c in enumerate(data.get("cards") or [])
             if isinstance(c, dict)]
    if not cards:
        cards = list(inputs[0].cards)
    carried: dict[str, CardCritique] = {}
    for b in inputs:
        for crit in b.critiques:
            carried.setdefault(crit.id, crit)
    resolved = {}
    for item in data.get("resolved") or []:
        cid = item.get("critique", "") if isinstance(item, dict) else ""
        if cid in carried and str(item.get("how", "")).strip() and not carried[cid].computational:
            resolved[cid] = item["how"]  # by an argument, never by a count; never against a run
    conflicts = [c for b in inputs for c in b.conflicts] + [str(c) for c in data.get("open_conflicts") or []]
    return CardBundle(name, level, cards, [c for cid, c in carried.items() if cid not in resolved],
                      list(dict.fromkeys(conflicts)), tuple(b.id for b in inputs), resolved)


def choose_routes(cards: list[StrategyCard], max_alternatives: int) -> tuple[StrategyCard, list[StrategyCard]]:
    """The main route and at most ``max_alternatives`` alternatives whose key mechanism differs
    from the main route's and from each other's (a variant of the same mechanism is not kept)."""
    main, kept = cards[0], []
    for card in cards[1:]:
        if len(kept) >= max_alternatives:
            break
        if any(similar(card.key_mechanism, other.key_mechanism) for other in [main, *kept]):
            continue
        kept.append(card)
    return main, kept
