"""Following \\input-like commands and finding a project's roots."""

from __future__ import annotations

import os
import threading
from collections import Counter

import pytest

import colosseum.index.project_index
from colosseum.index import ProjectError, ProjectIndex
from colosseum.core.structure import Position


def root_doc(body: str, preamble: str = "") -> str:
    return "\\documentclass{article}\n" + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"


def codes(index: ProjectIndex) -> list[str]:
    return [d.code for d in index.diagnostics()]


def diags(index: ProjectIndex, code: str):
    return [d for d in index.diagnostics() if d.code == "colosseum/" + code]


def lemma(label: str) -> str:
    return f"\\begin{{lemma}}\\label{{{label}}}Statement.\\end{{lemma}}\n"


def open_with_timeout(path, seconds: float = 10.0) -> ProjectIndex:
    """``ProjectIndex.open`` in a thread, failing (not hanging) when it does not terminate."""
    box: dict = {}

    def run():
        try:
            box["index"] = ProjectIndex.open(path)
        except BaseException as exc:  # noqa: BLE001 - reported below
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"ProjectIndex.open({path}) did not return within {seconds} s"
    if "error" in box:
        raise box["error"]
    return box["index"]


# ---- include commands --------------------------------------------------------------------------------


def test_input_with_and_without_extension_and_primitive_form(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("\\input{a}\n\\input{b.tex}\n\\input c\n"),
        "a.tex": lemma("lem:a"),
        "b.tex": lemma("lem:b"),
        "c.tex": lemma("lem:c"),
    })
    index = ProjectIndex.open(root)
    assert set(index.claims) == {"lem:a", "lem:b", "lem:c"}
    assert {p.name for p in index.files()} == {"main.tex", "a.tex", "b.tex", "c.tex"}
    assert "colosseum/missing-input" not in codes(index)


def test_include_and_nested_root_relative_paths(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("\\include{chapters/one}"),
        "chapters/one.tex": lemma("lem:one") + "\\input{chapters/two}\n",  # relative to the root's directory
        "chapters/two.tex": lemma("lem:two"),
    })
    index = ProjectIndex.open(root)
    assert set(index.claims) == {"lem:one", "lem:two"}
    assert index.claims["lem:two"].file == root / "chapters" / "two.tex"


def test_input_relative_to_including_file_as_fallback(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("\\input{parts/a}"),
        "parts/a.tex": "\\input{b}\n",
        "parts/b.tex": lemma("lem:b"),
    })
    index = ProjectIndex.open(root)
    assert "lem:b" in index.claims


def test_subfile_contents_and_what_follows_are_read(make_project, tmp_path):
    sub = ("\\documentclass[../main.tex]{subfiles}\n\\begin{document}\n{lemma}\\end{document}\n")
    root = make_project(tmp_path, {
        "main.tex": root_doc("\\subfile{parts/one}\n\\subfile{parts/two}\n" + lemma("lem:main"),
                             preamble="\\usepackage{subfiles}\n"),
        "parts/one.tex": sub.replace("{lemma}", lemma("lem:one")),
        "parts/two.tex": sub.replace("{lemma}", lemma("lem:two")),
    })
    index = ProjectIndex.open(root)
    assert index.roots == [root / "main.tex"]
    assert set(index.claims) == {"lem:one", "lem:two", "lem:main"}


def test_import_resolves_nested_inputs_in_the_imported_directory(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("\\import{chapters/}{one}"),
        "chapters/one.tex": lemma("lem:one") + "\\input{two}\n",
        "chapters/two.tex": lemma("lem:real"),
        "two.tex": lemma("lem:decoy"),
    })
    index = ProjectIndex.open(root)
    assert set(index.claims) == {"lem:one", "lem:real"}


def test_subimport_is_relative_to_the_including_file(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("\\subimport{a/}{x}"),
        "a/x.tex": lemma("lem:x") + "\\subimport{b/}{y}\n",
        "a/b/y.tex": lemma("lem:y") + "\\input{z}\n",
        "a/b/z.tex": lemma("lem:z"),
        "b/y.tex": lemma("lem:decoy-y"),
        "z.tex": lemma("lem:decoy-z"),
    })
    index = ProjectIndex.open(root)
    assert set(index.claims) == {"lem:x", "lem:y", "lem:z"}


