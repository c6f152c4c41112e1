"""Bad input never breaks the index, and an edit gives what a fresh index gives.

Property tests (hypothesis, bounded ``max_examples``) mutate a small valid paper: they delete
spans and insert braces, ``\\begin``/``\\end``, backslashes, ``%``, random unicode and NUL bytes.
``ProjectIndex.open`` must return (or, when no root is left, raise ``ProjectError``) within a
time bound (a hang guard, not a speed check), and every output must be consistent. Large and
deep inputs must index within a memory bound (tracemalloc peaks). ``update_document`` after
random edits of the example project must agree with a cold ``ProjectIndex.open`` of the edited
files.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import tempfile
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from colosseum.graph import export
from colosseum.index import ProjectError, ProjectIndex

EXAMPLE = Path(__file__).resolve().parents[1] / "example-project"

PAPER = r"""\documentclass{article}
\usepackage{amsthm}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}[theorem]{Lemma}
\newcommand{\lemref}[1]{Lemma~\ref{#1}}
\begin{document}
\section{Introduction}\label{sec:intro}
We prove \cref{thm:main} using \lemref{lem:a}. % a comment \label{no}
\begin{lemma}[First]\label{lem:a}
  For all $x$ we have
  \begin{equation}\label{eq:a} x \le x^2 + 1. \end{equation}
\end{lemma}
\begin{proof}
  Clear from \eqref{eq:a}; see also \verb|\ref{zzz}|.
\end{proof}
% colosseum: obligation
\begin{lemma}\label{lem:b}
  Something hard, see \cref{lem:a, eq:a}.
\end{lemma}
\begin{theorem}\label{thm:main}
  The main result.
\end{theorem}
\begin{proof}
  \uses{lem:a,
        lem:b}
  By \cref{lem:a} and \lemref{lem:b}.
\end{proof}
\iffalse \label{hidden} \fi
\end{document}
"""

BODY = PAPER[PAPER.index("\\section"):PAPER.index("\\end{document}")]
MAIN_FOR_BODY = (PAPER[:PAPER.index("\\section")] + "\\input{body}\n\\end{document}\n")

TOKENS = ["{", "}", "{", "}", "\\begin{lemma}", "\\end{lemma}", "\\begin{proof}", "\\end{proof}",
          "\\begin{", "\\end{", "\\", "\\\\", "%", "\n", "\n\n", "[", "]", "\\label{", "\\ref{", "\\cref{",
          "\\uses{", "\\input{", "\\input{body}", "\\section{", "\\iffalse", "\\fi", "\\verb|", "\\verb",
          "\\begin{verbatim}", "\\end{document}", "\\begin{document}", "\\newcommand{\\x}[1]{\\ref{#1}}",
          "\\def\\y#1{\\label{#1}}", "\\let\\z\\ref", "#1", "\\obligation", "\\proves{", "\x00",
          "\U0001D53D", "\u00e9", "\ufeff", "\r\n", "\t", ",", "\\newtheorem{", "\\documentclass{article}"]


class Overtime(BaseException):
    """Not an Exception: the engine's own ``except`` clauses cannot swallow it."""


@contextlib.contextmanager
def time_limit(seconds: float, what: str = "indexing"):
    def fire(signum, frame):
        raise Overtime(f"{what} took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


HANG_GUARD_SECONDS = 300.0  # a hang fails the test instead of the run; no speed is asserted


def bounded_open(path, max_mib: float | None = None) -> ProjectIndex:
    """Open the project and ask its findings. With ``max_mib``, the tracemalloc peak must stay
    under it: bounded memory, counted and not timed (tests/reliability/test_growth.py checks
    how work and memory grow)."""
    try:
        with time_limit(HANG_GUARD_SECONDS, f"ProjectIndex.open({path})"):
            if max_mib is not None:
                tracemalloc.start()
            try:
                index = ProjectIndex.open(path)
                index.diagnostics()
                peak = tracemalloc.get_traced_memory()[1] if max_mib is not None else 0
            finally:
                if max_mib is not None:
                    tracemalloc.stop()
    except Overtime as exc:
        pytest.fail(str(exc))
    assert peak <= max_mib * 2**20 if max_mib is not None else True, f"peak {peak / 2**20:.0f} MiB"
    return index


@st.composite
def mutated(draw, base: str) -> str:
    text = base
    for _ in range(draw(st.integers(1, 8))):
        pos = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["delete", "insert", "insert", "unicode", "duplicate"]))
        if action == "delete":
            end = draw(st.integers(pos, min(len(text), pos + 40)))
            text = text[:pos] + text[end:]
        elif action == "insert":
            text = text[:pos] + draw(st.sampled_from(TOKENS)) + text[pos:]
        elif action == "unicode":
            text = text[:pos] + draw(st.text(min_size=1, max_size=5)) + text[pos:]
        else:
            end = draw(st.integers(pos, min(len(text), pos + 200)))
            text = text[:end] + text[pos:end] + text[end:]
    return text


def check_consistent(index: ProjectIndex) -> None:
    """Every output of the index can be computed and points into the files."""
    diagnostics = index.diagnostics()
    for diag in diagnostics:
        assert diag.severity in ("error", "warning", "information", "hint")
        assert diag.code.startswith("colosseum/")
        assert diag.range.start <= diag.range.end
        assert diag.range.start.line >= 0 and diag.range.start.character >= 0
    for claim_id, claim in index.claims.items():
        assert claim.id == claim_id
        assert claim.location.range.start <= claim.location.range.end
        assert claim_id in index.graph.status
    for name, labels in index.labels.items():
        for label in labels:
            assert label.name == name
            assert label.location.range.start <= label.location.range.end
    for ref in index.references:
        assert ref.part in ("statement", "proof", "prose", "proof-title")
    nodes = set(index.graph.node_kind)
    assert nodes == set(index.claims) | set(index.sections)
    for edge in index.graph.edges:
        assert edge.source in nodes and edge.target in nodes
    layers = index.graph.generations()
    assert sorted(n for layer in layers for n in layer) == sorted(nodes)
    export.diagnostics_json(index, diagnostics)
    export.diagnostics_text(index, diagnostics)
    export.dag_json(index)
    export.dag_dot(index)
    export.dag_mermaid(index)
    export.obligation_plan(index)


def write(directory: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8", "surrogatepass"))
    return directory


# ---- random and mutated LaTeX -------------------------------------------------------------------------


def test_the_unmutated_paper_is_clean(tmp_path):
    index = bounded_open(write(tmp_path, {"main.tex": PAPER}))
    assert set(index.claims) == {"lem:a", "lem:b", "thm:main"}
    assert index.graph.status["lem:b"] == "obligation"
    assert index.graph.status["thm:main"] == "conditional"
    assert "no" not in index.labels and "hidden" not in index.labels
    assert {d.code for d in index.diagnostics()} == {"colosseum/depends-on-open-obligation"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(BODY))
def test_mutated_included_file_never_breaks_the_index(body):
    with tempfile.TemporaryDirectory() as tmp:
        index = bounded_open(write(Path(tmp), {"main.tex": MAIN_FOR_BODY, "body.tex": body}))
        assert Path(tmp).resolve() / "main.tex" in index.roots  # body.tex may have become a root too
        check_consistent(index)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(PAPER))
def test_mutated_root_never_breaks_the_index(paper):
    with tempfile.TemporaryDirectory() as tmp:
        try:
            with time_limit(5.0):
                index = ProjectIndex.open(write(Path(tmp), {"main.tex": paper}))
                check_consistent(index)
        except ProjectError:
            # only when no root is left: \documentclass gone, commented out, or a NUL byte
            assert "\\documentclass" not in paper or "\x00" in paper or "%" in paper or "standalone" in paper \
                or "TEX root" in paper
        except Overtime as exc:
            pytest.fail(str(exc))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400), st.text(alphabet="{}[]\\%$&#^_~\n abegindlmorfcsupt", max_size=400))
