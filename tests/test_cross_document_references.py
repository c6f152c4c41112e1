"""References across documents (issue 15, xr / xr-hyper): each document's labels are its own.

The index draws one graph for the whole folder; a reference makes an edge to the claim its
document can see: a label of a root that reads the referring file, or one that a root reading it
names through ``\\externaldocument[prefix]{doc}`` (with or without a prefix: prefix+label resolves
in ``doc`` only). A reference LaTeX leaves undefined makes no edge, as it makes an
undefined-reference finding; a prefix resolves only in the document it was declared for."""

from __future__ import annotations

from colosseum.checks.findings import compute_diagnostics
from colosseum.index import ProjectIndex

HEAD = ("\\documentclass{article}\n\\usepackage{amsthm}\n\\usepackage{xr}\n@XR@\\newtheorem{lemma}{Lemma}\n"
        "\\newtheorem{theorem}{Theorem}\n\\begin{document}\n")
END = "\\end{document}\n"


def document(body: str, xr: str = "") -> str:
    return HEAD.replace("@XR@", xr) + body + END


def claim(kind: str, label: str, proof: str) -> str:
    return f"\\begin{{{kind}}}\\label{{{label}}}\nA statement.\n\\end{{{kind}}}\n\\begin{{proof}}\n{proof}\n\\end{{proof}}\n"


def edges(index) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.kind) for e in index.graph.edges if e.kind != "contains"}


def undefined(index) -> set[tuple[str, str]]:
    return {(d.file.name, d.message.split("`")[1]) for d in compute_diagnostics(index)
            if d.code == "colosseum/undefined-reference"}


# one.tex: an obligation lem:a; two.tex names one.tex without a prefix and uses lem:a; three.tex
# names no document and uses lem:a all the same (LaTeX: undefined there)
UNPREFIXED = {
    "one.tex": document(claim("lemma", "lem:a", "\\obligation\nA sketch.")),
    "two.tex": document(claim("theorem", "thm:b", "By Lemma~\\ref{lem:a}."), xr="\\externaldocument{one}\n"),
    "three.tex": document(claim("theorem", "thm:c", "By Lemma~\\ref{lem:a}.")),
}


def test_an_unprefixed_reference_through_externaldocument_is_an_edge_and_resolves(make_project, tmp_path):
    root = make_project(tmp_path, UNPREFIXED)
    index = ProjectIndex.open(root)
    assert ("lem:a", "thm:b", "proof-uses") in edges(index)
    assert index.graph.status["thm:b"] == "conditional"  # it rests on the other document's obligation
    [label] = index.snapshot.labels_through_documents("lem:a", root / "two.tex")
    assert label.location.file.name == "one.tex"  # definition and hover
    assert ("two.tex", "lem:a") not in undefined(index)


def test_a_reference_to_another_documents_label_without_externaldocument_makes_no_edge(make_project, tmp_path):
    index = ProjectIndex.open(make_project(tmp_path, UNPREFIXED))
    # undefined for LaTeX and for the check: so no edge either, and thm:c rests on nothing open
    assert ("three.tex", "lem:a") in undefined(index)
    assert not {e for e in edges(index) if e[1] == "thm:c"}
    assert index.graph.status["thm:c"] == "proved"


def test_a_prefix_resolves_only_in_the_document_declared_with_it(make_project, tmp_path):
    # main-a names chap-a with the prefix A-, main-b names chap-b with the same prefix: A-thm:y in
    # main-a is undefined (thm:y is chap-b's), and must not become an edge through main-b's document
    root = make_project(tmp_path, {
        "chap-a.tex": document(claim("lemma", "lem:x", "Clear.")),
        "chap-b.tex": document(claim("lemma", "lem:y", "\\obligation\nA sketch.")),
        "main-a.tex": document(claim("theorem", "thm:a", "By \\ref{A-lem:x} and \\ref{A-lem:y}."),
                               xr="\\externaldocument[A-]{chap-a}\n"),
        "main-b.tex": document(claim("theorem", "thm:b", "By \\ref{A-lem:y}."), xr="\\externaldocument[A-]{chap-b}\n"),
    })
    index = ProjectIndex.open(root)
    found = edges(index)
    assert ("lem:x", "thm:a", "proof-uses") in found and ("lem:y", "thm:b", "proof-uses") in found
    assert ("lem:y", "thm:a", "proof-uses") not in found
    assert undefined(index) == {("main-a.tex", "A-lem:y")}
    assert index.graph.status["thm:a"] == "proved" and index.graph.status["thm:b"] == "conditional"
    assert index.snapshot.labels_through_documents("A-lem:y", root / "main-a.tex") == []
    [label] = index.snapshot.labels_through_documents("A-lem:y", root / "main-b.tex")
    assert label.location.file.name == "chap-b.tex"


