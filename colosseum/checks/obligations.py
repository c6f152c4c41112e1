"""Findings about conditional claims: a proved claim whose proof rests, along the dependency
graph, on an open obligation or an unproved claim (colosseum.graph.status).

Found again for the claims whose path changed, or that were read afresh or moved; every message
when an obligation they name moved."""

from __future__ import annotations

from colosseum.checks.cycles import node_location
from colosseum.checks.family import Edit, Findings, code
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic, RelatedInfo


def conditional_finding(view: BuildView, node: str, path: list[str],
                        origins: list[str] | None = None) -> Diagnostic | None:
    """The finding of a conditional claim: every open obligation its proof rests on, then every
    other unproved claim (``origins``; the first of ``path`` when not given), each a related place."""
    if node not in view.claims:
        return None  # a section's prose citing a result is not a proof: its status says enough
    loc = node_location(view, node)
    if loc is None:
        return None
    # the claims it rests on (a section is an obligation through the claims it holds)
    origins = [origin for origin in origins or () if origin in view.claims] or [path[0]]
    kinds = {origin: _unsettled_kind(view, origin) for origin in origins}
    origins = sorted(origins, key=lambda origin: (kinds[origin] != "open obligation", origin))
    via = f" (via {' -> '.join(path[1:-1])})" if len(path) > 2 and origins[0] == path[0] else ""
    related = tuple(RelatedInfo(where, f"{kinds[origin]} `{origin}`") for origin in origins
                    if (where := node_location(view, origin)) is not None)
    return Diagnostic(loc.file, loc.range, "warning", code("depends-on-open-obligation"),
                      f"`{node}` is conditional: its proof relies on {_listing(origins, kinds)}{via}", related)


def _listing(origins: list[str], kinds: dict[str, str]) -> str:
    """``the open obligations `a` and `b`, and the unproved claim `c` ``: grouped by kind, in order."""
    groups: dict[str, list[str]] = {}
    for origin in origins:
        groups.setdefault(kinds[origin], []).append(f"`{origin}`")
    parts = []
    for kind, names in groups.items():
        plural = kind + "s" if len(names) > 1 else kind
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        parts.append(f"the {plural} {listed}")
    return ", and ".join(parts)


def _unsettled_kind(view: BuildView, node: str) -> str:
    """What a conditional proof rests on: an open obligation, a conjecture-like claim, or a claim
    with no proof."""
    claim = view.claims.get(node)
    proof = claim.proof if claim is not None else None
    if proof is not None and proof.draft_run is not None and proof.has_content and not proof.obligation:
        return "model's draft"  # an obligation a model has answered: a person has yet to accept it
    if claim is None or claim.obligation or (proof is not None and proof.obligation):
        return "open obligation"
    if claim.role == "conjecture":
        return f"unproved {claim.kind}"
    return "unproved claim"


class Obligations:
    name = "obligations"
    codes = ("depends-on-open-obligation",)
    depends_on = ("graph", "claims", "sections")

    def __init__(self):
        self.conditional: dict[str, list[str]] = {}  # the graph's paths the findings were made from
        self.origins: set[str] = set()  # every node the findings name as what a proof rests on
        self.origins_of: dict[str, list[str]] = {}  # conditional node -> those it rests on

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        dirty = set() if edit.full else edit.change.nodes | edit.moved_nodes
        conditional = view.graph.conditional_on
        if conditional is not self.conditional:
            todo = conditional.keys() | self.conditional.keys()
            self.origins_of = view.graph.conditional_origins  # found with it (colosseum.graph.status)
        elif dirty & self.origins:
            todo = set(conditional)  # an obligation moved: every message that names it
        else:
            todo = dirty & conditional.keys()
        for node in todo:
            path = conditional.get(node)
            found = conditional_finding(view, node, path, self.origins_of.get(node)) if path is not None else None
            findings.set(("conditional", node), [(found, None)] if found is not None else [])
        if conditional is not self.conditional:
            self.conditional = conditional
            self.origins = {origin for origins in self.origins_of.values() for origin in origins}
