"""A synthetic blueprint of N claims for the dependency-graph page (bench/run.py --only dag-html and
tests/test_dag_html_browser.py): chapters of 50 claims, each proof citing one to three earlier
claims, most of them close by (the same chapter), some far back (a chapter's results used much later),
which is what makes a real graph's edges cross many ranks; one claim in 40 is open (no proof). Titles carry a little LaTeX. A pure
function of the parameters: the same call writes the same files.

    python bench/synthetic_claims.py OUT_DIR [--claims 2500] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

KINDS = ("lemma", "lemma", "lemma", "proposition", "theorem", "corollary")
PER_CHAPTER = 50
OPEN_EVERY = 40  # one claim in 40 has no proof yet
PREAMBLE = ("\\documentclass{article}\n\\usepackage{amsthm}\n"
            + "".join(f"\\newtheorem{{{k}}}{{{k.title()}}}\n" for k in sorted(set(KINDS))) + "\\begin{document}\n")


def claim_label(i: int) -> str:
    return f"{KINDS[i % len(KINDS)][:3]}:c{i:05d}"


def chapter_text(chapter: int, first: int, last: int, rng: random.Random) -> str:
    out = [f"\\section{{Chapter {chapter}}}\\label{{sec:ch{chapter:03d}}}\n"]
    for i in range(first, last):
        kind = KINDS[i % len(KINDS)]
        cited = set()
        for _ in range(rng.randint(1, 3) if i else 0):
            near = rng.random() < 0.8
            cited.add(rng.randrange(max(first, i - 30), i) if near and i > first else rng.randrange(0, i))
        refs = ", ".join(f"\\cref{{{claim_label(j)}}}" for j in sorted(cited))
        title = f"Bound {i} for $\\mathcal{{F}}_{{{i % 7}}}$" if i % 3 == 0 else f"Step {i} of \\emph{{chapter {chapter}}}"
        if i % OPEN_EVERY == OPEN_EVERY - 1:  # open: no proof, its uses in the statement (dependents conditional)
            out.append(f"\\begin{{{kind}}}[{title}]\\label{{{claim_label(i)}}}\nGiven {refs or 'nothing'}, a statement."
                       f"\\end{{{kind}}}\n")
            continue
        out.append(f"\\begin{{{kind}}}[{title}]\\label{{{claim_label(i)}}}\nA statement.\\end{{{kind}}}\n"
                   f"\\begin{{proof}}{'By ' + refs + '.' if refs else 'Clear.'}\\end{{proof}}\n")
    return "".join(out)


def write_claims_project(root: str | Path, n_claims: int = 2500, seed: int = 1) -> Path:
    """Writes main.tex and one chapters/chNNN.tex per 50 claims under root; returns root."""
    root = Path(root)
    (root / "chapters").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    names = []
    for chapter, first in enumerate(range(0, n_claims, PER_CHAPTER), start=1):
        name = f"chapters/ch{chapter:03d}"
        (root / f"{name}.tex").write_text(chapter_text(chapter, first, min(n_claims, first + PER_CHAPTER), rng),
                                          encoding="utf-8")
        names.append(name)
    (root / "main.tex").write_text(PREAMBLE + "".join(f"\\input{{{n}}}\n" for n in names) + "\\end{document}\n",
                                   encoding="utf-8")
    return root


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--claims", type=int, default=2500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print(write_claims_project(args.out_dir, args.claims, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
