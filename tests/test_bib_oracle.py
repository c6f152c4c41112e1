"""The project's own .bib reader (colosseum.project.bibliography) against a maintained parser,
bibtexparser 1.x (a test dependency only): the same keys, entry types and the fields hover shows,
on the example project's bibliography and on the forms .bib files use."""

from __future__ import annotations

from pathlib import Path

import pytest

from colosseum.project.bibliography import read_bib

bibtexparser = pytest.importorskip("bibtexparser")

REPO = Path(__file__).resolve().parents[1]

FORMS = r"""
@string{jcss = "Journal of Computer and System Sciences"}
@comment{anything {at all} here}
@preamble{"\newcommand{\noop}[1]{}"}
@Article{Braced:2001,
  author    = {Alice {van} Dam and Bob B{\"o}hm},
  title     = {A {Study} of {\LaTeX} Things},
  journal   = jcss,
  year      = 2001,
  pages     = "1--10",
}
@book(paren-key,
  title = "Quoted {Title} with {\"i}nner braces",
  year = "1999"
)
@inproceedings{concat,
  title = "Part one" # { and two},
  booktitle = {Proc.},
  year = {2020}}
@misc{nofields}
"""


def _oracle(text: str) -> dict[str, tuple[str, dict[str, str]]]:
    parser = bibtexparser.bparser.BibTexParser(common_strings=True, ignore_nonstandard_types=False,
                                               interpolate_strings=False)
    db = bibtexparser.loads(text, parser=parser)
    return {e["ID"]: (e["ENTRYTYPE"].lower(), {k: v for k, v in e.items() if k not in ("ID", "ENTRYTYPE")})
            for e in db.entries}


def _plain(value: str) -> str:
    return " ".join(value.replace("{", "").replace("}", "").split())


@pytest.mark.parametrize("text", [FORMS, (REPO / "example-project" / "refs.bib").read_text(encoding="utf-8")],
                         ids=["forms", "example-project"])
@pytest.mark.filterwarnings("ignore")
def test_the_reader_finds_what_bibtexparser_finds(text):
    ours = read_bib(text)
    assert ours.problems == []
    expected = _oracle(text)
    # an entry with no field defines its key for BibTeX; bibtexparser 1.x leaves it out
    assert [e.key for e in ours.entries if e.fields] == list(expected)
    assert ("nofields" in [e.key for e in ours.entries]) == ("@misc{nofields}" in text)
    for entry in [e for e in ours.entries if e.fields]:
        kind, fields = expected[entry.key]
        assert entry.entry_type == kind
        for name in ("title", "author", "year", "booktitle"):
            if name in fields and "#" not in text.split(entry.key, 1)[1].split("@", 1)[0]:
                assert entry.fields[name] == _plain(fields[name]), (entry.key, name)