def test_random_text_never_breaks_the_index(noise, latexish):
    with tempfile.TemporaryDirectory() as tmp:
        index = bounded_open(write(Path(tmp), {"main.tex": MAIN_FOR_BODY, "body.tex": noise + latexish}))
        check_consistent(index)


# ---- specific malformed input ------------------------------------------------------------------------


def doc(body: str) -> str:
    return "\\documentclass{article}\n\\begin{document}\n" + body + "\n\\end{document}\n"


def codes(index: ProjectIndex) -> list[str]:
    return [d.code for d in index.diagnostics()]


@pytest.mark.parametrize("body", [
    "\\label{unclosed\n\nNext paragraph.",
    "\\cref{lem:a, lem:b\n\n More text.",
    "\\section{Introduction\n\nText \\label{x}.",
    "\\begin{lemma\n\nText.",
])
def test_unbalanced_brace_diagnostic(tmp_path, body):
    index = bounded_open(write(tmp_path, {"main.tex": doc(body)}))
    found = [d for d in index.diagnostics() if d.code == "colosseum/unbalanced-brace"]
    assert found
    assert found[0].range.start.line == 2
    check_consistent(index)


def test_unbalanced_brace_does_not_swallow_the_rest(tmp_path):
    index = bounded_open(write(tmp_path, {"main.tex": doc(
        "\\label{broken\n\n\\begin{lemma}\\label{lem:later}X\\end{lemma}\n\\ref{lem:later}")}))
    assert "lem:later" in index.claims
    assert "colosseum/unbalanced-brace" in codes(index)


