"""Citations in a LaTeX text: the keys of ``\\cite``-family commands (natbib, biblatex), the
bibliography files it names (``\\bibliography{a,b}``, biblatex's ``\\addbibresource{a.bib}``) and
the keys ``\\bibitem`` defines (a ``thebibliography`` environment).

A light reading of its own, apart from the scanner: comments are skipped; the command names are
those colosseum.project.claim_roles counts as citations (a name starting with ``cite`` or ending
with ``cite``, ``cites`` or ``citetext``, and ``\\nocite``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from colosseum.core.lazy_regex import lazy_regex

_COMMAND = lazy_regex(r"\\([A-Za-z]*cite[A-Za-z]*|bibliography|addbibresource|addglobalbib|addsectionbib|bibitem)"
                      r"(?![A-Za-z@])\*?")
_CITATION_NAME = lazy_regex(r"^cite|cites?$")
_OPTIONAL = lazy_regex(r"\s*\[[^\]]*\]")
_THEBIBLIOGRAPHY = lazy_regex(r"\\begin\s*\{thebibliography\}")
_COMMENT = lazy_regex(r"(?<!\\)%.*")
# names that look like citations but set things up (natbib's \citestyle{plain}, biblatex's resets)
_NOT_CITING = frozenset({"citestyle", "citeindextrue", "citeindexfalse", "citeindextype", "citereset",
                         "citeresetsection", "citeresetchapter", "citeauthorreset"})
# a key as written; a macro parameter (#1 in a wrapper's definition) or a command is none
_KEY = lazy_regex(r"[^\s\\#{}%~,]+")


@dataclass(slots=True)
class Citations:
    """What one file says about citations; offsets are into its text."""

    keys: list[tuple[str, int, int]] = field(default_factory=list)  # cited key, start, end
    resources: list[tuple[str, str, int, int]] = field(default_factory=list)  # command, file name, start, end
    bibitems: list[tuple[str, int, int]] = field(default_factory=list)
    thebibliography: bool = False


# what TeX does not read as commands here (colosseum.latex.skipped reads them exactly for the scanner;
# this is the plain case of each): verbatim-like environments, \\verb, \\iffalse ... \\fi
_SKIPPED = lazy_regex(r"\\begin\s*\{(verbatim\*?|Verbatim\*?|lstlisting|minted|comment)\}.*?\\end\s*\{\1\}"
                      r"|\\verb\*?([^A-Za-z\s*])[^\n]*?\2|\\iffalse(?![A-Za-z@]).*?\\fi(?![A-Za-z@])", re.S)


def _blank(m: re.Match) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def _without_comments(text: str) -> str:
    """The text with each comment, verbatim text and \\iffalse block blanked (offsets stay the same)."""
    if "%" in text:
        text = _COMMENT.sub(lambda m: " " * len(m.group(0)), text)
    if "\\begin" in text or "\\verb" in text or "\\iffalse" in text:
        text = _SKIPPED.sub(_blank, text)
    return text


def _group(text: str, pos: int) -> tuple[int, int, int] | None:
    """The braced argument at ``pos`` (spaces allowed before it): (inner start, inner end, after)."""
    while pos < len(text) and text[pos] in " \t\n":
        pos += 1
    if pos >= len(text) or text[pos] != "{":
        return None
    depth, end = 0, pos
    while end < len(text):
        if text[end] == "{":
            depth += 1
        elif text[end] == "}":
            depth -= 1
            if depth == 0:
                return pos + 1, end, end + 1
        end += 1
    return None


def _items(text: str, start: int, end: int) -> list[tuple[str, int, int]]:
    out, pos = [], start
    for part in text[start:end].split(","):
        stripped = part.strip()
        if stripped:
            at = pos + part.index(stripped)
            out.append((stripped, at, at + len(stripped)))
        pos += len(part) + 1
    return out


def read_citations(text: str) -> Citations:
    out = Citations()
    if "\\" not in text:
        return out
    text = _without_comments(text)
    out.thebibliography = _THEBIBLIOGRAPHY.search(text) is not None
    for m in _COMMAND.finditer(text):
        name, pos = m.group(1), m.end()
        lower = name.lower()
        citing = lower not in ("bibliography", "addbibresource", "addglobalbib", "addsectionbib", "bibitem")
        if citing and (not _CITATION_NAME.search(lower) or lower in _NOT_CITING):
            continue
        while (opt := _OPTIONAL.match(text, pos)) is not None:  # \cite[p.~3]{x}, \bibitem[label]{x}
            pos = opt.end()
        # biblatex's multicite commands (\cites{a}{b}) take several groups
        while (group := _group(text, pos)) is not None:
            s, e, pos = group
            if name == "bibitem":
                out.bibitems.extend(item for item in _items(text, s, e)[:1] if _KEY.fullmatch(item[0]))
            elif not citing:
                out.resources.extend((name, value, vs, ve) for value, vs, ve in _items(text, s, e))
            else:
                out.keys.extend(item for item in _items(text, s, e) if _KEY.fullmatch(item[0]) and item[0] != "*")
            if not lower.endswith("cites"):
                break
            while (opt := _OPTIONAL.match(text, pos)) is not None:
                pos = opt.end()
    return out
