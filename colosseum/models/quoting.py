"""Quoted data in prompts: paper text, catalog entries, earlier answers. Each quoted value goes
between tags whose name carries a hash of the value itself, ``<document-3f9a2c1e name="...">`` and
``</document-3f9a2c1e>``, so no value can close its own quote: to do so it would have to contain
the hash of a text that contains it. The tag depends only on the text, so a prompt built twice
from the same paper is the same prompt (provider prompt caching and the answer cache keep working).

Values put into a prompt outside any fence (a slot number, a label in a sentence) are made inline:
no angle brackets, no line breaks, so they cannot open or close a tag either."""

from __future__ import annotations

import hashlib

FENCE_DIGITS = 8  # hex digits of sha256 in a tag; more only when the text holds the closing tag


def fence_tag(kind: str, text: str, digits: int = FENCE_DIGITS) -> str:
    """``kind-<hex>``: the shortest prefix (at least ``digits`` long) of the text's sha256 whose
    closing tag the text does not contain, in any letter case."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    lowered = text.lower()
    for length in range(digits, len(digest) + 1):
        tag = f"{kind}-{digest[:length]}"
        if f"</{tag}" not in lowered:
            return tag
    # only a text holding the closing tag of its own full sha256 gets here: a hash preimage
    raise ValueError("a text contains the closing tag of its own full hash")


def fence(kind: str, text: str, *, name: str | None = None, digits: int = FENCE_DIGITS) -> str:
    """``text`` between an opening and a closing tag that ``text`` cannot contain; ``name``, when
    given, is an attribute of the opening tag (escaped, so it cannot end the tag)."""
    tag = fence_tag(kind, text, digits)
    attribute = "" if name is None else f' name="{attribute_text(name)}"'
    return f"<{tag}{attribute}>\n{text}\n</{tag}>"


def attribute_text(value: str) -> str:
    """A value safe inside a double-quoted attribute of a tag."""
    return inline(value).replace('"', "&quot;")


def inline(value: str) -> str:
    """A value safe outside any fence: it can neither open nor close a tag nor start a line."""
    return (str(value).replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", " ").replace("\n", " "))