def brace_findings(index: ProjectIndex) -> list[tuple[int, int, str]]:
    return sorted((d.range.start.line, d.range.start.character, d.message) for d in index.diagnostics()
                  if d.code == "colosseum/unbalanced-brace")


@pytest.mark.parametrize("body,where", [
    # the '{' left open at the end of the environment begun before it
    ("\\begin{lemma}\\label{lem:a} { x \\end{lemma}", [(2, 27, "not closed before \\end{lemma}")]),
    ("x } y", [(2, 2, "closes no '{'")]),
    # both at once: the '}' does not close the '{' across the end of the lemma
    ("\\begin{lemma}\\label{lem:a} { x \\end{lemma}\nx } y",
     [(2, 27, "not closed before \\end{lemma}"), (3, 2, "closes no '{'")]),
    ("Text {\\bf open\n\nand on", [(2, 5, "not closed before \\end{document}")]),
])
def test_unbalanced_braces_of_the_text_are_reported_where_they_are(tmp_path, body, where):
    index = bounded_open(write(tmp_path, {"main.tex": doc(body)}))
    found = brace_findings(index)
    assert [(line, col) for line, col, _ in found] == [(line, col) for line, col, _ in where]
    assert all(part in message for (_, _, message), (_, _, part) in zip(found, where))
    if "lem:a" in body:
        assert "lem:a" in index.claims
    check_consistent(index)


def test_a_brace_left_open_at_the_end_of_a_file_is_reported(tmp_path):
    root = write(tmp_path, {"main.tex": doc("\\input{part}\nAfter."), "part.tex": "Words {\\em open.\n"})
    index = bounded_open(root)
    (found,) = [d for d in index.diagnostics() if d.code == "colosseum/unbalanced-brace"]
    assert found.file == root / "part.tex" and (found.range.start.line, found.range.start.character) == (0, 6)
    assert "never closed" in found.message


@pytest.mark.parametrize("body", [
    "$\\left\\{ x \\right.$ and \\{ \\} and $\\{a\\}$ \\\\{x}",
    "\\verb|{| and \\verb+}+ and \\lstinline|{|",
    "% a comment { with a brace\nand one % } too",
    "\\iffalse { \\fi and \\iffalse } \\fi",
    "\\begin{verbatim}\n{ } }\n\\end{verbatim}",
    "\\def\\x{\\begingroup}\\def\\y{\\endgroup} \\newcommand{\\ob}{\\{}",
    "\\newenvironment{boxed}{\\begin{center}}{\\end{center}}",
    "\\section{Title {\\em x}\\label{s}} {\\bf a\n\nb} {\\begin{center} c \\end{center}}",
    "\\begin{lemma}\\label{l}{\\begin{proof}\nx\\end{proof}}\\end{lemma}",
])
def test_balanced_or_hidden_braces_are_no_finding(tmp_path, body):
    index = bounded_open(write(tmp_path, {"main.tex": doc(body)}))
    assert brace_findings(index) == []


