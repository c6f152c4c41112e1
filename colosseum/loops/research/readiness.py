"""Stage 2, the readiness gate. It does not ask whether the proof is done; it asks whether the
core mechanism is stable, whether every open claim can be assigned to a concrete section with a
statement, a role and a route, and whether settling them would change the skeleton.

The model answers those questions; the rules are applied here, so that no answer can talk its
way past them: an unresolved fatal bridge, an unstable mechanism, a claim without a section or a
route, or a skeleton that would change is never "ready", whatever the model concluded. A strategy
that is not ready goes back to exploration, and its failure is recorded in the catalog as a
failed route."""

from __future__ import annotations

from pathlib import Path

from colosseum.models.step import ask
from colosseum.loops.research.records import Exploration, OpenClaim, ReadinessVerdict


async def readiness_gate(context, exploration: Exploration, provider, previous: str = "(none)") -> ReadinessVerdict:
    critiques = "\n".join(f"- [{c.id}] {c.severity} {c.kind} against {c.origin}: \"{c.target}\" -- {c.explanation}"
                          for c in exploration.surviving_critiques) or "(none)"
    data = await ask(provider, "readiness_gate", {
        "problem": f"{context.label}: {context.statement}", "assumable": context.assumable or "(none)",
        "notation": context.notation or "(none)", "main": exploration.main.render(),
        "alternatives": "\n\n".join(c.render() for c in exploration.alternatives) or "(none)",
        "critiques": critiques, "previous": previous})
    return judge(data)


def judge(data: dict) -> ReadinessVerdict:
    """The gate's answer with the rules applied."""
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
    if data.get("ready") is not True and not broken:
        broken.append("the gate did not mark it ready")
    return ReadinessVerdict(not broken, stable, claims, bridges, would_change, reasons + broken)


def gate_feedback(verdict: ReadinessVerdict, exploration: Exploration) -> str:
    """What the next exploration is told about this one."""
    lines = [f"The route \"{exploration.main.key_mechanism}\" was not ready:"]
    lines += [f"- {r}" for r in verdict.reasons]
    lines += [f"- fatal bridge: {b['assumption']} ({b['why']})" for b in verdict.fatal_bridges]
    return "\n".join(lines)


def record_gate_failure(catalog_dir: Path | None, label: str, verdict: ReadinessVerdict, exploration: Exploration,
                        run_id: str) -> list[str]:
    """A failed route in the catalog for each fatal bridge (else one for the route itself), so
    the next exploration is told where this one broke. Returns the entry files written."""
    approach = exploration.main.key_mechanism or exploration.main.normalized_goal or "unnamed strategy"
    points = [(b["assumption"], f"fatal bridge: {b['why']}") for b in verdict.fatal_bridges]
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
