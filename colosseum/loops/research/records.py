"""Plain records of a research run: strategy cards, the readiness verdict, the decomposition,
the sections solved, the rounds of global review and revision, and the run's outcome."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from colosseum.models import Usage

# the exploration tree of the paper's benchmarks; every other stage uses the inner loop's widths
EXPLORATION_WIDTHS = (32, 16, 8, 5, 1)

# what the explorers start from, so that the leaves differ (reformulations, intermediate claims,
# connections to known results); a leaf takes angles[i % len(angles)]
EXPLORATION_ANGLES = (
    "reformulate the statement as one about a simpler or more symmetric object",
    "find the one intermediate claim the statement reduces to",
    "connect it to a known theorem among the assumable results or the catalog, and check its hypotheses",
    "induction on the natural parameter, strengthening the statement if the induction needs it",
    "a probabilistic or counting argument",
    "an extremal argument: a maximal or minimal object, or a minimal counterexample",
    "an algebraic or linear-algebraic representation of the objects",
    "small cases first: compute them, find the pattern, then the mechanism behind it",
    "a duality, LP relaxation or potential-function argument",
    "a structural decomposition of the objects into pieces that are easy to handle",
    "a compactness, limiting or continuity argument",
    "prove the contrapositive: what a counterexample would have to look like",
)


@dataclass
class CardCritique:
    """A falsifier's attack on a strategy card: boundary cases, hidden assumptions, inequalities
    in the wrong direction, cited theorems whose hypotheses fail, overstated computations."""

    id: str
    severity: str  # fatal | major | minor
    kind: str
    target: str  # the part of the card it attacks, quoted
    explanation: str
    origin: str = ""  # the card it was written against
    evidence: dict | None = None  # a test of the card run by execution that failed: the run (code, output, limits)

    @property
    def computational(self) -> bool:
        """The card's own test, run in the sandbox, refuted it: fatal, and no argument resolves it."""
        return self.evidence is not None


@dataclass
class StrategyCard:
    """Not a proof: the normalized goal, the key mechanism, the lemmas it needs (each with a
    route), the first bottleneck, and tests that could falsify it."""

    id: str
    normalized_goal: str
    key_mechanism: str
    needed_lemmas: list[dict] = field(default_factory=list)  # {statement, route}
    first_bottleneck: str = ""
    falsifiable_tests: list[str] = field(default_factory=list)
    angle: str = ""
    critiques: list[CardCritique] = field(default_factory=list)  # those still attached to it

    @classmethod
    def from_data(cls, card_id: str, data: dict, angle: str = "") -> "StrategyCard":
        lemmas = []
        items = data.get("needed_lemmas")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                lemmas.append({"statement": str(item.get("statement", "")), "route": str(item.get("route", ""))})
            elif isinstance(item, str):
                lemmas.append({"statement": item, "route": ""})
        return cls(card_id, str(data.get("normalized_goal", "")), str(data.get("key_mechanism", "")), lemmas,
                   str(data.get("first_bottleneck", "")),
                   [str(t) for t in tests] if isinstance(tests := data.get("falsifiable_tests"), list) else [], angle)

    def render(self) -> str:
        lines = [f"### Card {self.id}" + (f" (angle: {self.angle})" if self.angle else ""),
                 f"- Normalized goal: {self.normalized_goal}", f"- Key mechanism: {self.key_mechanism}",
                 "- Needed lemmas:"]
        lines += [f"  {i}. {lemma['statement']}" + (f" (route: {lemma['route']})" if lemma["route"] else "")
                  for i, lemma in enumerate(self.needed_lemmas, 1)] or ["  (none named)"]
        lines += [f"- First bottleneck: {self.first_bottleneck}", "- Falsifiable tests:"]
        lines += [f"  - {t}" for t in self.falsifiable_tests] or ["  (none)"]
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"id": self.id, "normalized_goal": self.normalized_goal, "key_mechanism": self.key_mechanism,
                "needed_lemmas": self.needed_lemmas, "first_bottleneck": self.first_bottleneck,
                "falsifiable_tests": self.falsifiable_tests, "angle": self.angle,
                "critiques": [vars(c) for c in self.critiques]}