def test_edges_across_documents_follow_edits_like_a_cold_index(make_project, tmp_path):
    from test_incremental_index import Mirror
    files = dict(UNPREFIXED)
    files["four.tex"] = document(claim("theorem", "thm:d", "By \\ref{P-lem:a}."), xr="\\externaldocument[P-]{one}\n")
    mirror = Mirror(make_project(tmp_path / "src", files), tmp_path / "work")
    steps = [
        ("three.tex", lambda t: t.replace("\\usepackage{xr}\n", "\\usepackage{xr}\n\\externaldocument{one}\n"),
         "three.tex now names one.tex"),
        ("three.tex", lambda t: t.replace("\\externaldocument{one}\n", ""), "and no longer"),
        ("three.tex", lambda t: t.replace("\\end{proof}\n", "\\end{proof}\n" + claim("lemma", "lem:a", "Clear."), 1),
         "three.tex defines a lem:a of its own"),
        ("three.tex", lambda t: t.replace("\\label{lem:a}", "\\label{lem:own}"), "and renames it"),
        ("two.tex", lambda t: t.replace("\\externaldocument{one}", "\\externaldocument[P-]{one}"), "a prefix now"),
        ("two.tex", lambda t: t.replace("\\ref{lem:a}", "\\ref{P-lem:a}"), "the reference follows"),
        ("one.tex", lambda t: t.replace("\\label{lem:a}", "\\label{lem:z}"), "the label renamed in its document"),
        ("one.tex", lambda t: t.replace("\\label{lem:z}", "\\label{lem:a}"), "and back"),
        ("four.tex", lambda t: t.replace("\\externaldocument[P-]{one}", "\\externaldocument[P-]{three}"),
         "four.tex names another document with the same prefix"),
    ]
    for rel, change, what in steps:
        before = mirror.texts[rel]
        mirror.edit(rel, change(before))
        assert mirror.texts[rel] != before, what
        mirror.check(what)


CROSS_SNIPPETS = ["\\label{lem:a}", "\\ref{lem:a}", "\\ref{P-lem:a}", "\\ref{P-thm:b}", "\\externaldocument{one}\n",
                  "\\externaldocument[P-]{two}\n", "\\externaldocument[P-]{one}\n", "\\obligation", "\n",
                  "\\begin{lemma}\\label{lem:a}X.\\end{lemma}\n", "\\begin{proof}By \\ref{P-lem:a}.\\end{proof}\n",
                  "\\input{one}\n", "}", ""]


def test_random_edits_across_documents_match_a_cold_index(make_project, tmp_path):
    import random

    from test_incremental_index import Mirror, _splice
    files = dict(UNPREFIXED)
    files["four.tex"] = document(claim("theorem", "thm:d", "By \\ref{P-lem:a}."), xr="\\externaldocument[P-]{one}\n")
    mirror = Mirror(make_project(tmp_path / "src", files), tmp_path / "work")
    rng = random.Random(19)
    names = sorted(mirror.texts)
    for n in range(40):
        target = rng.choice(names)
        inserted = "".join(rng.choice(CROSS_SNIPPETS) for _ in range(rng.randint(1, 2)))
        text = mirror.texts[target]
        # after \begin{document} mostly, where references and claims are read
        start = text.find("\\begin{document}") + len("\\begin{document}") if rng.random() < 0.8 else 0
        mirror.edit(target, text[:start] + _splice(text[start:], rng.random(), rng.randint(0, 20), inserted))
        mirror.check(f"edit {n + 1} of {target} ({inserted!r})")


def test_a_root_that_another_root_stops_reading_is_a_root_again(make_project, tmp_path):
    # found by the random edits above: a document that another \input (a part of it then) was
    # dropped from the roots for good, so it never came back when the \input went
    from test_incremental_index import Mirror
    mirror = Mirror(make_project(tmp_path / "src", dict(UNPREFIXED)), tmp_path / "work")
    text = mirror.texts["two.tex"]
    mirror.edit("two.tex", text.replace("\\begin{document}\n", "\\begin{document}\n\\input{one}\n"))
    mirror.check("two.tex reads one.tex: a part of it")
    assert sorted(p.name for p in mirror.index.roots) == ["three.tex", "two.tex"]
    mirror.edit("two.tex", text)
    mirror.check("and no longer: one.tex is a document again")
    assert sorted(p.name for p in mirror.index.roots) == ["one.tex", "three.tex", "two.tex"]


def test_a_root_whose_input_that_begins_the_document_goes_is_no_root_like_a_cold_index(make_project, tmp_path):
    # found by the random edits above: a file with \documentclass that begins its document in a
    # file it reads is a root; when that \input goes it is a template (no document of its own, while
    # other roots have one), but the edit left its \documentclass and \begin{document} alone, so the
    # roots were not looked for again
    from test_incremental_index import Mirror
    files = dict(UNPREFIXED)
    files["four.tex"] = "\\documentclass{article}\n\\input{four-body}\n"
    files["four-body.tex"] = "\\begin{document}\nFour.\n\\end{document}\n"
    mirror = Mirror(make_project(tmp_path / "src", files), tmp_path / "work")
    assert "four.tex" in {p.name for p in mirror.index.roots}
    mirror.edit("four.tex", "\\documentclass{article}\n\\inpu{four-body}\n")
    mirror.check("four.tex no longer reads what begins its document")
    assert "four.tex" not in {p.name for p in mirror.index.roots}
    mirror.edit("four.tex", files["four.tex"])
    mirror.check("and reads it again")
