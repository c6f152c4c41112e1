"""Chapter text of a synthetic project (see ``synthetic.py``): sections, claims with proofs,
labelled equations, prose, decoys in comments and verbatim, and deliberately undefined references.

Every chapter draws on one ``GenerationState``: the seeded random stream and the labels defined so
far, which later chapters cite (references only point backwards, so the dependency graph is a DAG).
"""

from __future__ import annotations

import random


CLAIM_KINDS = (
    # (environment, label prefix, weight, has proof)
    ("lemma", "lem", 40, True),
    ("theorem", "thm", 12, True),
    ("proposition", "prop", 14, True),
    ("corollary", "cor", 8, True),
    ("definition", "def", 20, False),
    ("remark", "rem", 6, False),
)

WORDS = (
    "bounded measurable compact continuous finite dense separable integrable smooth "
    "monotone convex closed open disjoint countable unique nonempty normal regular "
    "function measure operator sequence series ideal module group ring field space "
    "kernel image cover norm metric subset limit bound estimate constant family"
).split()

MATH = (
    r"$\|f\|_{L^2} \le C \|g\|_{L^2}$",
    r"$x \in X$",
    r"$\mu(E) < \infty$",
    r"$\sum_{n \ge 1} a_n$",
    r"$T \colon V \to W$",
    r"$\int_X f \, d\mu$",
    r"$n \to \infty$",
    r"$\varepsilon > 0$",
    r"$G / H$",
    r"$\mathbb{R}^d$",
)


