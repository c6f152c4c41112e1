"""A claim's statement as the author reads it in a hover or a completion: without its optional
title, its \\label and the blueprint's commands; references shown as the labels they name and
citations as ``[key]`` (pylatexenc's latex-to-text would print ``<ref>`` and ``<cit.>``)."""

from __future__ import annotations

import re
from typing import Callable

from colosseum.latex.macros import LIST_REF_COMMANDS, RANGE_REF_COMMANDS, SINGLE_REF_COMMANDS

HOVER_LIMIT = 1500

_NAMED_REFS = {"cref", "Cref", "autoref", "Autoref", "vref", "Vref", "labelcref"}  # print the kind too
_REF = re.compile(r"\\(%s)\*?(?:\[[^\]]*\])?\{([^{}]*)\}(?:\{([^{}]*)\})?" % "|".join(
    sorted(SINGLE_REF_COMMANDS + LIST_REF_COMMANDS + RANGE_REF_COMMANDS, key=len, reverse=True)))
_CITE = re.compile(r"\\(?:[Cc]ite[a-z]*|[a-z]*cite[a-z]*)\*?((?:\[[^\]]*\]){0,2})\{([^{}]*)\}")
# commands that carry structure, not text: dropped with their argument
_DROPPED = re.compile(r"\\(?:label|uses|proves|lean|discussion)\{[^{}]*\}|\\(?:leanok|notready|mathlibok|obligation)\b")


def _after_title(latex: str) -> str:
    """The statement without the ``[title]`` its environment opens with (brackets inside braces
    or nested brackets belong to the title: ``[Lovász~\\cite[Thm.~1]{x}]``)."""
    stripped = latex.lstrip()
    if not stripped.startswith("["):
        return latex
    braces = brackets = 0
    for i, c in enumerate(stripped):
        if c == "{":
            braces += 1
        elif c == "}":
            braces -= 1
        elif c == "[" and braces == 0:
            brackets += 1
        elif c == "]" and braces == 0:
            brackets -= 1
            if brackets == 0:
                return stripped[i + 1:]
    return latex


def clean_statement(latex: str, describe: Callable[[str], str] | None = None) -> str:
    """The statement's LaTeX with the title, labels and blueprint commands gone, and references and
    citations written out (``describe(label)`` names a label for \\cref; the label itself by default)."""
    describe = describe or (lambda label: label)

    def reference(m: re.Match) -> str:
        labels = [part.strip() for part in m.group(2).split(",") if part.strip()]
        if m.group(1) in RANGE_REF_COMMANDS and m.group(3) is not None:
            return f"{describe(labels[0]) if labels else ''} to {m.group(3).strip()}"
        if m.group(1) in _NAMED_REFS:
            return ", ".join(describe(label) for label in labels)
        if m.group(1) == "eqref":
            return f"({', '.join(labels)})"
        return ", ".join(labels)

    def citation(m: re.Match) -> str:
        notes = [note for note in re.findall(r"\[([^\]]*)\]", m.group(1)) if note.strip()]
        keys = [key.strip() for key in m.group(2).split(",") if key.strip()]
        return "[" + ", ".join(keys + notes[-1:]) + "]"

    text = _DROPPED.sub("", _after_title(latex))
    return _CITE.sub(citation, _REF.sub(reference, text))


def first_line(latex: str) -> str:
    """The statement's first line of text (for a completion's documentation)."""
    text = clean_statement(latex[:2000])
    return next((line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("%")), "")


def as_text(latex: str, describe: Callable[[str], str] | None = None, limit: int = HOVER_LIMIT) -> str:
    """Readable text (pylatexenc's latex-to-text after ``clean_statement``), shortened to ``limit``."""
    from pylatexenc.latex2text import LatexNodes2Text

    latex = clean_statement(latex[:6000], describe)
    try:
        text = LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=True).latex_to_text(latex)
    except Exception:  # pylatexenc is strict on some broken input; the raw text still helps
        text = latex
    # a ~ comes out as a no-break space: a plain one reads the same in an editor's hover
    text = "\n".join(line.rstrip() for line in text.replace("\xa0", " ").strip().splitlines() if line.strip())
    return text if len(text) <= limit else text[:limit] + " …"
