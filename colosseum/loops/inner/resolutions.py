"""Checked resolutions: an aggregator's claim that its merged proof resolves a critique is an
argument, and a ``resolution_checker`` call (a refuter's stance) checks every claim against the
NEW merged proof. Only a confirmed resolution removes its critique; an unconfirmed one, a claim
with no "how", and every claim of a node whose check call failed leave the critique attached, as
it was written (its quote and whether that quote was found in the candidate it attacked).

A counterexample found by execution (``Critique.computational``) is never even checked: the run
shows the claim false, and no merged proof changes what it printed."""

from __future__ import annotations

from colosseum.loops.inner.records import Bundle, Candidate, Critique

NO_HOW = "the aggregator named it without saying how"
BY_EXECUTION = ("a counterexample found by running code refutes the claim itself: no argument or merged proof "
                "resolves it")


def carried_critiques(inputs: list[Bundle]) -> dict[str, Critique]:
    """Every critique of the inputs, once each, in the order they came."""
    carried: dict[str, Critique] = {}
    for b in inputs:
        for crit in b.critiques:
            carried.setdefault(crit.id, crit)
    return carried


def claimed_resolutions(data: dict, carried: dict[str, Critique]) -> tuple[dict[str, str], dict[str, str]]:
    """(claims worth checking: critique id -> how, claims refused at once: id -> why). A claim
    that states no argument is never checked: a name is not a resolution."""
    claims, refused = {}, {}
    for item in data.get("resolved", []) or []:
        cid, how = str(item.get("critique", "")), str(item.get("how", "")).strip()
        if cid not in carried:
            continue
        if carried[cid].computational:
            refused[cid] = BY_EXECUTION
        elif how:
            claims[cid] = how
        else:
            refused[cid] = NO_HOW
    return claims, refused


def render_claims(claims: dict[str, str], carried: dict[str, Critique]) -> str:
    lines = []
    for cid, how in claims.items():
        c = carried[cid]
        found = "its quote was found in that candidate" if c.anchored else "its quote was NOT found in that candidate"
        lines.append(f"- [{cid}] {c.severity} {c.kind}, written against {c.origin or 'a candidate'} ({found}): "
                     f"\"{c.quote}\" -- {c.explanation}\n  Claimed resolution: {how}")
    return "\n".join(lines)


async def check_resolutions(step, name: str, proof: str, claims: dict[str, str],
                            carried: dict[str, Critique]) -> tuple[dict[str, str], dict[str, str]]:
    """(confirmed: id -> how, unconfirmed: id -> why) after one checker call over every claim of
    aggregator ``name``; a failed call confirms nothing (recorded as the reason)."""
    if not claims:
        return {}, {}
    outcome = await step.call("resolution_checker", {"proof": proof, "claims": render_claims(claims, carried),
                                                     "slot": f"resolution check of aggregator {name}"})
    if not outcome.ok:
        return {}, {cid: f"the check failed: {outcome.failure}" for cid in claims}
    verdicts = {str(v.get("critique", "")): v for v in (outcome.data or {}).get("checks", []) or []}
    confirmed, unconfirmed = {}, {}
    for cid, how in claims.items():
        verdict = verdicts.get(cid)
        if verdict is not None and verdict.get("confirmed") is True:
            confirmed[cid] = how
        else:
            unconfirmed[cid] = (str(verdict.get("reason", "")) or "not confirmed") if verdict else "not checked"
    return confirmed, unconfirmed


async def checked_aggregate(step, name: str, level: int, inputs: list[Bundle], data: dict) -> Bundle:
    """Aggregator ``name``'s bundle: its merged proof (and the alternative it kept), every critique
    of its inputs carried up except those whose resolution a checker confirmed, every open conflict."""
    carried = carried_critiques(inputs)
    proof = data.get("proof", "")
    claims, refused = claimed_resolutions(data, carried)
    confirmed, unconfirmed = await check_resolutions(step, name, proof, claims, carried)
    conflicts = [c for b in inputs for c in b.conflicts] + list(data.get("open_conflicts", []) or [])
    alternative = str(data.get("alternative", "") or "").strip()
    kept = [c for cid, c in carried.items() if cid not in confirmed or c.computational]
    return Bundle(name, level, Candidate(name, proof), kept,
                  list(dict.fromkeys(conflicts)), tuple(b.id for b in inputs), confirmed, {**refused, **unconfirmed},
                  Candidate(f"{name}.alt", alternative) if alternative else None)
