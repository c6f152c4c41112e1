"""Findings about conditional claims: a proved claim whose proof rests, along the dependency
graph, on an open obligation or an unproved claim (colosseum.graph.status).

Found again for the claims whose path changed, or that were read afresh or moved; every message
when an obligation they name moved."""

from __future__ import annotations

from colosseum.checks.cycles import node_location
from colosseum.checks.family import Edit, Findings, code
from colosseum.checks.view import BuildView
from colosseum.core.structure import Diagnostic, RelatedInfo


def conditional_finding(view: BuildView, node: str, path: list[str]) -> Diagnostic | None:
    if node not in view.claims:
        return None  # a section's prose citing a result is not a proof: its status says enough
    loc = node_location(view, node)
    origin = node_location(view, path[0])
    if loc is None:
        return None
    via = f" (via {' -> '.join(path[1:-1])})" if len(path) > 2 else ""
    what = _unsettled_kind(view, path[0])
    related = (RelatedInfo(origin, f"{what} `{path[0]}`"),) if origin else ()
    return Diagnostic(loc.file, loc.range, "warning", code("depends-on-open-obligation"),
                      f"`{node}` is conditional: its proof relies on the {what} `{path[0]}`{via}", related)


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
        self.origins: set[str] = set()  # the first node of each

    def judge(self, view: BuildView, edit: Edit, findings: Findings) -> None:
        dirty = set() if edit.full else edit.change.nodes | edit.moved_nodes
        conditional = view.graph.conditional_on
        if conditional is not self.conditional:
            todo = conditional.keys() | self.conditional.keys()
        elif dirty & self.origins:
            todo = set(conditional)  # an obligation moved: every message that names it
        else:
            todo = dirty & conditional.keys()
        for node in todo:
            path = conditional.get(node)
            found = conditional_finding(view, node, path) if path is not None else None
            findings.set(("conditional", node), [(found, None)] if found is not None else [])
        if conditional is not self.conditional:
            self.conditional = conditional
            self.origins = {path[0] for path in conditional.values()}