def test_missing_input_is_reported_at_the_command(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": root_doc("Text.\n  \\input{nowhere}\n" + lemma("lem:after"))})
    index = ProjectIndex.open(root)
    (diag,) = diags(index, "missing-input")
    assert diag.severity == "error"
    assert diag.file == root / "main.tex"
    assert diag.range.start == Position(3, 2)
    assert "nowhere" in diag.message
    assert "lem:after" in index.claims


def test_include_cycle_is_reported_and_terminates(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("\\input{a}"),
        "a.tex": lemma("lem:a") + "\\input{b}\n",
        "b.tex": lemma("lem:b") + "\\input{a}\n",
    })
    index = open_with_timeout(root)
    (diag,) = diags(index, "include-cycle")
    assert diag.file == root / "b.tex"
    assert diag.range.start == Position(1, 0)
    assert "a.tex" in diag.message and "b.tex" in diag.message
    assert set(index.claims) == {"lem:a", "lem:b"}
    assert "colosseum/duplicate-label" not in codes(index)


def test_self_include_is_a_cycle(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": root_doc(lemma("lem:m") + "\\input{main}")})
    index = open_with_timeout(root)
    assert len(diags(index, "include-cycle")) == 1
    assert list(index.claims) == ["lem:m"]


def test_input_outside_the_project_is_not_followed(make_project, tmp_path):
    make_project(tmp_path, {"outside/secret.tex": lemma("lem:outside")})
    root = make_project(tmp_path / "proj", {"main.tex": root_doc("\\input{../outside/secret}")})
    index = ProjectIndex.open(root)
    assert "lem:outside" not in index.claims
    assert "lem:outside" not in index.labels
    (diag,) = diags(index, "path-outside-project")
    assert diag.file == root / "main.tex"
    assert diag.range.start.line == 2
    assert all(p.is_relative_to(root) for p in index.files())


def test_absolute_input_outside_the_project_is_not_followed(make_project, tmp_path):
    outside = make_project(tmp_path / "elsewhere", {"x.tex": lemma("lem:abs")})
    root = make_project(tmp_path / "proj", {"main.tex": root_doc(f"\\input{{{outside / 'x'}}}")})
    index = ProjectIndex.open(root)
    assert "lem:abs" not in index.claims
    assert diags(index, "path-outside-project")


def test_symlink_loop_in_an_input_terminates_with_a_diagnostic(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": root_doc("\\input{loop}\n" + lemma("lem:ok"))})
    os.symlink(root / "loop2.tex", root / "loop.tex")
    os.symlink(root / "loop.tex", root / "loop2.tex")
    index = open_with_timeout(root)
    (found,) = diags(index, "include-cycle")
    assert "symbolic link cycle" in found.message and "loop.tex" in found.message
    assert found.range.start.line == 2
    assert not diags(index, "missing-input")
    assert "lem:ok" in index.claims


def test_input_of_a_directory_says_it_is_a_directory(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": root_doc("\\input{adir}\n" + lemma("lem:ok"))})
    (root / "adir.tex").mkdir()
    index = open_with_timeout(root)
    (found,) = diags(index, "unreadable-input")
    assert "adir.tex is a directory" in found.message
    assert found.range.start.line == 2
    assert not diags(index, "missing-input")
    assert "lem:ok" in index.claims


def test_input_of_an_unreadable_file_says_permission_denied(make_project, tmp_path, monkeypatch):
    # the tests run as root here, where chmod 000 does not stop a read: the refusal is simulated
    root = make_project(tmp_path, {"main.tex": root_doc("\\input{secret}\n" + lemma("lem:ok")),
                                   "secret.tex": lemma("lem:secret")})
    real_read_bytes = type(root).read_bytes

    def refuse(path):
        if path.name == "secret.tex":
            raise PermissionError(13, "Permission denied", str(path))
        return real_read_bytes(path)

    monkeypatch.setattr(type(root), "read_bytes", refuse)
    index = open_with_timeout(root)
    (found,) = diags(index, "unreadable-input")
    assert "secret.tex cannot be read (permission denied)" in found.message
    assert found.range.start.line == 2
    assert not diags(index, "missing-input")
    assert "lem:secret" not in index.claims and "lem:ok" in index.claims


def test_input_of_a_file_that_is_not_utf8_is_read_with_a_warning(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": root_doc("\\input{latin}\n")})
    (root / "latin.tex").write_bytes(lemma("lem:latin").encode() + "caf\u00e9\n".encode("latin-1"))
    index = open_with_timeout(root)
    (found,) = diags(index, "encoding")
    assert found.file == root / "latin.tex" and "not valid UTF-8" in found.message
    assert not diags(index, "missing-input")
    assert "lem:latin" in index.claims


def test_symlinked_directory_loop_in_discovery_terminates(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": root_doc(lemma("lem:ok")), "sub/note.tex": "x\n"})
    os.symlink(root, root / "sub" / "back")
    index = open_with_timeout(root)
    assert index.roots == [root / "main.tex"]


def test_input_in_comment_or_iffalse_is_not_followed(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("% \\input{a}\n\\iffalse\\input{b}\\fi\n\\verb|\\input{c}|"),
        "a.tex": lemma("lem:a"), "b.tex": lemma("lem:b"), "c.tex": lemma("lem:c"),
    })
    index = ProjectIndex.open(root)
    assert index.claims == {}
    assert index.files() == [root / "main.tex"]


# ---- roots -------------------------------------------------------------------------------------------


def test_shared_file_is_scanned_once_for_two_roots(make_project, tmp_path, monkeypatch):
    shared_text = "% the shared body\n" + lemma("lem:shared") + "See \\cref{lem:shared}.\n"
    root = make_project(tmp_path, {
        "web.tex": root_doc("\\input{shared}"),
        "print.tex": root_doc("\\input{shared}"),
        "shared.tex": shared_text,
    })
    calls: Counter = Counter()
    real_scan = colosseum.index.project_index.scan

    def counting_scan(text, *args, **kwargs):
        calls[text] += 1
        return real_scan(text, *args, **kwargs)

    monkeypatch.setattr(colosseum.index.project_index, "scan", counting_scan)
    index = ProjectIndex.open(root)
    assert sorted(p.name for p in index.roots) == ["print.tex", "web.tex"]
    assert calls[shared_text] == 1
    assert list(index.claims) == ["lem:shared"]
    assert len(index.labels["lem:shared"]) == 1
    assert len(index.references) == 1
    assert "colosseum/duplicate-label" not in codes(index)
    assert sorted(p.name for p in index.file_roots[root / "shared.tex"]) == ["print.tex", "web.tex"]


def test_duplicate_labels_are_judged_per_root(make_project, tmp_path):
    root = make_project(tmp_path, {
        "a.tex": root_doc("\\input{x}"),
        "b.tex": root_doc("\\input{y}"),
        "x.tex": lemma("lem:same"),
        "y.tex": lemma("lem:same"),
    })
    index = ProjectIndex.open(root)
    assert len(index.labels["lem:same"]) == 2
    assert "colosseum/duplicate-label" not in codes(index)


def test_duplicate_labels_in_one_root_of_several(make_project, tmp_path):
    root = make_project(tmp_path, {
        "a.tex": root_doc("\\input{x}"),
        "both.tex": root_doc("\\input{x}\n\\input{y}"),
        "x.tex": lemma("lem:same"),
        "y.tex": lemma("lem:same"),
    })
    index = ProjectIndex.open(root)
    dups = diags(index, "duplicate-label")
    assert sorted(d.file.name for d in dups) == ["x.tex", "y.tex"]
    assert all("both.tex" in d.message for d in dups if d.file.name == "x.tex")


def test_magic_root_comment_file_is_not_a_root(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("\\input{sections/preview}"),
        "sections/preview.tex": "% !TEX root = ../main.tex\n\\documentclass{article}\n" + lemma("lem:p"),
        "other.tex": "%! TEX root = main.tex\n\\documentclass{article}\n\\begin{document}\\end{document}\n",
    })
    index = ProjectIndex.open(root)
    assert index.roots == [root / "main.tex"]


def test_standalone_and_subfiles_are_not_roots(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("Body."),
        "fig.tex": "\\documentclass[tikz]{standalone}\n\\begin{document}x\\end{document}\n",
        "part.tex": "\\documentclass[main.tex]{subfiles}\n\\begin{document}x\\end{document}\n",
        "commented.tex": "% \\documentclass{article}\nNot a root.\n",
    })
    index = ProjectIndex.open(root)
    assert index.roots == [root / "main.tex"]


def test_a_documentclass_shown_in_verbatim_or_lstlisting_is_not_a_root(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("\\input{howto}"),
        "howto.tex": "Start a paper with\n\\begin{verbatim}\n\\documentclass{article}\n\\end{verbatim}\n",
        "listing.tex": "\\begin{lstlisting}\n  \\documentclass[a4paper]{amsart}\n\\end{lstlisting}\n",
        "skipped.tex": "\\iffalse\n\\documentclass{article}\n\\fi\n",
        "late.tex": "\\begin{verbatim}\\documentclass{x}\\end{verbatim}\n\\documentclass{article}\n"
                    "\\begin{document}\\end{document}\n",
    })
    index = ProjectIndex.open(root)
    assert index.roots == [root / "late.tex", root / "main.tex"]


def test_every_documentclass_file_is_a_root(make_project, tmp_path):
    root = make_project(tmp_path, {"a.tex": root_doc("A"), "sub/b.tex": root_doc("B")})
    index = ProjectIndex.open(root)
    assert sorted(index.roots) == [root / "a.tex", root / "sub" / "b.tex"]


def test_configured_root(make_project, tmp_path):
    root = make_project(tmp_path, {
        "colosseum.toml": 'root = "paper.tex"\n',
        "paper.tex": root_doc(lemma("lem:paper")),
        "draft.tex": root_doc(lemma("lem:draft")),
    })
    index = ProjectIndex.open(root)
    assert index.roots == [root / "paper.tex"]
    assert set(index.claims) == {"lem:paper"}


def test_configured_root_that_does_not_exist(make_project, tmp_path):
    root = make_project(tmp_path, {
        "colosseum.toml": 'root = "missing.tex"\n',
        "paper.tex": root_doc(lemma("lem:paper")),
    })
    index = ProjectIndex.open(root)
    errors = diags(index, "config-error")
    assert errors and "missing.tex" in errors[0].message
    assert index.roots == [root / "paper.tex"]  # discovery still finds a root


def test_open_a_root_file_directly(make_project, tmp_path):
    root = make_project(tmp_path, {"a.tex": root_doc(lemma("lem:a")), "b.tex": root_doc(lemma("lem:b"))})
    index = ProjectIndex.open(root / "b.tex")
    assert index.roots == [root / "b.tex"]
    assert index.root_dir == root
    assert set(index.claims) == {"lem:b"}


def test_no_root_is_a_project_error(make_project, tmp_path):
    root = make_project(tmp_path, {"notes.tex": lemma("lem:a")})
    with pytest.raises(ProjectError):
        ProjectIndex.open(root)
    with pytest.raises(ProjectError):
        ProjectIndex.open(tmp_path / "does-not-exist")


def test_content_after_end_document_is_ignored(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": (root_doc(lemma("lem:in"))
                     + lemma("lem:after") + "\\label{after-label}\\ref{after-ref}\n\\input{tail}\n"),
        "tail.tex": lemma("lem:tail"),
    })
    index = ProjectIndex.open(root)
    assert set(index.claims) == {"lem:in"}
    assert "after-label" not in index.labels
    assert not [r for r in index.references if r.label == "after-ref"]
    assert "colosseum/undefined-reference" not in codes(index)


