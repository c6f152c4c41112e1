"""A claim's title as a reader sees it, for drawings: the common text macros taken away, math kept.

Not a LaTeX renderer: ``\\emph{x}`` is ``x``, ``\\cref{lem:a}`` is ``lem:a`` (the label a drawing
shows), ``$...$`` stays as written (a mathematician reads it as is), any other ``\\macro{x}`` is
``x`` and a bare ``\\macro`` is dropped."""

from __future__ import annotations

import re
import unicodedata

_MATH = re.compile(r"(\$\$.*?\$\$|\$(?:\\.|[^$\\])*\$|\\\(.*?\\\)|\\\[.*?\\\])", re.S)
_REFERENCE = re.compile(r"\\(?:[cC]ref|[vV]ref|ref|autoref|nameref|pageref)\*?\{([^{}]*)\}")
_EQREF = re.compile(r"\\eqref\{([^{}]*)\}")
_CITE = re.compile(r"\\cite[tp]?\*?(?:\[[^\]]*\])?\{([^{}]*)\}")
_WITH_ARGUMENT = re.compile(r"\\[A-Za-z@]+\*?(?:\[[^\]]*\])?\{([^{}]*)\}")
_BARE = re.compile(r"\\[A-Za-z@]+\*?\s*")
_ACCENT = re.compile(r"\\(['`^\"~=.])\{?([A-Za-z])\}?")
_COMBINING = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
              ".": "\u0307"}
_SYMBOLS = (("---", "\u2014"), ("--", "\u2013"), ("``", "\u201c"), ("''", "\u201d"), ("~", " "),
            ("\\\\", " "), ("\\&", "&"), ("\\%", "%"), ("\\_", "_"), ("\\#", "#"), ("\\,", " "))


def _text_part(text: str) -> str:
    text = _ACCENT.sub(lambda m: unicodedata.normalize("NFC", m.group(2) + _COMBINING[m.group(1)]), text)
    text = _REFERENCE.sub(lambda m: m.group(1).replace(",", ", "), text)
    text = _EQREF.sub(lambda m: f"({m.group(1)})", text)
    text = _CITE.sub(lambda m: f"[{m.group(1)}]", text)
    for _ in range(4):  # nested text macros, innermost first: \textbf{\emph{x}}
        text, count = _WITH_ARGUMENT.subn(r"\1", text)
        if not count:
            break
    for source, target in _SYMBOLS:
        text = text.replace(source, target)
    text = _BARE.sub("", text)
    return text.replace("{", "").replace("}", "")


def latex_to_text(latex: str | None) -> str:
    """``latex`` with its text macros taken away and its math kept; "" for None."""
    if not latex:
        return ""
    parts = _MATH.split(latex)
    # split with one group: the odd parts are the math
    text = "".join(part if i % 2 else _text_part(part) for i, part in enumerate(parts))
    return re.sub(r"\s+", " ", text).strip()