@dataclass
class CardBundle:
    """A node of the exploration tree: the cards it holds (the main route first) with every
    critique still attached to them."""

    id: str
    level: int
    cards: list[StrategyCard]
    critiques: list[CardCritique] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    sources: tuple[str, ...] = ()
    resolved: dict[str, str] = field(default_factory=dict)


@dataclass
class Exploration:
    main: StrategyCard
    alternatives: list[StrategyCard]
    bundles: dict[str, CardBundle]
    groups: list[list[tuple[str, list[str]]]]
    widths: tuple[int, ...]  # the widths actually used
    planned_widths: tuple[int, ...]
    batches: list[dict] = field(default_factory=list)  # per batch of leaves: new fatal flaws found
    calls_saved: int = 0  # calls the adaptive widths did not make, against the planned tree
    seed: int = 0
    executions: list[dict] = field(default_factory=list)  # every run of run_python by a falsifier

    def refuted_by_execution(self) -> list[CardCritique]:
        """The critiques whose card a run refuted, from every card written (whether or not it
        reached the root: the readiness gate is told of each)."""
        return [c for b in self.bundles.values() if b.level == 0 for c in b.critiques if c.computational]

    @property
    def surviving_critiques(self) -> list[CardCritique]:
        root = self.bundles.get(f"S{len(self.widths) - 1}.0")
        return root.critiques if root is not None else []

    def claimed_resolutions(self) -> list[tuple[CardCritique, str]]:
        """(critique, the aggregator's argument) for each critique a strategy aggregator on the way
        to the root said it resolved: a claim no one has checked, so the gate must rebut a fatal
        one like any other (its rebuttal is checked)."""
        critiques = {c.id: c for b in self.bundles.values() for c in b.critiques}
        root = f"S{len(self.widths) - 1}.0"
        found: dict[str, tuple[CardCritique, str]] = {}
        stack, seen = [root], set()
        while stack:
            bundle = self.bundles.get(stack.pop())
            if bundle is None or bundle.id in seen:
                continue
            seen.add(bundle.id)
            for cid, how in bundle.resolved.items():
                if cid in critiques:
                    found.setdefault(cid, (critiques[cid], how))
            stack.extend(bundle.sources)
        return list(found.values())


@dataclass
class OpenClaim:
    statement: str
    role: str
    route: str
    section: str

    def complete(self) -> bool:
        return all(x.strip() for x in (self.statement, self.role, self.route, self.section))


@dataclass
class ReadinessVerdict:
    """Not "is the proof done?" but: is the core mechanism stable, can every open claim be put
    in a concrete section with a statement, a role and a route, and would settling the open
    claims change the skeleton? An unresolved fatal bridge is never ready."""

    ready: bool
    mechanism_stable: bool
    open_claims: list[OpenClaim]
    fatal_bridges: list[dict]  # {assumption, why}
    skeleton_would_change: bool
    reasons: list[str]  # why it is (not) ready, the gate's words and the rules it broke
    rebuttals: list[dict] = field(default_factory=list)  # {critique, argument, confirmed, reason}, each checked
    standing_critiques: list[dict] = field(default_factory=list)  # fatal critiques of the route left unrebutted

    def to_json(self) -> dict:
        return {"ready": self.ready, "mechanism_stable": self.mechanism_stable,
                "open_claims": [vars(c) for c in self.open_claims], "fatal_bridges": self.fatal_bridges,
                "skeleton_would_change": self.skeleton_would_change, "reasons": self.reasons,
                "rebuttals": self.rebuttals, "standing_critiques": self.standing_critiques}


@dataclass
class Decomposition:
    skeleton: str  # the LaTeX the decomposer wrote (a fragment that goes after the theorem)
    obligations: list[str]  # labels to solve, the target last
    generations: list[list[str]]  # the DAG's generations, restricted to the obligations
    edges: list[tuple[str, str]]  # (used, user) between obligations, read back from the index
    sections: list[str]  # the skeleton's section ids in document order
    external: list[str]  # labels of the paper the skeleton refers to
    attempts: int = 1
    summary: str = ""


@dataclass
class SectionOutcome:
    label: str
    status: str  # passed | failed | blocked | redecomposed
    proof: str = ""
    attempts: int = 0
    reviews: list[dict] = field(default_factory=list)  # every local review: verdict, critiques
    generation: int = 0


