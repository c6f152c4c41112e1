"""Edits do not grow slower as undefined references accumulate (issue 17: the edit latency drifted
from 36 to 102 ms over 1,000 edits). An edit above undefined references moves them, and their
findings are placed again; what they suggest ("did you mean") is looked up again only when a
label within one edit of their name came or went. Counted, not timed."""

from __future__ import annotations

from colosseum.checks import references
from colosseum.index import ProjectIndex

MAIN = "\\documentclass{article}\n\\begin{document}\n\\input{body}\n\\end{document}\n"


def _body(head: str) -> str:
    labels = "".join(f"\\section{{S{i}}}\\label{{sec:s{i}}}\n" for i in range(50))
    refs = "".join(f"See \\cref{{missing:m{i}}}.\n\n" for i in range(40))
    return head + labels + refs + "See \\cref{sec:s7x}.\n"


def _counting(monkeypatch) -> list[str]:
    looked_up: list[str] = []
    real = references.similar_labels
    monkeypatch.setattr(references, "similar_labels", lambda name, labels: looked_up.append(name) or real(name, labels))
    return looked_up


def test_an_edit_above_undefined_references_does_not_look_their_near_misses_up_again(tmp_path, monkeypatch):
    (tmp_path / "main.tex").write_text(MAIN)
    body = tmp_path / "body.tex"
    body.write_text(_body(""))
    looked_up = _counting(monkeypatch)
    index = ProjectIndex.open(tmp_path)
    assert len([d for d in index.diagnostics() if d.code == "colosseum/undefined-reference"]) == 41
    assert len(looked_up) == 41
    for n in range(1, 6):  # each edit moves every reference below it
        looked_up.clear()
        index.update_document(body, _body("Some words.\n" * n))
        found = [d for d in index.diagnostics() if d.code == "colosseum/undefined-reference"]
        assert len(found) == 41 and looked_up == []
        near = next(d for d in found if "sec:s7x" in d.message)
        assert "did you mean `sec:s7`" in near.message
        assert near.range.start.line == n + 50 + 80  # placed where it is now
    # a label within one edit of an undefined name comes: that name, and only it, is looked up again
    looked_up.clear()
    index.update_document(body, _body("\\label{xmissing:m3}\n"))
    assert looked_up == ["missing:m3"]
    m3 = next(d for d in index.diagnostics() if "`missing:m3`" in d.message)
    assert "did you mean `xmissing:m3`" in m3.message
