"""A keystroke inside a paragraph or a proof (no command, brace, comment or line break typed)
runs none of the index's project-wide stages: no file is read afresh for its citations, no
root signature of the text before the edit is computed again, the theorem declarations and the
external documents of every file are not gathered again, nothing is scanned in full, discovered
or walked. Counted (calls), not timed; and the findings after it are those of a cold index.

The citations' reading of an edited file is carried over from its reading before the edit
(``colosseum.latex.citations.reread``) only when that is provably what a reading afresh gives:
checked here on random edits against ``read_citations``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import colosseum.checks.citations as citation_checks
import colosseum.index.project_index as project_index
from colosseum.index import ProjectIndex
from colosseum.latex.citations import read_citations, reread
from colosseum.latex.incremental import common_prefix, common_suffix
from colosseum.project.walk import Walk

MAIN = r"""\documentclass{article}
\usepackage{amsthm}
\newtheorem{lemma}{Lemma}
\newtheorem{principle}{Principle}
\begin{document}
\input{chapters/one}
\input{chapters/two}
\bibliography{refs}
\end{document}
"""

ONE = r"""\section{One}\label{sec:one}

Plain words of a paragraph, and more words after them.

\begin{lemma}\label{lem:a}
A statement about words, see \cite{knuth84}.
\end{lemma}
\begin{proof}
By \cref{lem:b}, the words follow. Another sentence of the proof.
\end{proof}

\begin{principle}\label{pr:a}
Uses \cref{lem:a} and \cite{nobody}.
\end{principle}
"""

TWO = r"""\section{Two}\label{sec:two}

\begin{lemma}\label{lem:b}
Another statement, by \cref{sec:one}.
\end{lemma}

Closing words, with \ref{missing:label}.
"""

BIB = "@book{knuth84, title={The TeXbook}, author={Knuth}, year={1984}}\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "chapters").mkdir()
    (tmp_path / "main.tex").write_text(MAIN, encoding="utf-8")
    (tmp_path / "chapters" / "one.tex").write_text(ONE, encoding="utf-8")
    (tmp_path / "chapters" / "two.tex").write_text(TWO, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    return tmp_path


class Counts:
    """Calls of the index's project-wide stages, counted through wrappers."""

    STAGES = {
        "citations read afresh": (citation_checks, "read_citations"),
        "root signatures": (project_index, "root_signature"),
        "external documents gathered": (project_index, "_external_documents"),
        "full scans": (project_index, "scan"),
        "theorem declarations gathered": (Walk, "scanned"),
        "discoveries": (ProjectIndex, "_discover"),
    }

    def __init__(self, monkeypatch):
        self.calls = dict.fromkeys(self.STAGES, 0)
        for stage, (owner, name) in self.STAGES.items():
            monkeypatch.setattr(owner, name, self._counted(stage, getattr(owner, name)))

    def _counted(self, stage, fn):
        def run(*args, **kwargs):
            self.calls[stage] += 1
            return fn(*args, **kwargs)
        return run

    def reset(self) -> None:
        self.calls = dict.fromkeys(self.calls, 0)


def _same_findings(index: ProjectIndex, root: Path) -> None:
    cold = ProjectIndex.open(root)
    assert index.diagnostics() == cold.diagnostics()


def test_a_keystroke_in_a_paragraph_runs_no_project_wide_stage(project, monkeypatch):
    index = ProjectIndex.open(project)
    counts = Counts(monkeypatch)
    texts = {"one": ONE, "two": TWO}
    # the first keystroke in each file also reads the root signature of the text it started from
    steps = [("one", "w", "more words"), ("two", "w", "Closing words")]
    steps += [("one", "x", "Plain words"), ("one", " y", "the words follow"), ("two", "z", "Another statement, by"),
              ("one", "q", "Uses \\cref{lem:a} and")]
    for k, (name, typed, after) in enumerate(steps):
        path = (project / "chapters" / f"{name}.tex").resolve()
        at = texts[name].index(after) + len(after)
        texts[name] = texts[name][:at] + typed + texts[name][at:]
        counts.reset()
        index.update_document(path, texts[name])
        if k >= 2:
            assert counts.calls == {"citations read afresh": 0, "root signatures": 1, "external documents gathered": 0,
                                    "full scans": 0, "theorem declarations gathered": 0, "discoveries": 0}, typed
            assert index.last_work.files_walked == 0 and index.last_work.chunks_analysed == 1
        path.write_text(texts[name], encoding="utf-8")
        _same_findings(index, project)


