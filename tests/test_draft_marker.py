"""The draft marker reads back as the run that wrote it, whatever the run id holds."""

from colosseum.latex.draft_marker import draft_run, marker, proof_environment


def test_the_inserted_proof_carries_its_run_on_the_begin_line():
    text = proof_environment("  By induction.\n", "solve-thm-main-20261203")
    first, *rest = text.splitlines()
    assert first == r"\begin{proof} % colosseum: draft solve-thm-main-20261203"
    assert rest == ["By induction.", r"\end{proof}"]
    assert draft_run(first) == "solve-thm-main-20261203"


def test_a_run_id_with_spaces_or_braces_reads_back_as_written_in_the_marker():
    written = marker("my run {1}")
    assert draft_run(written) == written.rsplit(" ", 1)[1]
    assert "{" not in written and " " not in written.rsplit("draft ", 1)[1]


def test_lines_without_a_marker_and_markers_without_an_id():
    assert draft_run(r"\begin{proof}") is None
    assert draft_run("% colosseum:draft") == ""
    assert draft_run("%colosseum: draft r1 trailing words") == "r1"
