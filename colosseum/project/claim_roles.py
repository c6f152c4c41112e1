"""What a claim is by its environment and title: to be proved, a definition, a conjecture, or
other (colosseum.graph.status and the linker read it), and whether its title cites the literature.
"""

from __future__ import annotations

import re
from functools import lru_cache

from colosseum.core.lazy_regex import lazy_regex

_ASSERTION = lazy_regex(r"theorem|thm|lemma|lem\b|prop|corollar|cor\b|claim|fact|observ|sublem|result", re.I)
_NON_ASSERTION = lazy_regex(
    r"^(def|dfn|rem|ex|note|notation|conv|conj|question|problem|assum|hyp|axiom|algo|setup|param|"
    r"constr|war|ih|quest|open|case|situation|task|goal|idea|heur|motiv|comment|caveat|notice|"
    r"digress|dig\b|recall|rec\b|non-?ex|nex\b|aside)",
    re.I,
)


_DEFINITION = lazy_regex(r"^(def|dfn|notation|conv|setup|param|constr)", re.I)
# unproved by nature: a proof that rests on one is conditional (colosseum.graph.status)
_CONJECTURE = lazy_regex(r"^(conj|question|quest|problem|open)", re.I)
# assumed by the author: no proof is owed, and what rests on one is not conditional
_ASSUMED = lazy_regex(r"^(axiom|ax\b|assum|hyp|postulate)", re.I)


_CONTROL_WORD = lazy_regex(r"\\([A-Za-z]+)")
_CITATION_NAME = lazy_regex(r"^cite|cites?$|citetext$")


def cites_literature(title: str | None) -> bool:
    """Whether a claim's optional title cites the literature (``[\\cite{X}]``, biblatex's
    ``[\\parencite[p.~3]{X}]`` or ``[{\\Textcite{X}}]``, natbib's ``[\\citep{X}]``): such a claim is
    quoted, not open. A citation command is one whose name, in either case, starts with ``cite``
    (``\\citet``, ``\\citeauthor``, ``\\Cite``) or ends with ``cite``, ``cites`` or ``citetext``
    (``\\autocite``, ``\\footcite``, ``\\textcites``); ``\\nocite`` prints nothing and does not count."""
    if not title or "cite" not in title.lower():
        return False
    return any(_CITATION_NAME.search(name.lower()) and name.lower() not in ("nocite", "nocites")
               for name in _CONTROL_WORD.findall(title))


@lru_cache(maxsize=4096)
def claim_role(env: str, title: str = "", style: str = "plain") -> str:
    """``assertion`` (to be proved: a lemma), ``definition`` (gives meaning: circular definitions
    are errors), ``conjecture`` (open: conjectures, questions, problems; what rests on one is
    conditional), ``assumption`` (assumed: axioms, assumptions, hypotheses; no proof is owed and
    what rests on one is not conditional) or ``other`` (remarks, examples, exercises). By the
    environment's name, then by the name the project declared it with (``\\newtheorem{ax}{Axiom}``)."""
    base = env.rstrip("*")
    for word in (base, title):  # the environment's name, then the name it was declared with
        if word and _ASSUMED.match(word):
            return "assumption"
        if word and _CONJECTURE.match(word):
            return "conjecture"  # (before the assertions: a "problem" is no "lem")
        if word is base and _ASSERTION.search(base):
            return "assertion"
    if title and _ASSERTION.search(title):
        return "assertion"
    for word in (base, title):
        if word and _DEFINITION.match(word):
            return "definition"
    if _NON_ASSERTION.match(base) or (title and _NON_ASSERTION.match(title)):
        return "other"
    if style == "definition":
        return "definition"
    return "other" if style == "remark" else "assertion"


def needs_proof(env: str, title: str = "", style: str = "plain") -> bool:
    """Whether an environment states something to be proved (a lemma) or not (a definition)."""
    return claim_role(env, title, style) == "assertion"
