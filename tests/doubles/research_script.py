"""Scripted answers for every role a research run asks (a test double for the tests and the
benchmark, never used by the product): explorers, falsifiers, aggregators, the readiness gate,
the decomposer (a skeleton of a chosen DAG shape), the inner loop, local and global reviewers,
the reviser and the selection judges. Deterministic: an answer depends on the request and on how
many requests of the same kind came before. Use it with ``ScriptedProvider(ResearchScript(...))``."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field


def _between(text: str, start: str, end: str) -> str:
    i = text.find(start)
    if i < 0:
        return ""
    i += len(start)
    j = text.find(end, i)
    return text[i:j] if j >= 0 else text[i:]


def _document(text: str, name: str) -> str:
    return _between(text, f' name="{name}">\n', "\n</document-")  # a fence: <document-HASH name="...">


DISTINCT_FLAWS = (
    "the base case n = 1 breaks the bound",
    "Hall's condition fails for stars with many leaves",
    "an inequality reverses sign when weights are negative",
    "compactness needs closed sets, whereas these families are open",
    "disconnected inputs defeat any spanning-tree construction",
    "Chernoff requires independence; these variables share coordinates",
    "counting overstates multiplicity: cycles get counted twice",
    "potential function increases during resampling steps",
)


@dataclass
class ResearchScript:
    generations: tuple[int, ...] = (2, 1)  # lemmas per generation of the skeleton
    gate_fatal_bridges: int = 0  # the first n gate calls report a fatal bridge (and claim ready)
    broken_first_skeleton: bool = False  # the first skeleton refers to a label that does not exist
    local_failures: dict = field(default_factory=dict)  # label suffix -> local reviews that fail first
    global_verdicts: tuple[str, ...] = ("accepted",)  # one per round; the last repeats
    revision: str = "revise"  # revise | re-explore | new-section (breaks the conservative rules)
    judges_correct: int = 8  # judges 1..n say model A's proof is correct
    distinct_fatal_flaws: bool = False  # each falsified card gets a different fatal flaw
    # label suffix -> severity: the inner loop's refuters find that flaw in the section's first
    # attempt (every attempt with ``refuted_always``); no aggregator resolves it
    refuted_sections: dict = field(default_factory=dict)
    refuted_always: bool = False
    reviewer_addresses: bool = True  # the local reviewer answers every critique it is given ("answered")
    gate_rebuts: bool = True  # the gate claims a rebuttal of every critique on the route
    strategy_resolves: bool = False  # strategy aggregators claim every critique they carry resolved
    rebuttals_hold: bool = True  # the rebuttal checker confirms the gate's rebuttals
    counts: Counter = field(default_factory=Counter)

    def __call__(self, request) -> dict:
        handler = getattr(self, "_" + request.role.replace("-", "_"), None)
        if handler is None:
            raise KeyError(f"the research script has no answer for role `{request.role}`")
        self.counts[request.role] += 1
        return handler(request.system, request.messages[0].content)

    # ---- exploration ---------------------------------------------------------------------------
    def _explorer(self, system: str, user: str) -> dict:
        angle = _between(user, "so that the explorers differ: ", ".\n")
        return {"normalized_goal": "every admissible input has the property",
                "key_mechanism": f"reduce to a chain of bounds ({angle})",
                "needed_lemmas": [{"statement": "the first bound", "route": "direct computation"}],
                "first_bottleneck": "the base case", "falsifiable_tests": ["check n = 1 and n = 2 by hand"]}

    def _strategy_falsifier(self, system: str, user: str) -> dict:
        card = _between(user, "### Card E", " ")
        number = int(card) if card.isdigit() else 0
        if number % 4:
            return {"critiques": []}
        flaw = (DISTINCT_FLAWS[(number // 4) % len(DISTINCT_FLAWS)] if self.distinct_fatal_flaws
                else "the base case n = 1 breaks the bound")
        return {"critiques": [{"severity": "fatal", "kind": "boundary-case", "target": "the base case",
                               "explanation": flaw}]}

    def _strategy_aggregator(self, system: str, user: str) -> dict:
        def card(mechanism: str) -> dict:
            return {"normalized_goal": "every admissible input has the property", "key_mechanism": mechanism,
                    "needed_lemmas": [{"statement": "the first bound", "route": "direct computation"}],
                    "first_bottleneck": "the base case", "falsifiable_tests": ["n = 1"]}
        return {"cards": [card("a chain of bounds along the induction on the size"),
                          card("a chain of bounds along the induction on the size, done twice"),
                          card("a probabilistic count of the bad configurations")],
                "resolved": [{"critique": cid, "how": "the base case is checked by hand"}
                             for cid in re.findall(r"^- \[([^\]]+)\]", user, re.MULTILINE)]
                if self.strategy_resolves else [], "open_conflicts": []}

    def _readiness_gate(self, system: str, user: str) -> dict:
        n = self.counts["readiness_gate"]
        claims = [{"statement": "the first bound", "role": "reduction", "route": "direct computation",
                   "section": "first step"}]
        if n <= self.gate_fatal_bridges:
            return {"mechanism_stable": True, "open_claims": claims, "skeleton_would_change": False, "ready": True,
                    "fatal_bridges": [{"assumption": "the bad events are independent",
                                       "why": "no route: they share variables"}],
                    "reasons": "looks fine"}
        critiques = re.findall(r"^- \[([^\]]+)\] fatal", _document(user, "critiques still attached to the cards"),
                               re.MULTILINE)
        rebuttals = [{"critique": cid, "argument": "the base case n = 1 is settled separately by hand"}
                     for cid in critiques] if self.gate_rebuts else []
        return {"mechanism_stable": True, "open_claims": claims, "fatal_bridges": [], "skeleton_would_change": False,
                "ready": True, "reasons": "the mechanism is stable and every claim has a section",
                "rebuttals": rebuttals}

    def _rebuttal_checker(self, system: str, user: str) -> dict:
        return {"confirmed": self.rebuttals_hold,
                "reason": "the argument settles it" if self.rebuttals_hold else "the argument assumes what it rebuts"}

    # ---- decomposition -------------------------------------------------------------------------
    def skeleton(self, level: str, prefix: str, ref: str, target: str, broken: bool = False) -> str:
        parts, previous, used_later = [], [], set()
        for g, size in enumerate(self.generations, 1):
            current = []
            for i in range(1, size + 1):
                label = f"lem:{prefix}-g{g}-{i}"
                uses = [previous[(i - 1) % len(previous)], previous[i % len(previous)]] if previous else []
                uses = list(dict.fromkeys(uses))
                used_later.update(uses)
                if broken and g == 1 and i == 1:
                    uses = [f"lem:{prefix}-missing"]
                parts.append(f"\\{level}{{Step {g}.{i}}}\\label{{sec:{prefix}-g{g}-{i}}}\n"
                             f"% colosseum: obligation\n\\begin{{lemma}}\\label{{{label}}}\n"
                             f"  The quantity $Q_{{{g},{i}}}$ is bounded by the quantities it uses.\n\\end{{lemma}}\n"
                             f"\\begin{{proof}}" + (f"\\uses{{{','.join(uses)}}}" if uses else "") + "\\end{proof}\n")
                current.append(label)
            previous = current
        every = [f"lem:{prefix}-g{g}-{i}" for g, size in enumerate(self.generations, 1) for i in range(1, size + 1)]
        final = [x for x in every if x not in used_later]
        parts.append(f"\\{level}{{Proof of the theorem}}\\label{{sec:{prefix}-proof}}\n"
                     f"\\begin{{proof}}[Proof of {ref}{{{target}}}]\\uses{{{','.join(final)}}}\\end{{proof}}\n")
        return "\n".join(parts)

    def _decomposer(self, system: str, user: str) -> dict:
        level = _between(system, "- Sections are `\\", "{Title}")
        prefix = _between(system, "\\label{sec:", "-...}")
        ref_and_target = _between(system, "[Proof of ", "]")
        ref, target = ref_and_target.split("{", 1)
        broken = self.broken_first_skeleton and self.counts["decomposer"] == 1
        return {"skeleton": self.skeleton(level, prefix, ref, target.rstrip("}"), broken),
                "summary": f"{sum(self.generations)} lemmas in {len(self.generations)} generations"}

    def _redecomposer(self, system: str, user: str) -> dict:
        section = _document(user, "its section as it is now")
        label = _between(user, ' name="the failing lemma (', ')">')
        new = label + "-part"
        marker = "% colosseum: obligation\n\\begin{lemma}\\label{" + label + "}"
        piece = (f"% colosseum: obligation\n\\begin{{lemma}}\\label{{{new}}}\n  A smaller step towards "
                 f"{label}.\n\\end{{lemma}}\n\\begin{{proof}}\\end{{proof}}\n\n")
        text = section.replace(marker, piece + marker, 1)
        head, _, tail = text.partition(marker)
        proof_at = tail.find("\\begin{proof}") + len("\\begin{proof}")
        tail = tail[:proof_at] + f"\\uses{{{new}}}" + tail[proof_at:]
        return {"section": head + marker + tail, "reason": "the step was too big: cut in two"}

    # ---- the inner loop ------------------------------------------------------------------------
    @staticmethod
    def _obligation(user: str) -> str:
        return _document(user, "obligation").split(": ", 1)[0]

    def _generator(self, system: str, user: str) -> dict:
        retry = "failed its local review" in _document(user, "previous attempt and its critiques")
        return {"strategy": "direct", "proof": f"We bound the quantity of {self._obligation(user)} directly."
                + (" Second attempt." if retry else "")}

    def _angle_planner(self, system: str, user: str) -> dict:
        return {"angles": [{"angle": "bound the quantity directly", "why": "it is a chain of bounds"},
                           {"angle": "induction on the generation of the step", "why": "the steps build up"}]}

    def _refuter(self, system: str, user: str) -> dict:
        label = self._obligation(user)
        severity = next((v for k, v in self.refuted_sections.items() if label.endswith(k)), None)
        candidate = _document(user, "candidate proof")
        if severity is None or ("Second attempt." in candidate and not self.refuted_always):
            return {"critiques": []}
        return {"critiques": [{"severity": severity, "kind": "gap", "quote": "We bound the quantity",
                               "explanation": "the bound is asserted, never derived", "repair": ""}]}

    def _resolution_checker(self, system: str, user: str) -> dict:
        return {"checks": []}  # nothing is claimed in these runs: no aggregator resolves a critique

    def _aggregator(self, system: str, user: str) -> dict:
        retry = "Second attempt." in user
        return {"proof": f"We bound the quantity of {self._obligation(user)} by the bounds it uses."
                + (" Second attempt." if retry else ""), "alternative": "", "resolved": [], "open_conflicts": []}

    # ---- review --------------------------------------------------------------------------------
    def _local_reviewer(self, system: str, user: str) -> dict:
        label = _between(user, ' name="statement of ', '">')
        key = next((k for k in self.local_failures if label.endswith(k)), None)
        self.counts["local:" + label] += 1
        if key is not None and self.counts["local:" + label] <= self.local_failures[key]:
            proof = _document(user, "proof")
            return {"verdict": "failed", "reasons": ["the bound is not justified"],
                    "critiques": [{"severity": "major", "kind": "gap", "quote": proof[:40], "message": "unjustified",
                                   "repair": "justify the bound"}]}
        carried = re.findall(r"^- \[([^\]]+)\]", _document(user, "critiques the proof's refuters left standing"),
                             re.MULTILINE)
        addressed = [{"critique": cid, "status": "answered", "reason": "the proof derives the bound in its text"}
                     for cid in carried] if self.reviewer_addresses else []
        return {"verdict": "passed", "reasons": ["proves its statement"], "critiques": [], "addressed": addressed}

    def _global_reviewer(self, system: str, user: str) -> dict:
        reviewers = max(1, int(_between(user, " of ", ")") or 1)) if user.startswith("(reviewer") else 1
        round_number = (self.counts["global_reviewer"] - 1) // reviewers
        verdict = self.global_verdicts[min(round_number, len(self.global_verdicts) - 1)]
        if verdict == "accepted":
            return {"verdict": "accepted", "reasons": ["the argument holds together"], "critiques": []}
        g = len(self.generations)
        quote = f"The quantity $Q_{{{g},1}}$ is bounded by the quantities it uses."
        return {"verdict": verdict, "reasons": ["a bound is used beyond its hypotheses"],
                "critiques": [{"severity": "fatal" if verdict == "rejected" else "major", "kind": "hypothesis-not-met",
                               "file": "", "line": 1, "quote": quote, "message": "the bound needs a smallness hypothesis",
                               "repair": "add the hypothesis"}]}

    def _reviser(self, system: str, user: str) -> dict:
        if self.revision == "re-explore":
            return {"decision": "re-explore", "reason": "the chain of bounds cannot close", "sections": []}
        flagged = _document(user, "sections flagged")
        section = _between(flagged, "[", "]")
        text = flagged.split("]\n", 1)[1] if "]\n" in flagged else ""
        text = text.replace("is bounded by the quantities it uses.",
                            "is bounded by the quantities it uses, when they are small.")
        if self.revision == "new-section":
            text += "\n\\subsection{An extra step}\\label{sec:extra}\nMore.\n"
        return {"decision": "revise", "reason": "added the smallness hypothesis",
                "sections": [{"section": section, "latex": text}]}

    def _selection_judge(self, system: str, user: str) -> dict:
        judge = int(_between(user, "(judge ", " of") or 0)
        correct = judge <= self.judges_correct
        return {"correct": correct, "fatal_flaw": "" if correct else "the final bound", "reasons": "checked"}


ROLES = ("explorer", "strategy_falsifier", "strategy_aggregator", "readiness_gate", "rebuttal_checker", "decomposer",
         "redecomposer", "angle_planner", "generator", "refuter", "resolution_checker", "aggregator", "local_reviewer",
         "global_reviewer", "review_synthesis", "reviser", "selection_judge")


def role_of(system: str) -> str:
    """Which prompt a request was rendered from, by its system text (an HTTP double sees no role)."""
    from colosseum.models.prompts import load_prompt

    for role in ROLES:
        head = load_prompt(role).system_template.split("{", 1)[0][:200]
        if system.startswith(head):
            return role
    raise KeyError("a request from no known prompt")