def test_an_unclosed_argument_is_reported_once(tmp_path):
    index = bounded_open(write(tmp_path, {"main.tex": doc("\\label{unclosed\n\nNext paragraph.")}))
    assert len(brace_findings(index)) == 1


@pytest.mark.parametrize("body,lines", [
    ("\\begin{lemma}\\label{lem:open}\nNever closed.", {2}),
    # LaTeX itself says "\\begin{proof} on input line 4 ended by \\end{theorem}": either place will do
    ("\\begin{theorem}\\label{t}\n\\begin{proof}\nX\n\\end{theorem}", {3, 5}),
    ("\\begin{verbatim}\nno end", {2}),
])
def test_unterminated_environment_diagnostic(tmp_path, body, lines):
    index = bounded_open(write(tmp_path, {"main.tex": doc(body)}))
    found = [d for d in index.diagnostics() if d.code == "colosseum/unterminated-environment"]
    assert found
    assert lines & {d.range.start.line for d in found}
    check_consistent(index)


def test_environment_left_open_in_an_included_file(tmp_path):
    index = bounded_open(write(tmp_path, {
        "main.tex": doc("\\input{part}\nAfter."),
        "part.tex": "\\begin{lemma}\\label{lem:p}\nForever.\n",
    }))
    found = [d for d in index.diagnostics() if d.code == "colosseum/unterminated-environment"]
    assert [d.file.name for d in found] == ["part.tex"]
    assert found[0].range.start.line == 0


def test_end_without_begin(tmp_path):
    index = bounded_open(write(tmp_path, {"main.tex": doc("Text.\n\\end{lemma}\nMore.")}))
    assert "colosseum/unmatched-end" in codes(index)


def test_unterminated_iffalse_skips_the_rest_without_error(tmp_path):
    index = bounded_open(write(tmp_path, {"main.tex": doc("\\label{before}\n\\iffalse\n\\label{after}")}))
    assert "before" in index.labels and "after" not in index.labels


def test_binary_file(tmp_path):
    index = bounded_open(write(tmp_path, {
        "main.tex": doc("\\input{data}\n\\label{ok}"),
        "data.tex": b"\\label{bin}\x00\x01\x02\xff\xfe" * 100,
    }))
    found = [d for d in index.diagnostics() if d.code == "colosseum/binary-file"]
    assert len(found) == 1 and found[0].file.name == "data.tex"
    assert "bin" not in index.labels
    assert "ok" in index.labels


def test_non_utf8_file_is_reported_and_still_indexed(tmp_path):
    index = bounded_open(write(tmp_path, {
        "main.tex": doc("\\input{latin}"),
        "latin.tex": "caf\u00e9 \\label{latin}\n\\begin{lemma}\\label{lem:l}\u00e9t\u00e9\\end{lemma}\n".encode("latin-1"),
    }))
    found = [d for d in index.diagnostics() if d.code == "colosseum/encoding"]
    assert len(found) == 1 and found[0].file.name == "latin.tex"
    assert found[0].severity == "warning"
    assert "lem:l" in index.claims
    (label,) = index.labels["latin"]
    assert (label.location.range.start.line, label.location.range.start.character) == (0, 12)


def test_byte_order_mark_and_crlf(tmp_path):
    index = bounded_open(write(tmp_path, {"main.tex": b"\xef\xbb\xbf" + doc("\\label{bom}").replace("\n", "\r\n").encode()}))
    (label,) = index.labels["bom"]
    assert (label.location.range.start.line, label.location.range.start.character) == (2, 7)


def test_empty_and_tiny_files(tmp_path):
    index = bounded_open(write(tmp_path, {"main.tex": "\\documentclass{article}", "empty.tex": ""}))
    assert index.claims == {}
    check_consistent(index)


def test_recursive_wrapper_bomb_is_bounded(tmp_path):
    index = bounded_open(write(tmp_path, {"main.tex": doc(
        "\\newcommand{\\boom}{\\ref{a}\\boom\\boom}\n\\label{a}\\boom\n\\def\\loop{\\loop}\\loop\n\\label{after}")}))
    assert "after" in index.labels


# ---- size and depth ---------------------------------------------------------------------------------