@dataclass
class Revision:
    round: int
    decision: str  # revise | re-explore | none
    reason: str
    sections: list[str]  # the sections it rewrote
    accepted: bool
    violations: list[str] = field(default_factory=list)  # conservative rules it broke


@dataclass
class RoundRecord:
    round: int
    attempt: int  # which exploration this round's draft came from
    verdict: str  # accepted | revise | rejected | (none: review not reached)
    reasons: list[str]
    critiques: list[dict]
    revision: Revision | None = None


@dataclass(frozen=True)
class ResearchConfig:
    exploration_widths: tuple[int, ...] = EXPLORATION_WIDTHS
    k: int = 5
    falsifiers_per_card: int = 1
    angles: tuple[str, ...] = EXPLORATION_ANGLES
    # beyond the paper, and off unless the author turns it on: leaves come in batches; widening
    # stops once a batch's refutations find no fatal flaw that an earlier batch had not found already
    adaptive_widths: bool = False
    batch: int = 8
    max_alternatives: int = 2
    max_explorations: int = 3  # explorations (the first included) before the run gives up
    decomposition_attempts: int = 2  # a skeleton that does not read back is repaired once
    section_retries: int = 2  # a section that fails local review is retried alone this often
    redecompose: bool = True  # beyond the paper: re-cut the DAG around a section that keeps failing
    max_redecompositions: int = 2
    max_parallel_sections: int = 4
    rounds: int = 3  # global reviews (each followed by a revision or a re-exploration)
    max_calls: int | None = None
    seed: int | None = None

    def planned_exploration_calls(self) -> int:
        leaves = self.exploration_widths[0]
        return leaves * (1 + self.falsifiers_per_card) + sum(self.exploration_widths[1:])


@dataclass
class ResearchResult:
    label: str
    status: str  # accepted | revise | rejected | not-ready | gave-up | budget-stopped | cancelled | failed
    draft: str  # the skeleton with its proofs so far ("" when no skeleton was written)
    skeleton: str
    explorations: list[Exploration]
    gates: list[ReadinessVerdict]
    decomposition: Decomposition | None
    sections: dict[str, SectionOutcome]
    rounds: list[RoundRecord]
    usage: Usage
    usage_by_stage: dict[str, Usage]
    run_dir: object = None
    model: str = ""
    message: str = ""
    calls_saved: dict[str, int] = field(default_factory=dict)

    @property
    def final_verdict(self) -> str:
        return self.rounds[-1].verdict if self.rounds else "none"

    @property
    def complete(self) -> bool:
        """Every obligation of the skeleton has a proof that passed its local review."""
        return bool(self.decomposition) and all(
            self.sections.get(label) is not None and self.sections[label].status == "passed"
            for label in self.decomposition.obligations)


@dataclass
class ProgressEvent:
    """What the author sees: the stage, the round, the DAG frontier (obligations in flight)."""

    stage: str
    round: int
    frontier: tuple[str, ...] = ()
    done: int = 0
    total: int = 0
    calls: int = 0
    detail: str = ""
    model: str = ""

    def line(self) -> str:
        parts = [f"{self.model}: " if self.model else "", f"round {self.round} · {self.stage}"]
        if self.total:
            parts.append(f" {self.done}/{self.total}")
        if self.frontier:
            shown = ", ".join(self.frontier[:4]) + (f" +{len(self.frontier) - 4}" if len(self.frontier) > 4 else "")
            parts.append(f" · frontier {shown}")
        if self.detail:
            parts.append(f" · {self.detail}")
        parts.append(f" · {self.calls} calls")
        return "".join(parts)


def routed_inner_config(inner_config, angles: tuple[str, ...] | None = None):
    """The inner loop's settings for a section the plan assigned a route: its provers take
    ``angles`` (the route, each from its own angle), so the inner loop's own angle planning, when
    it has one, is not asked (the plan already says where the angles come from)."""
    changes = {"angles": tuple(angles)} if angles else {}
    if "plan_angles" in {f.name for f in fields(inner_config)}:
        changes["plan_angles"] = False
    return replace(inner_config, **changes) if changes else inner_config
