"""The notation of a paper, as every prover and reviewer is given it: the macro definitions of
its roots' preambles (the inner loop's provers and the local reviewer read the same)."""

from __future__ import annotations

import re
from pathlib import Path

MAX_NOTATION_LINES = 200
_NOTATION = re.compile(r"^\s*\\(?:newcommand|renewcommand|providecommand|DeclareMathOperator|def|let)\b.*$", re.M)


def preamble_notation(index) -> str:
    """The macro definitions of the roots' preambles: the provers must read the notation."""
    lines: list[str] = []
    for root in index.roots:
        ft = index.text_of(Path(root))
        if ft is None:
            continue
        preamble = ft.text.split("\\begin{document}", 1)[0]
        lines += [m.group().strip() for m in _NOTATION.finditer(preamble)]
    return "\n".join(dict.fromkeys(lines[:MAX_NOTATION_LINES]))