PROSE = ("We now argue as in the classical setting. Let $x \\in X$ and consider the map "
         "$f\\colon X \\to Y$ with $f(x) = \\sum_{i=1}^n a_i x^i$; by compactness it attains its bound.\n") * 4


def block(i: int, extra_ref: str = "") -> str:
    prev = f"lem:{max(i - 1, 0)}"
    return (f"\\section{{Part {i}}}\\label{{sec:{i}}}\n{PROSE}"
            f"\\begin{{lemma}}[Step {i}]\\label{{lem:{i}}}\nFor all $n$ we have\n"
            f"\\begin{{equation}}\\label{{eq:{i}}} a_n \\le b_n. \\end{{equation}}\n\\end{{lemma}}\n"
            f"\\begin{{proof}}\\uses{{{prev}}}\nBy \\cref{{{prev}}} and \\eqref{{eq:{i}}}{extra_ref}.\n"
            f"{PROSE}\\end{{proof}}\n")


def test_ten_megabyte_file_indexes_in_bounded_time(tmp_path):
    blocks, size, i = [], 0, 0
    while size < 10_000_000:
        b = block(i, f", compare \\ref{{lem:typo{i}}}" if i % 100 == 99 else "")
        blocks.append(b)
        size += len(b)
        i += 1
    index = bounded_open(write(tmp_path, {"main.tex": doc("".join(blocks))}), max_mib=256)
    assert len(index.claims) == i
    undefined = [d for d in index.diagnostics() if d.code == "colosseum/undefined-reference"]
    assert len(undefined) == i // 100


def test_many_undefined_references_index_in_bounded_time(tmp_path):
    # an xr-style paper: thousands of references to labels of another document
    refs = "".join(f", \\ref{{ext:{k}}}" for k in range(4))
    body = "".join(block(i, refs.replace("ext:", f"ext:{i}-")) for i in range(1500))
    index = bounded_open(write(tmp_path, {"main.tex": doc(body)}), max_mib=96)
    assert len([d for d in index.diagnostics() if d.code == "colosseum/undefined-reference"]) == 6000


def test_paper_pasted_many_times_indexes_in_bounded_time(tmp_path):
    # every label defined hundreds of times: one duplicate-label finding per place, not a quadratic blow-up
    body = BODY * 500  # about 0.45 MB; each label defined 500 times
    index = bounded_open(write(tmp_path, {"main.tex": doc(body)}), max_mib=32)
    dups = [d for d in index.diagnostics() if d.code == "colosseum/duplicate-label"]
    assert len(dups) >= 500


def test_deep_nesting_of_environments(tmp_path):
    depth = 5000
    # a label and eight references per level: the work per event must not grow with the depth
    body = ("".join(f"\\begin{{itemize}}\\item\\label{{it:{k}}} see " + f"\\ref{{it:{k}}}, \\cref{{it:{k}}}, " * 4 + "\n"
                    for k in range(depth))
            + "\\begin{lemma}\\label{deep}x\\end{lemma}\n"
            + "\\end{itemize}\n" * depth)
    index = bounded_open(write(tmp_path, {"main.tex": doc(body)}), max_mib=64)
    assert "deep" in index.claims
    assert len(index.labels) == depth + 1
    assert "colosseum/unterminated-environment" not in codes(index)


def test_deep_nesting_of_claims_and_braces(tmp_path):
    body = ("\\begin{lemma}\n" * 2000 + "\\label{inner}x\n" + "\\end{lemma}\n" * 2000
            + "{" * 5000 + "\\label{braced}" + "}" * 5000)
    index = bounded_open(write(tmp_path, {"main.tex": doc(body)}), max_mib=8)
    assert len(index.claims) == 2000
    assert "braced" in index.labels


def test_very_long_line(tmp_path):
    line = "".join(f"word \\label{{w{k}}} \\ref{{w{k}}} " for k in range(50_000))
    index = bounded_open(write(tmp_path, {"main.tex": doc(line)}), max_mib=240)
    assert len(index.labels) == 50_000
    last = index.labels["w49999"][0]
    assert last.location.range.start.line == 2
    assert last.location.range.start.character == line.index("\\label{w49999}") + 7


