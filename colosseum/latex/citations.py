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
    # (start, end) of the text each command whose arguments were read looked at: from its backslash
    # through its arguments and the first character after them (colosseum.latex.citations.reread)
    extents: list[tuple[int, int]] = field(default_factory=list)


# what TeX does not read as commands here (colosseum.latex.skipped reads them exactly for the scanner;
# this is the plain case of each): verbatim-like environments, \\verb, \\iffalse ... \\fi
_SKIPPED = lazy_regex(r"\\begin\s*\{(verbatim\*?|Verbatim\*?|lstlisting|minted|comment)\}.*?\\end\s*\{\1\}"
                      r"|\\verb\*?([^A-Za-z\s*])[^\n]*?\2|\\iffalse(?![A-Za-z@]).*?\\fi(?![A-Za-z@])", re.S)


def _blank(m: re.Match) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def _blank_comments(text: str) -> str:
    """Each comment (a ``%`` not after a backslash, to the end of its line) blanked. A loop over
    ``str.find`` in C: the pattern ``(?<!\\)%.*`` starts with a look-behind, which keeps the regular
    expression engine from jumping to the next ``%`` (7 ms on a 10,000-line file, each keystroke)."""
    parts, kept, pos = [], 0, 0
    while (at := text.find("%", pos)) >= 0:
        if at and text[at - 1] == "\\":
            pos = at + 1
            continue
        end = text.find("\n", at)
        if end < 0:
            end = len(text)
        parts += (text[kept:at], " " * (end - at))
        kept = pos = end
    parts.append(text[kept:])
    return "".join(parts)


# what _SKIPPED can match starts with one of these (an environment's name right after its brace)
_SKIPPED_MARKS = ("{verbatim", "{Verbatim", "{lstlisting", "{minted", "{comment", "\\verb", "\\iffalse")


def _without_comments(text: str) -> str:
    """The text with each comment, verbatim text and \\iffalse block blanked (offsets stay the same)."""
    if "%" in text:
        text = _blank_comments(text)
    if any(mark in text for mark in _SKIPPED_MARKS):  # not every \\begin: every file has those
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
    _read_commands(text, out)
    return out


def _read_commands(text: str, out: Citations) -> bool:
    """Every command of a text (comments blanked) read into ``out``; returns whether a reading
    stopped at an argument left open (an unclosed brace or bracket, or blanks to the text's end):
    read in a window of a longer text, what follows the window would have been read too."""
    open_ended = False
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
        while pos < len(text) and text[pos].isspace():  # what the last look for an argument read
            pos += 1
        if pos >= len(text) or text[pos] in "{[":
            open_ended = True
        out.extents.append((m.start(), pos + 1))
    return open_ended


# what an edit may change outside every command's extent and still leave the reading as it was:
# no backslash (a command), %, line break (a comment's end), brace or bracket (an argument)
_EDIT_BREAKS = frozenset("\\%\n{}[]")
_PLAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz \t")  # never \\verb's delimiter
_MAX_WALK = 4096  # letters and blanks looked back over before giving up (a reading afresh is always right)
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz@* \t\n")


def reread(old_text: str, new_text: str, old: Citations, prefix: int, suffix: int) -> Citations | None:
    """The reading of ``new_text`` from ``old`` (the reading of ``old_text``), when the edit
    between them (``prefix`` and ``suffix`` characters in common) provably changes none of it: then
    the items after the edit only move. None when that cannot be shown (read the text again).

    It can be shown when the edit removes and inserts none of ``_EDIT_BREAKS`` (and only letters
    and blanks in a text with a ``\\verb``, whose delimiter can be any other character), does not
    touch a command's extent (its name, arguments, the blank after them), and does not follow a
    command name or an opening brace over letters and blanks (``\\emph`` -> ``\\emphcite``, the
    name of a verbatim environment, a blank between ``\\begin`` and its brace)."""
    old_end, new_end = len(old_text) - suffix, len(new_text) - suffix
    removed, inserted = old_text[prefix:old_end], new_text[prefix:new_end]
    if not _EDIT_BREAKS.isdisjoint(removed) or not _EDIT_BREAKS.isdisjoint(inserted):
        return _reread_lines(old_text, new_text, old, prefix, suffix)
    if not _PLAIN.issuperset(removed + inserted) and ("\\verb" in old_text or "\\verb" in new_text):
        return _reread_lines(old_text, new_text, old, prefix, suffix)
    back = prefix - 1
    while back >= 0 and old_text[back] in _WORD and prefix - back < _MAX_WALK:
        back -= 1
    if back >= 0 and (old_text[back] in "\\{" or prefix - back >= _MAX_WALK):
        return _reread_lines(old_text, new_text, old, prefix, suffix)
    if any(start <= old_end and end >= prefix for start, end in old.extents):
        return _reread_lines(old_text, new_text, old, prefix, suffix)
    delta = len(new_text) - len(old_text)
    if not delta:
        return old
    return Citations(
        keys=[(k, s + delta, e + delta) if s >= old_end else (k, s, e) for k, s, e in old.keys],
        resources=[(c, v, s + delta, e + delta) if s >= old_end else (c, v, s, e) for c, v, s, e in old.resources],
        bibitems=[(k, s + delta, e + delta) if s >= old_end else (k, s, e) for k, s, e in old.bibitems],
        thebibliography=old.thebibliography,
        extents=[(s + delta, e + delta) if s >= old_end else (s, e) for s, e in old.extents])


def _reread_lines(old_text: str, new_text: str, old: Citations, prefix: int, suffix: int) -> Citations | None:
    """The reading of ``new_text`` with only the lines the edit touched read again (a reference or
    label typed in a 10,000-line file): the window is the whole lines around the edit, widened
    to every command whose extent meets it. A comment ends with its line, and a command's reading
    looks only at its extent: the commands outside the window read as before, moved by the edit.
    None (read the whole text) where that cannot be shown: a text with verbatim-like or
    \\iffalse parts (they span lines), a ``thebibliography`` in the window, or a reading in the
    window that runs to its end (an argument left open)."""
    if any(mark in new_text or mark in old_text for mark in _SKIPPED_MARKS):
        return None
    delta = len(new_text) - len(old_text)
    lo, hi = prefix, len(old_text) - suffix
    extents = old.extents
    while True:
        lo = old_text.rfind("\n", 0, lo) + 1
        hi = old_text.find("\n", hi)
        hi = len(old_text) if hi < 0 else hi
        met = [(s, min(e, len(old_text))) for s, e in extents if s <= hi and e >= lo]
        if not met or (min(s for s, _ in met) >= lo and max(e for _, e in met) <= hi):
            break
        lo, hi = min([lo] + [s for s, _ in met]), max([hi] + [e for _, e in met])
    if "thebibliography" in old_text[lo:hi] or "thebibliography" in new_text[lo:hi + delta]:
        return None
    window = Citations()
    if _read_commands(_without_comments(new_text[lo:hi + delta]), window):
        return None

    def moved(items, at):
        before = [item for item in items if item[at] < lo]
        after = [item[:at] + (item[at] + delta, item[at + 1] + delta) + item[at + 2:] for item in items if item[at] >= hi]
        return before, after

    def placed(items, at):
        return [item[:at] + (item[at] + lo, item[at + 1] + lo) + item[at + 2:] for item in items]

    out = Citations(thebibliography=old.thebibliography)
    for name, at in (("keys", 1), ("resources", 2), ("bibitems", 1), ("extents", 0)):
        before, after = moved(getattr(old, name), at)
        setattr(out, name, before + placed(getattr(window, name), at) + after)
    return out