class GenerationState:
    """What the chapters share: the random stream, the label counter, the labels defined so far."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.serial = 0
        self.undefined_serial = 0
        self.defined: list[str] = []
        self.kind_of: dict[str, str] = {}
        self.undefined: list[str] = []


class ChapterWriter:
    """Writes one chapter: blocks of lines, then prose padding between blocks."""

    def __init__(self, gen: GenerationState, index: int, n_lines: int, n_labels: int, n_undefined: int):
        self.g = gen
        self.rng = gen.rng
        self.index = index
        self.n_lines = n_lines
        self.n_labels = n_labels
        self.n_undefined = n_undefined
        self.blocks: list[list[str]] = []
        self.labels_left = n_labels

    # -- helpers ---------------------------------------------------------------------------
    def sentence(self, n_words: int | None = None, math: bool = True) -> str:
        rng = self.rng
        n = n_words or rng.randint(6, 12)
        words = [rng.choice(WORDS) for _ in range(n)]
        if rng.random() < 0.5 and math:
            words.insert(rng.randrange(len(words)), rng.choice(MATH))
        text = " ".join(words)
        return text[0].upper() + text[1:] + "."

    def new_label(self, prefix: str) -> str:
        self.g.serial += 1
        name = f"{prefix}:{self.g.serial:05d}"
        self.labels_left -= 1
        return name

    def define(self, name: str, kind: str) -> None:
        self.g.defined.append(name)
        self.g.kind_of[name] = kind

    def earlier(self, kinds: tuple[str, ...] | None = None) -> str | None:
        """An earlier label (mostly recent ones), optionally of given kinds."""
        pool = self.g.defined
        if not pool:
            return None
        rng = self.rng
        for _ in range(12):
            if rng.random() < 0.7:
                i = len(pool) - 1 - min(len(pool) - 1, int(rng.expovariate(1 / 40)))
            else:
                i = rng.randrange(len(pool))
            name = pool[i]
            if kinds is None or self.g.kind_of[name] in kinds:
                return name
        return None

    def ref_phrase(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.35:
            t = self.earlier()
            return f"\\cref{{{t}}}" if t else ""
        if r < 0.55:
            t = self.earlier(("lem",))
            return f"\\lemref{{{t}}}" if t else ""
        if r < 0.70:
            t = self.earlier(("eq",))
            return f"\\eqref{{{t}}}" if t else ""
        if r < 0.80:
            t = self.earlier(("thm",))
            return f"\\thmref{{{t}}}" if t else ""
        t = self.earlier()
        return f"Section~\\ref{{{t}}}" if t and self.g.kind_of[t] == "sec" else (f"\\ref{{{t}}}" if t else "")

    def uses_line(self, n: int) -> str | None:
        targets = []
        for _ in range(n):
            t = self.earlier(("lem", "thm", "prop", "cor", "def"))
            if t and t not in targets:
                targets.append(t)
        if not targets:
            return None
        return "  \\uses{" + ", ".join(targets) + "}"

    # -- blocks ----------------------------------------------------------------------------
    def claim_block(self) -> list[str]:
        rng = self.rng
        env, prefix, _, has_proof = rng.choices(CLAIM_KINDS, weights=[k[2] for k in CLAIM_KINDS])[0]
        label = self.new_label(prefix)
        title = f"[{self.sentence(3, math=False)[:-1]}]" if rng.random() < 0.5 else ""
        lines = [f"\\begin{{{env}}}{title}\\label{{{label}}}"]
        if rng.random() < 0.3:
            lines.append(f"  \\lean{{Synthetic.{prefix}{self.g.serial}}}" + ("\\leanok" if rng.random() < 0.5 else ""))
        if rng.random() < 0.6:
            u = self.uses_line(rng.randint(1, 3))
            if u:
                lines.append(u)
        stmt = self.sentence()
        if rng.random() < 0.3:
            ref = self.ref_phrase()
            if ref:
                stmt = f"Assume {ref}. " + stmt
        lines.append("  " + stmt)
        lines.append(f"\\end{{{env}}}")
        self.define(label, prefix)
        if has_proof:
            lines.append("\\begin{proof}")
            if rng.random() < 0.7:
                u = self.uses_line(rng.randint(1, 4))
                if u:
                    lines.append(u)
            for _ in range(rng.randint(1, 2)):
                ref = self.ref_phrase()
                s = self.sentence()
                lines.append(f"  By {ref}, {s[0].lower()}{s[1:]}" if ref else "  " + s)
            if self.labels_left > 0 and rng.random() < 0.25:
                eq = self.new_label("eq")
                lines += [f"  \\begin{{equation}}\\label{{{eq}}}", f"    a_{{{self.g.serial}}} \\le C \\, b_{{{self.g.serial}}}", "  \\end{equation}"]
                lines.append(f"  Combining \\eqref{{{eq}}} with the above finishes the proof.")
                self.define(eq, "eq")
            lines.append("\\end{proof}")
        lines.append("")
        return lines

    def equation_block(self) -> list[str]:
        label = self.new_label("eq")
        lines = [
            "\\begin{equation}\\label{" + label + "}",
            f"  \\int_X f_{{{self.g.serial}}} \\, d\\mu = \\sum_{{n}} c_n",
            "\\end{equation}",
        ]
        self.define(label, "eq")
        return lines

    def section_block(self, level: str = "section") -> list[str]:
        label = self.new_label("sec")
        lines = [f"\\{level}{{{self.sentence(3, math=False)[:-1]}}}\\label{{{label}}}", ""]
        self.define(label, "sec")
        return lines

    def decoy_block(self) -> list[str]:
        rng = self.rng
        n = self.g.serial
        if rng.random() < 0.5:
            return [
                "\\begin{verbatim}",
                f"  \\label{{verb:{n}}} and \\ref{{verb:nowhere-{n}}} are not LaTeX here",
                "  % nor is this a comment",
                "\\end{verbatim}",
                "",
            ]
        return [
            f"% TODO: \\cref{{comment:nowhere-{n}}} once it is written",
            f"% \\begin{{lemma}}\\label{{comment:lem-{n}}} commented out \\end{{lemma}}",
        ]

    def undefined_block(self, k: int) -> list[str]:
        name = f"missing:{k:03d}"
        self.g.undefined.append(name)
        return [f"This relies on \\cref{{{name}}}, which is not written yet.", ""]

    # -- assembly --------------------------------------------------------------------------
    def build(self) -> str:
        rng = self.rng
        idx = self.index
        head = [f"% Chapter {idx:03d} of a synthetic Colosseum benchmark project.", ""]
        chap_label = self.new_label("sec")
        head += [f"\\chapter{{Chapter {idx}}}\\label{{{chap_label}}}", ""]
        self.define(chap_label, "sec")
        budget_lines = self.n_lines - len(head) - 1
        # blocks until the label quota is used; prefer cheap blocks when lines run short
        while self.labels_left > 0:
            used = sum(len(b) for b in self.blocks)
            slack = budget_lines - used - 5 * self.labels_left
            r = rng.random()
            if r < 0.06 and self.labels_left > 0:
                self.blocks.append(self.section_block("section" if rng.random() < 0.6 else "subsection"))
            elif r < 0.40 or slack < 20:
                self.blocks.append(self.equation_block())
            else:
                self.blocks.append(self.claim_block())
            if rng.random() < 0.05:
                self.blocks.append(self.decoy_block())
        for _ in range(self.n_undefined):
            pos = rng.randint(0, len(self.blocks))
            self.g.undefined_serial += 1
            self.blocks.insert(pos, self.undefined_block(self.g.undefined_serial))
        used = sum(len(b) for b in self.blocks)
        deficit = budget_lines - used
        if deficit < 0:
            raise ValueError(f"chapter {idx}: {used} lines of blocks exceed the budget {budget_lines}")
        # prose padding in the gaps between blocks
        gaps = len(self.blocks) + 1
        pad = [0] * gaps
        # paragraphs of 2..6 lines, spread at random over the gaps
        while deficit > 0:
            n = min(deficit, rng.randint(2, 6))
            pad[rng.randrange(gaps)] += n
            deficit -= n
        out = list(head)
        for i in range(gaps):
            out += self.prose(pad[i])
            if i < len(self.blocks):
                out += self.blocks[i]
        out.append(f"% end of chapter {idx:03d}")
        assert len(out) == self.n_lines, (len(out), self.n_lines)
        return "\n".join(out) + "\n"

    def prose(self, n: int) -> list[str]:
        rng = self.rng
        lines = []
        for j in range(n):
            if j == n - 1 and n > 1:
                lines.append("")  # paragraph break
            elif rng.random() < 0.08:
                lines.append("% " + self.sentence(5))
            else:
                lines.append(self.sentence())
        return lines