# ---- incremental updates agree with a cold index -----------------------------------------------------


def snapshot(index: ProjectIndex) -> dict:
    def rel(path: Path) -> str:
        return index.relative(path)

    def rng(r) -> tuple:
        return (r.start.line, r.start.character, r.end.line, r.end.character)

    return {
        "roots": sorted(rel(r) for r in index.roots),
        "claims": {cid: (c.kind, c.label, c.title, rel(c.file), rng(c.location.range), c.obligation,
                         c.proof is not None and rng(c.proof.location.range), c.section,
                         index.graph.status.get(cid))
                   for cid, c in index.claims.items()},
        "sections": {sid: (s.level, s.title, s.label, rel(s.file), rng(s.location.range), s.parent)
                     for sid, s in index.sections.items()},
        "labels": {name: sorted((rel(lab.location.file), rng(lab.location.range), lab.owner) for lab in labels)
                   for name, labels in index.labels.items()},
        "references": sorted((r.label, r.command, rel(r.location.file), rng(r.location.range), r.owner, r.part)
                             for r in index.references),
        "edges": sorted((e.source, e.target, e.kind) for e in index.graph.edges),
        "diagnostics": [(rel(d.file), rng(d.range), d.severity, d.code, d.message) for d in index.diagnostics()],
    }


EDIT_TOKENS = TOKENS + [
    "\\begin{lemma}\\label{lem:new}New.\\end{lemma}\n",
    "\\begin{proof}By \\cref{lem:resampling}.\\end{proof}\n",
    "\\cref{thm:main}", "\\label{thm:main}", "\\label{lem:edge-degree}", "% colosseum: obligation\n",
    "\\obligation", "\\newcommand{\\lemref}[1]{\\ref{#1}}\n\\lemref{thm:lll}", "\\input{sections/discussion}\n",
    "\\section{Inserted}\\label{sec:inserted}\n", "\\uses{cor:simple}", "\\end{document}",
]


@st.composite
def edits(draw, files: dict[str, str]):
    out = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(sorted(files)))
        text = files[name]
        for _ in range(draw(st.integers(1, 3))):
            pos = draw(st.integers(0, len(text)))
            if draw(st.booleans()):
                end = draw(st.integers(pos, min(len(text), pos + 80)))
                text = text[:pos] + text[end:]
            else:
                text = text[:pos] + draw(st.sampled_from(EDIT_TOKENS)) + text[pos:]
        files = {**files, name: text}
        out.append((name, text))
    return out


EXAMPLE_FILES = {p.relative_to(EXAMPLE).as_posix(): p.read_text(encoding="utf-8")
                 for p in sorted(EXAMPLE.rglob("*.tex"))}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits(EXAMPLE_FILES))
def test_update_document_matches_a_fresh_index(changes):
    with tempfile.TemporaryDirectory() as tmp:
        live_dir = Path(tmp) / "live"
        fresh_dir = Path(tmp) / "fresh"
        shutil.copytree(EXAMPLE, live_dir, ignore=shutil.ignore_patterns("lean", ".git"))
        shutil.copytree(EXAMPLE, fresh_dir, ignore=shutil.ignore_patterns("lean", ".git"))
        live = ProjectIndex.open(live_dir)
        live.diagnostics()
        current = dict(EXAMPLE_FILES)
        for name, text in changes:
            with time_limit(5.0, "update_document"):
                live.update_document(live_dir / name, text)
            current[name] = text
        for name, text in current.items():
            (fresh_dir / name).write_text(text, encoding="utf-8")
        try:
            fresh = ProjectIndex.open(fresh_dir)
        except ProjectError:
            return  # the edits removed every root (a configured root keeps this rare)
        assert snapshot(live) == snapshot(fresh)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits(EXAMPLE_FILES))
def test_edit_then_revert_restores_the_index(changes):
    with tempfile.TemporaryDirectory() as tmp:
        live_dir = Path(tmp) / "live"
        shutil.copytree(EXAMPLE, live_dir, ignore=shutil.ignore_patterns("lean", ".git"))
        live = ProjectIndex.open(live_dir)
        before = snapshot(live)
        for name, text in changes:
            live.update_document(live_dir / name, text)
        snapshot(live)
        for name, _ in reversed(changes):
            live.update_document(live_dir / name, EXAMPLE_FILES[name])
        assert snapshot(live) == before
        for name, _ in changes:  # the editor closes the files: back to disk, which never changed
            live.update_document(live_dir / name, None)
        assert snapshot(live) == before