def test_missing_input_after_end_document_is_not_reported(make_project, tmp_path):
    # LaTeX stops at \end{document}: an \input after it is never read, so it cannot be missing
    root = make_project(tmp_path, {"main.tex": root_doc("Body.") + "\\input{nowhere}\n"})
    index = ProjectIndex.open(root)
    assert "colosseum/missing-input" not in codes(index)


def test_files_not_reached_from_a_root_are_not_indexed(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": root_doc(lemma("lem:a")), "orphan.tex": lemma("lem:orphan")})
    index = ProjectIndex.open(root)
    assert set(index.claims) == {"lem:a"}


def test_file_input_twice_defines_its_labels_twice(make_project, tmp_path):
    # LaTeX: "Label `lem:twice' multiply defined"
    root = make_project(tmp_path, {"main.tex": root_doc("\\input{a}\n\\input{a}\n\\ref{lem:twice}"),
                                   "a.tex": lemma("lem:twice")})
    index = ProjectIndex.open(root)
    assert list(index.claims) == ["lem:twice"]
    found = diags(index, "duplicate-label")
    assert found and all(d.file.name == "a.tex" for d in found)


def test_include_in_a_comment_environment_is_not_followed(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": root_doc("\\begin{comment}\n\\input{gone}\n\\end{comment}")})
    index = ProjectIndex.open(root)
    assert "colosseum/missing-input" not in codes(index)


# ---- project-local packages and classes ---------------------------------------------------------------

MYTHMS = "\\newtheorem{mythm}{Theorem}\n\\newcommand{\\lemref}[1]{Lemma~\\ref{#1}}\n"
USES_MYTHMS = "\\begin{mythm}\\label{t}\nBy \\lemref{zz}.\n\\end{mythm}\n"


def test_a_local_package_is_read_for_its_definitions(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": root_doc(USES_MYTHMS, "\\usepackage{amsmath,mythms}\n"),
                                   "mythms.sty": MYTHMS + "\\label{sty:label}\n\\begin{lemma}\\label{lem:sty}x\\end{lemma}\n"})
    index = ProjectIndex.open(root)
    assert index.claims["t"].kind == "mythm"
    (undefined,) = diags(index, "undefined-reference")
    assert "`zz`" in undefined.message and undefined.range.start.line == 4
    # what the package itself labels is no part of the document
    assert "lem:sty" not in index.claims and "sty:label" not in index.labels
    assert root / "mythms.sty" not in index.files()


def test_local_class_and_require_package_relative_to_the_loading_file(make_project, tmp_path):
    root = make_project(tmp_path, {
        "main.tex": root_doc("\\input{sub/part}\n", "").replace("{article}", "[11pt]{myclass}"),
        "myclass.cls": "\\LoadClass{article}\n\\RequirePackage{inner}\n",
        "inner.sty": "\\newtheorem{principle}{Principle}\n",
        "sub/part.tex": "\\usepackage{near}\n\\begin{principle}\\label{p}x\\end{principle}\n"
                        "\\begin{nearthm}\\label{n}y\\end{nearthm}\n",
        "sub/near.sty": "\\declaretheorem[name=Near]{nearthm}\n",
    })
    index = ProjectIndex.open(root)
    assert index.claims["p"].kind == "principle"
    assert index.claims["n"].kind == "nearthm"


def test_a_system_package_or_one_outside_the_project_is_not_read(make_project, tmp_path):
    make_project(tmp_path / "outside", {"evil.sty": "\\newtheorem{evilthm}{Evil}\n"})
    root = make_project(tmp_path / "proj", {
        "main.tex": root_doc("\\begin{evilthm}\\label{e}x\\end{evilthm}\n", "\\usepackage{amsthm,../outside/evil}\n")})
    index = ProjectIndex.open(root)
    assert "e" not in index.claims
    assert not diags(index, "missing-input")


def test_packages_that_load_each_other_terminate(make_project, tmp_path):
    root = make_project(tmp_path, {"main.tex": root_doc(USES_MYTHMS, "\\usepackage{a}\n"),
                                   "a.sty": "\\RequirePackage{b}\n", "b.sty": "\\RequirePackage{a}\n" + MYTHMS})
    index = open_with_timeout(root)
    assert index.claims["t"].kind == "mythm"


def test_editing_a_local_package_updates_the_index_like_a_cold_build(make_project, tmp_path):
    from index_fingerprint import differences, fingerprint

    files = {"main.tex": root_doc(USES_MYTHMS + "\\begin{other}\\label{o}z\\end{other}\n", "\\usepackage{mythms}\n"),
             "mythms.sty": MYTHMS}
    live = make_project(tmp_path / "live", files)
    index = ProjectIndex.open(live)
    index.diagnostics()
    assert "o" not in index.claims
    edits = [MYTHMS + "\\newtheorem{other}{Other}\n",
             "\\newtheorem{mythm}{Theorem}\n\\newcommand{\\lemref}[1]{Lemma~\\cref{#1}}\n",
             "\\newtheorem{other}{Other}\n", ""]
    for number, text in enumerate(edits):
        (live / "mythms.sty").write_text(text, encoding="utf-8")
        index.update_document(live / "mythms.sty", None)
        cold = ProjectIndex.open(make_project(tmp_path / f"cold{number}", {**files, "mythms.sty": text}))
        diff = differences(fingerprint(index), fingerprint(cold))
        assert not diff, f"after edit {number}:\n" + "\n".join(diff)
        if number == 0:
            assert index.claims["o"].kind == "other" and index.claims["t"].kind == "mythm"
    assert "o" not in index.claims and "t" not in index.claims


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_a_named_pipe_in_the_project_is_reported_not_read(make_project, tmp_path):
    """Reading a FIFO blocks until something writes to it: discovery (which reads every .tex)
    and an \\input of one must not wait forever."""
    root = make_project(tmp_path, {"main.tex": "\\documentclass{article}\n\\begin{document}\n\\input{pipe}\n"
                                               "\\end{document}\n"})
    os.mkfifo(root / "pipe.tex")
    os.mkfifo(root / "stray.tex")
    index = open_with_timeout(root, 30)
    [finding] = [d for d in index.diagnostics() if "pipe" in d.message]
    assert finding.code == "colosseum/unreadable-input" and "not a regular file" in finding.message