def test_a_structural_keystroke_still_runs_them(project, monkeypatch):
    """The counters count: typing a citation across a line break reads the file afresh (a typed
    citation on one line reads that line only), a declaration gathers them."""
    index = ProjectIndex.open(project)
    counts = Counts(monkeypatch)
    one = (project / "chapters" / "one.tex").resolve()
    index.update_document(one, ONE.replace("Plain words", "Plain \\cite{knuth84} words"))
    assert counts.calls["citations read afresh"] == 0
    cited = ONE.replace("Plain words", "Plain \\cite{knuth84,\n} words")
    index.update_document(one, cited)
    assert counts.calls["citations read afresh"] == 0
    cited = ONE.replace("Plain words", "Plain \\cite{knuth84} words\n\\begin{verbatim}\n\\end{verbatim}")
    index.update_document(one, cited)
    assert counts.calls["citations read afresh"] == 1
    one.write_text(cited, encoding="utf-8")
    _same_findings(index, project)
    counts.reset()
    declared = cited.replace("\\section{One}", "\\newtheorem{axiom}{Axiom}\n\\section{One}")
    index.update_document(one, declared)
    assert counts.calls["theorem declarations gathered"] == 1
    one.write_text(declared, encoding="utf-8")
    _same_findings(index, project)


CITATION_TEXTS = [
    "Words \\cite{a,b} and \\citep[p.~3]{c} more words.\n% a comment \\cite{hidden}\nNext \\cites{d}{e} line.\n",
    "\\begin{verbatim}\n\\cite{v}\n\\end{verbatim}\nText \\verb|\\cite{w}| and \\cite{x}.\n",
    "\\iffalse \\cite{y} \\fi after \\nocite{z} \\bibliography{refs,more}\n\\addbibresource{x.bib}\n",
    "\\begin{thebibliography}{9}\n\\bibitem[K]{knuth} Knuth.\n\\end{thebibliography}\n\\emph{cite} \\cite {spaced}\n",
    "Plain text only, no commands at all.\n\nA second paragraph \\cite{\n} open \\cite{k1 k2}\n",
]
ALPHABET = "abcz XY\t1.,:$@*|\\{}[]%\n~#"


@pytest.mark.parametrize("seed", range(6))
def test_a_reading_carried_over_is_the_reading_afresh(seed):
    rng = random.Random(seed)
    carried = 0
    for _ in range(400):
        old = rng.choice(CITATION_TEXTS)
        for _step in range(rng.randrange(4)):  # a few edits first: texts of every shape
            at = rng.randrange(len(old) + 1)
            old = old[:at] + rng.choice(ALPHABET) + old[at:]
        at = rng.randrange(len(old) + 1)
        cut = min(len(old), at + rng.choice((0, 0, 1, 2)))
        typed = "".join(rng.choice(ALPHABET if rng.random() < 0.3 else "abc xyz") for _ in range(rng.choice((0, 1, 1, 3))))
        new = old[:at] + typed + old[cut:]
        prefix = common_prefix(old, new)
        suffix = common_suffix(old, new, min(len(old), len(new)) - prefix)
        got = reread(old, new, read_citations(old), prefix, suffix)
        if got is not None:
            carried += 1
            assert got == read_citations(new), (old, new)
    assert carried > 50  # not vacuous: many of these edits are carried over


def test_the_catalog_findings_of_a_publication_look_at_the_claims_it_names_only(monkeypatch):
    """They are made again at every publication (each keystroke): the paper's thousands of other
    claims have no evidence in the catalog, and are not looked at."""
    from types import SimpleNamespace

    import colosseum.catalog.evidence as evidence
    from colosseum.catalog.checks import counterexample_diagnostics
    from colosseum.core.structure import Location, Position, Range

    asked: list = []
    real = evidence.evidence_by_claim
    monkeypatch.setattr(evidence, "evidence_by_claim", lambda catalog, labels: asked.append(set(labels)) or real(catalog, labels))
    entry = SimpleNamespace(id="e1", status="active", links={"labels": ["lem:3"]}, file=Path("k/e1.md"), data={
        "evidence": [{"type": "computation", "verdict": "counterexample", "counterexample": "n = 4"}]})
    catalog = SimpleNamespace(entries={"e1": entry})
    where = Location(Path("a.tex"), Range(Position(0, 0), Position(0, 1)))
    claims = {f"lem:{i}": SimpleNamespace(file=Path("a.tex"), location=where) for i in range(1000)}
    found = counterexample_diagnostics(catalog, SimpleNamespace(claims=claims))
    assert asked == [{"lem:3"}]
    assert [d.code for d in found] == ["colosseum/counterexample-found"] and "n = 4" in found[0].message