def test_update_document_of_an_included_file(tmp_path):
    root = write(tmp_path, {"main.tex": doc("\\input{part}\nSee \\cref{lem:p}."), "part.tex": "Nothing yet.\n"})
    index = ProjectIndex.open(root)
    assert [d.code for d in index.diagnostics()] == ["colosseum/undefined-reference"]
    index.update_document(root / "part.tex", "\\begin{lemma}\\label{lem:p}Now.\\end{lemma}\n")
    assert "lem:p" in index.claims
    assert index.diagnostics() == []
    index.update_document(root / "part.tex", None)  # back to the disk's text
    assert "lem:p" not in index.claims


def test_update_document_adds_a_new_root(tmp_path):
    root = write(tmp_path, {"main.tex": doc("A.")})
    index = ProjectIndex.open(root)
    (root / "second.tex").write_text(doc("\\begin{lemma}\\label{lem:s}S\\end{lemma}"), encoding="utf-8")
    index.update_document(root / "second.tex", None)
    assert sorted(p.name for p in index.roots) == ["main.tex", "second.tex"]
    assert "lem:s" in index.claims


TYPED = ["\\label{lem:typed}", "\\cref{thm:main, lem:edge-degree}", "\\begin{lemma}\\label{lem:t}x\\end{lemma}",
         "\\verb|\\ref{v}|", "% \\label{c}", "\\iffalse \\label{off}\\fi", "{\\uses{cor:simple}}",
         "\\newcommand{\\tref}[1]{\\ref{#1}}\\tref{thm:lll}", "\\begin{verbatim}\\label{v}\\end{verbatim}"]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(EXAMPLE_FILES)), st.data())
def test_typing_character_by_character_matches_a_fresh_index(name, data):
    """Keystroke-sized edits (what the incremental rescan sees) end where a cold index ends."""
    original = EXAMPLE_FILES[name]
    pos = data.draw(st.integers(0, len(original)), label="position")
    typed = data.draw(st.sampled_from(TYPED), label="typed")
    backspaces = data.draw(st.integers(0, 3), label="backspaces")
    checkpoints = set(data.draw(st.lists(st.integers(0, len(typed)), max_size=2), label="checkpoints"))
    with tempfile.TemporaryDirectory() as tmp:
        live_dir = Path(tmp) / "live"
        shutil.copytree(EXAMPLE, live_dir, ignore=shutil.ignore_patterns("lean", ".git"))
        live = ProjectIndex.open(live_dir)
        live.diagnostics()
        text = original
        steps = [(pos + k, typed[k]) for k in range(len(typed))]
        for k, (at, ch) in enumerate(steps, start=1):
            text = text[:at] + ch + text[at:]
            live.update_document(live_dir / name, text)
            live.diagnostics()
            if k in checkpoints:
                fresh_dir = Path(tmp) / f"fresh{k}"
                shutil.copytree(live_dir, fresh_dir)
                (fresh_dir / name).write_text(text, encoding="utf-8")
                assert snapshot(live) == snapshot(ProjectIndex.open(fresh_dir)), f"after typing {typed[:k]!r}"
        end = pos + len(typed)
        for _ in range(backspaces):
            if end > 0:
                text = text[:end - 1] + text[end:]
                end -= 1
                live.update_document(live_dir / name, text)
        fresh_dir = Path(tmp) / "fresh"
        shutil.copytree(live_dir, fresh_dir)
        (fresh_dir / name).write_text(text, encoding="utf-8")
        assert snapshot(live) == snapshot(ProjectIndex.open(fresh_dir))


