"""Stage 2, the readiness gate. It does not ask whether the proof is done; it asks whether the
core mechanism is stable, whether every open claim can be assigned to a concrete section with a
statement, a role and a route, and whether settling them would change the skeleton.

The model answers those questions; the rules are applied here, so that no answer can talk its
way past them: an unresolved fatal bridge, an unstable mechanism, a claim without a section or a
route, or a skeleton that would change is never "ready", whatever the model concluded. A strategy
that is not ready goes back to exploration, and its failure is recorded in the catalog as a
failed route.

A card whose own falsifiable test a run refuted (``falsification.py``) is named in the gate's
inputs apart (``computation``: which card, which test, what the run printed), and such a critique
is never rebutted: no argument changes what a run printed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from colosseum.models.step import ask
from colosseum.loops.research.records import Exploration, OpenClaim, ReadinessVerdict


def _critique_line(c) -> str:
    return (f"- [{c.id}] {c.severity} {c.kind} against {c.origin}: \"{c.target}\" -- {c.explanation}"
            + (" [refuted by execution: cannot be rebutted]" if getattr(c, "computational", False) else ""))


def computation_text(exploration: Exploration) -> str:
    """The cards a run of their own test refuted, for the gate: the card, the test, what the run printed."""
    lines = []
    for c in exploration.refuted_by_execution():
        run = c.evidence or {}
        printed = str(run.get("stdout", "")).strip()[:500]
        lines.append(f"- Card {c.origin} was refuted by execution [{c.id}]: \"{c.target}\" -- {c.explanation}\n"
                     f"  The run (limit hit: {run.get('limit', 'none')}, exit {run.get('exit_code')}) printed: "
                     f"{printed or '(nothing)'}")
    if not lines:
        ran = len(exploration.executions)
        return f"(no card was refuted by execution; {ran} run(s) of falsifiable tests)" if ran else "(no test was run)"
    return "\n".join(lines)


async def readiness_gate(context, exploration: Exploration, provider, previous: str = "(none)") -> ReadinessVerdict:
    """The gate's call, its rules, and a check of each rebuttal it claims of a fatal critique of
    the main route (those that reached the exploration's root, and those a strategy aggregator
    on the way said it resolved, unchecked): a route is ready only when every such critique has a
    rebuttal the checker confirmed."""
    surviving = {c.id for c in exploration.surviving_critiques}
    claimed = [(c, how) for c, how in exploration.claimed_resolutions()
               if c.severity == "fatal" and c.id not in surviving]
    critiques = "\n".join([_critique_line(c) for c in exploration.surviving_critiques]
                          + [_critique_line(c) + f" (a strategy aggregator claims it resolved it: {how}; unchecked, "
                             "so rebut it to rely on that)" for c, how in claimed]) or "(none)"
    problem = f"{context.label}: {context.statement}"
    data = await ask(provider, "readiness_gate", {
        "problem": problem, "assumable": context.assumable or "(none)",
        "notation": context.notation or "(none)", "main": exploration.main.render(),
        "alternatives": "\n\n".join(c.render() for c in exploration.alternatives) or "(none)",
        "critiques": critiques, "computation": computation_text(exploration), "previous": previous})
    fatal = [c for c in exploration.surviving_critiques if c.severity == "fatal"] + [c for c, _ in claimed]
    verdict = judge(data)
    if not verdict.ready or not fatal:
        return judge(data, fatal) if fatal else verdict  # no rebuttal can make it ready: nothing to check
    claimed = claimed_rebuttals(data, fatal)
    checks = {}
    if claimed:
        async with asyncio.TaskGroup() as group:
            tasks = {cid: group.create_task(ask(provider, "rebuttal_checker", {
                "problem": problem, "route": exploration.main.render(),
                "critique": _critique_line(next(c for c in fatal if c.id == cid)), "rebuttal": argument}))
                for cid, argument in claimed.items()}
        checks = {cid: task.result() for cid, task in tasks.items()}
    rebuttals = [{"critique": cid, "argument": argument, "confirmed": checks[cid].get("confirmed") is True,
                  "reason": str(checks[cid].get("reason", ""))} for cid, argument in claimed.items()]
    return judge(data, fatal, rebuttals)


def claimed_rebuttals(data: dict, fatal) -> dict[str, str]:
    """The gate's rebuttals of the fatal critiques it was shown, by critique id (an empty argument
    is no rebuttal)."""
    ids = {c.id for c in fatal if not getattr(c, "computational", False)}  # a run is not rebutted
    claimed: dict[str, str] = {}
    for item in data.get("rebuttals") or []:
        if isinstance(item, dict) and item.get("critique") in ids and str(item.get("argument", "")).strip():
            claimed.setdefault(str(item["critique"]), str(item["argument"]))
    return claimed


def judge(data: dict, fatal=(), rebuttals: list[dict] | None = None) -> ReadinessVerdict:
    """The gate's answer with the rules applied; ``fatal``: the fatal critiques of the main route,
    ``rebuttals``: the checked rebuttals ({critique, argument, confirmed, reason}). A fatal
    critique without a confirmed rebuttal stands, and the route is not ready."""
    claims = [OpenClaim(str(c.get("statement", "")), str(c.get("role", "")), str(c.get("route", "")),
                        str(c.get("section", ""))) for c in data.get("open_claims") or [] if isinstance(c, dict)]
    bridges = [{"assumption": str(b.get("assumption", "")), "why": str(b.get("why", ""))}
               for b in data.get("fatal_bridges") or [] if isinstance(b, dict)]
    stable = data.get("mechanism_stable") is True
    would_change = data.get("skeleton_would_change") is not False
    reasons = [str(data["reasons"])] if str(data.get("reasons", "")).strip() else []
    broken = []
    if bridges:
        broken.append("unresolved fatal bridge: " + "; ".join(b["assumption"] for b in bridges))
    if not stable:
        broken.append("the core mechanism is not stable")
    incomplete = [c.statement or "(unstated claim)" for c in claims if not c.complete()]
    if incomplete:
        broken.append("open claims without a statement, role, route or section: " + "; ".join(incomplete))
    if not claims:
        broken.append("no open claim is assigned to a section: there is nothing to cut the proof into")
    if would_change:
        broken.append("settling the open claims could change the skeleton")
    rebuttals = list(rebuttals or [])
    confirmed = {r["critique"] for r in rebuttals if r.get("confirmed")}
    standing = [c for c in fatal if c.id not in confirmed]
    if standing:
        broken.append("fatal critique of the main route stands unrebutted: "
                      + "; ".join(f"[{c.id}] {c.explanation}" for c in standing))
    if data.get("ready") is not True and not broken:
        broken.append("the gate did not mark it ready")
    return ReadinessVerdict(not broken, stable, claims, bridges, would_change, reasons + broken, rebuttals,
                            [{"id": c.id, "kind": c.kind, "target": c.target, "explanation": c.explanation}
                             for c in standing])


def gate_feedback(verdict: ReadinessVerdict, exploration: Exploration) -> str:
    """What the next exploration is told about this one."""
    lines = [f"The route \"{exploration.main.key_mechanism}\" was not ready:"]
    lines += [f"- {r}" for r in verdict.reasons]
    lines += [f"- fatal bridge: {b['assumption']} ({b['why']})" for b in verdict.fatal_bridges]
    lines += [f"- rebuttal of [{r['critique']}] not confirmed: {r['reason']}" for r in verdict.rebuttals
              if not r.get("confirmed")]
    return "\n".join(lines)


def record_gate_failure(catalog_dir: Path | None, label: str, verdict: ReadinessVerdict, exploration: Exploration,
                        run_id: str) -> list[str]:
    """A failed route in the catalog for each fatal bridge (else one for the route itself), so
    the next exploration is told where this one broke. Returns the entry files written."""
    approach = exploration.main.key_mechanism or exploration.main.normalized_goal or "unnamed strategy"
    points = [(b["assumption"], f"fatal bridge: {b['why']}") for b in verdict.fatal_bridges]
    # the fatal critiques that reached the exploration's root and were not rebutted
    points += [(c["target"] or c["id"], f"fatal critique {c['kind']}: {c['explanation']}")
               for c in verdict.standing_critiques]
    if not points:
        points = [(exploration.main.first_bottleneck or "(the gate named no single point)",
                   "readiness gate: " + "; ".join(verdict.reasons))]
    written = [record_failed_route_once(catalog_dir, label, approach, point, critique, run_id)
               for point, critique in points[:3]]
    return [w for w in written if w]


def record_failed_route_once(catalog_dir: Path | None, label: str, approach: str, point: str, critique: str,
                             run_id: str | None) -> str | None:
    """A failed-route entry for ``label``, unless one for the same approach and failure point is
    already there (the catalog keeps one entry per route and point). Returns the file written."""
    if catalog_dir is None:
        return None
    from colosseum.catalog.store import load_catalog
    from colosseum.catalog.curator import add_failed_route, approach_key

    for entry in load_catalog(catalog_dir, with_starter=False).entries.values():
        if (entry.kind == "failed-route" and entry.status == "active"
                and (entry.data.get("target") or {}).get("label") == label
                and entry.data.get("approach_key") == approach_key(approach)
                and str(entry.data.get("failure_point", "")).strip() == point.strip()):
            return None
    return str(add_failed_route(catalog_dir, label, approach, point, critique, "colosseum", run_id))