def test_revert_after_inputting_a_file_a_second_time(tmp_path):
    main = "\\documentclass{article}\n\\begin{document}\n\\input{intro}\n\\input{a}\n\\end{document}\n"
    root = write(tmp_path, {"main.tex": main,
                            "intro.tex": "\\section{Introduction}\nSee \\cref{sec:a}.\n",
                            "a.tex": "\\section{A}\\label{sec:a}\nText.\n"})
    index = ProjectIndex.open(root)
    before = snapshot(index)
    index.update_document(root / "main.tex", main.replace("\\begin{document}\n", "\\begin{document}\n\\input{a}\n"))
    index.update_document(root / "main.tex", main)  # the edit undone
    assert snapshot(index) == before


def test_closing_an_optional_argument_rescans_the_text_it_had_swallowed(tmp_path):
    # `\newcommand{\x}[1` reads its optional argument up to the `]` of `[D]`, two lines on;
    # typing the missing `]` gives back the section and the definition in between
    rest = "% c\n\\section{S}\\label{sec:s}\n\\begin{definition}[D]\\label{def:d}x\\end{definition}\n"
    root = write(tmp_path, {"main.tex": doc("\\input{part}"), "part.tex": "\\newcommand{\\x}[1" + rest})
    index = ProjectIndex.open(root)
    index.diagnostics()
    index.update_document(root / "part.tex", "\\newcommand{\\x}[1]" + rest)
    fresh = write(tmp_path / "fresh", {"main.tex": doc("\\input{part}"), "part.tex": "\\newcommand{\\x}[1]" + rest})
    assert snapshot(index) == snapshot(ProjectIndex.open(fresh))
    assert "sec:s" in index.sections and "def:d" in index.claims


@pytest.mark.parametrize("before,after", [
    # a section title left open at the top of the file, closed by a brace typed 60 lines further on
    ("\\section{Intro\n" + "Some text.\n" * 30 + "\\begin{lemma}\\label{lem:x}x\\end{lemma}\n" + "More.\n" * 30,
     "\\section{Intro\n" + "Some text.\n" * 30 + "\\begin{lemma}\\label{lem:x}x\\end{lemma}\n" + "More.\n" * 30 + "}\n"),
    # a \label argument left open, closed a few lines further on: the \ref inside it is no reference
    ("\\label{a\n" + "words\n" * 5 + "\\ref{b}\n" + "words\n" * 5 + "\\end{equation}\n",
     "\\label{a\n" + "words\n" * 5 + "\\ref{b}\n" + "words\n" * 5 + "}\n"),
])
def test_closing_a_far_away_brace_rescans_the_open_argument(tmp_path, before, after):
    root = write(tmp_path / "live", {"main.tex": doc("\\input{part}"), "part.tex": before})
    index = ProjectIndex.open(root)
    index.diagnostics()
    index.update_document(root / "part.tex", after)
    fresh = write(tmp_path / "fresh", {"main.tex": doc("\\input{part}"), "part.tex": after})
    assert snapshot(index) == snapshot(ProjectIndex.open(fresh))


# ---- the brace check's pattern, on every Python ---------------------------------------------

def test_brace_pattern_stops_before_a_group_left_open_on_its_line():
    """Python 3.11.0-3.11.4 (Debian 12's system Python) read possessive loops wrongly; the
    pattern in use must stop before a '{' that does not close on its line, whatever the Python."""
    from colosseum.latex.braces import BRACE_OR_BALANCED_TEXT as pattern

    assert pattern.search("a{bb").group() == "a"
    assert pattern.search("x{a\nb}").group() == "x"
    assert pattern.search("\\frac{a}{x^{2}} y {").group() == "\\frac{a}{x^{2}} y "
    assert pattern.search("{", 0).group() == "{"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", " ", "{", "}", "\\", "\n", "\\{", "x^{2}", "{{", "}}", "\\\\"]), max_size=30))
def test_brace_pattern_written_without_possessive_loops_matches_the_possessive_one(pieces):
    from colosseum.latex.braces import _balanced_run, _possessive_works

    if not _possessive_works():
        pytest.skip("this Python reads possessive loops wrongly (3.11.0-3.11.4): nothing to compare with")
    text = "".join(pieces)
    possessive, lookahead = _balanced_run(True), _balanced_run(False)
    pos = 0
    while pos < len(text):
        a, b = possessive.search(text, pos), lookahead.search(text, pos)
        assert (a and a.span()) == (b and b.span()), (text, pos)
        if a is None:
            break
        pos = a.end()
