"""`colosseum dag --format graphml|gexf|svg|html` and `--transitive-reduction`."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import colosseum
from colosseum.cli.main import main

PREAMBLE = "\\documentclass{article}\n\\usepackage{amsthm}\n"


def doc(body: str) -> str:
    return PREAMBLE + "\\begin{document}\n" + body + "\n\\end{document}\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def diamond(make_project, tmp_path):
    """a -> b -> d and a -> c -> d (a diamond) with the shortcut a -> d; the circle e <-> f, fed
    by d and by the shortcut a -> e (implied by a -> b -> d -> e)."""
    return make_project(tmp_path, {"main.tex": doc(
        "\\section{Main}\\label{sec:main}\n"
        "\\begin{lemma}[The \\emph{first} step]\\label{lem:a}A.\\end{lemma}\n"
        "\\begin{lemma}\\label{lem:b}By \\cref{lem:a}.\\end{lemma}\n"
        "\\begin{lemma}\\label{lem:c}By \\cref{lem:a}.\\end{lemma}\n"
        "\\begin{theorem}\\label{thm:d}\\obligation By \\cref{lem:b}, \\cref{lem:c} and \\cref{lem:a}.\\end{theorem}\n"
        "\\begin{lemma}\\label{lem:e}By \\cref{lem:f}, \\cref{thm:d} and \\cref{lem:a}.\\end{lemma}\n"
        "\\begin{lemma}\\label{lem:f}By \\cref{lem:e}.\\end{lemma}\n")})


def uses(edges) -> set[tuple[str, str]]:
    return {(s, t) for s, t, kind in edges if kind != "contains"}


def graphml_edges(root: ET.Element) -> tuple[dict[str, dict], list[tuple[str, str, str]]]:
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    keys = {k.get("id"): k.get("attr.name") for k in root.findall("g:key", ns)}
    nodes = {}
    for node in root.iter("{http://graphml.graphdrawing.org/xmlns}node"):
        nodes[node.get("id")] = {keys[d.get("key")]: d.text for d in node.findall("g:data", ns)}
    edges = []
    for edge in root.iter("{http://graphml.graphdrawing.org/xmlns}edge"):
        data = {keys[d.get("key")]: d.text for d in edge.findall("g:data", ns)}
        edges.append((edge.get("source"), edge.get("target"), data["kind"]))
    return nodes, edges


def test_graphml_has_every_node_edge_and_attribute(diamond, capsys):
    code, out, _ = run(capsys, "dag", str(diamond), "--format", "graphml")
    assert code == 0
    nodes, edges = graphml_edges(ET.fromstring(out))
    _, js, _ = run(capsys, "dag", str(diamond), "--format", "json")
    data = json.loads(js)
    assert set(nodes) == {n["id"] for n in data["nodes"]}
    assert sorted(edges) == sorted((e["source"], e["target"], e["kind"]) for e in data["edges"])
    d = nodes["thm:d"]
    assert {"label", "kind", "title", "status", "file", "line", "draft"} <= set(d)
    assert (d["label"], d["kind"], d["status"], d["file"], d["line"], d["draft"].lower()) == (
        "thm:d", "theorem", "obligation", "main.tex", "8", "false")
    assert "first" in nodes["lem:a"]["title"]


def test_gexf_has_every_node_edge_and_attribute(diamond, capsys):
    code, out, _ = run(capsys, "dag", str(diamond), "--format", "gexf")
    assert code == 0
    root = ET.fromstring(out)
    ns = root.tag.split("}")[0] + "}"
    attr_names = {a.get("id"): a.get("title") for a in root.iter(ns + "attribute")}
    nodes = {}
    for node in root.iter(ns + "node"):
        values = {attr_names[v.get("for")]: v.get("value") for v in node.iter(ns + "attvalue")}
        nodes[node.get("id")] = dict(values, label=node.get("label"))
    edges = []
    for edge in root.iter(ns + "edge"):
        values = {attr_names[v.get("for")]: v.get("value") for v in edge.iter(ns + "attvalue")}
        edges.append((edge.get("source"), edge.get("target"), values["kind"]))
    assert {"lem:a", "lem:b", "lem:c", "thm:d", "lem:e", "lem:f", "sec:main"} <= set(nodes)
    assert nodes["lem:b"]["status"] == "open" and nodes["lem:b"]["line"] == "6"
    assert nodes["thm:d"]["kind"] == "theorem" and nodes["thm:d"]["file"] == "main.tex"
    assert ("lem:a", "thm:d", "statement-uses") in edges
    assert ("sec:main", "lem:a", "contains") in edges


def test_transitive_reduction_drops_the_shortcut_and_keeps_the_circle(diamond, capsys):
    _, full, _ = run(capsys, "dag", str(diamond), "--format", "json")
    _, reduced, _ = run(capsys, "dag", str(diamond), "--format", "json", "--transitive-reduction")
    full_edges = {(e["source"], e["target"], e["kind"]) for e in json.loads(full)["edges"]}
    reduced_edges = {(e["source"], e["target"], e["kind"]) for e in json.loads(reduced)["edges"]}
    assert {("lem:a", "thm:d"), ("lem:a", "lem:e")} <= uses(full_edges)
    dropped = uses(full_edges) - uses(reduced_edges)
    assert dropped == {("lem:a", "thm:d"), ("lem:a", "lem:e")}  # the shortcuts, nothing else
    assert {("lem:e", "lem:f"), ("lem:f", "lem:e"), ("thm:d", "lem:e")} <= uses(reduced_edges)
    assert {e for e in full_edges if e[2] == "contains"} <= reduced_edges


@pytest.mark.parametrize("fmt", ["graphml", "gexf", "dot", "mermaid", "html"])
def test_transitive_reduction_applies_to_every_format(diamond, capsys, fmt):
    _, full, _ = run(capsys, "dag", str(diamond), "--format", fmt)
    _, reduced, _ = run(capsys, "dag", str(diamond), "--format", fmt, "--transitive-reduction")
    assert full != reduced
    if fmt == "graphml":
        _, edges = graphml_edges(ET.fromstring(reduced))
        assert ("lem:a", "thm:d") not in uses(edges) and ("lem:b", "thm:d") in uses(edges)
    if fmt == "dot":
        assert re.search(r'"lem:a" -> "thm:d"', full) and not re.search(r'"lem:a" -> "thm:d"', reduced)


# ---- DOT and SVG -------------------------------------------------------------------------------------


def test_dot_is_left_to_right_with_plain_titles_a_legend_and_few_edge_labels(make_project, tmp_path, capsys):
    root = make_project(tmp_path, {"main.tex": doc(
        "\\begin{lemma}[The \\emph{first} step]\\label{lem:a}A.\\end{lemma}\n"
        "\\begin{lemma}\\label{lem:b}By \\cref{lem:a}.\\end{lemma}\n"
        "\\begin{theorem}\\label{thm:d}D.\\end{theorem}\n\\begin{proof}By \\cref{lem:b}.\\end{proof}\n")})
    code, out, _ = run(capsys, "dag", str(root), "--format", "dot")
    assert code == 0
    assert "rankdir=LR" in out
    assert '"lem:a" [label="lem:a\\nThe first step"' in out  # \emph taken away
    assert "\\emph" not in out
    # a use in a proof (the usual kind) carries no label; a use in a statement says so
    proof_use = re.search(r'^\s*"lem:b" -> "thm:d" \[([^\]]*)\];$', out, re.M)
    statement_use = re.search(r'^\s*"lem:a" -> "lem:b" \[([^\]]*)\];$', out, re.M)
    assert proof_use and statement_use
    assert "label" not in proof_use.group(1) and "proof-uses" in proof_use.group(1)
    assert 'label="statement"' in statement_use.group(1)
    legend = out[out.index("subgraph cluster_legend"):]
    for status in ("proved", "open", "obligation", "conditional", "formal", "draft"):
        assert f'"colosseum-legend:{status}" [label="{status}"' in legend


def test_dot_wraps_long_titles_instead_of_cutting_them(make_project, tmp_path, capsys):
    title = "A very long title about the chromatic number of sparse uniform hypergraphs of high girth"
    root = make_project(tmp_path, {"main.tex": doc(f"\\begin{{lemma}}[{title}]\\label{{lem:long}}A.\\end{{lemma}}\n")})
    _, out, _ = run(capsys, "dag", str(root), "--format", "dot")
    label = re.search(r'"lem:long" \[label="([^"]*)"', out).group(1)
    lines = label.split("\\n")
    assert len(lines) > 2 and " ".join(lines[1:]) == title


def test_plain_text_of_common_macros():
    from colosseum.graph.plain_text import latex_to_text

    assert latex_to_text(r"The \emph{first} step") == "The first step"
    assert latex_to_text(r"By \cref{lem:a,lem:b} and \eqref{eq:1}") == "By lem:a, lem:b and (eq:1)"
    assert latex_to_text(r"Bound for $\alpha_{n}$ in \textbf{\emph{all}} cases~\cite[p.~3]{Knuth}") == \
        r"Bound for $\alpha_{n}$ in all cases [Knuth]"
    assert latex_to_text(r"Ramsey--Tur\'an ``numbers'' for G\"odel") == "Ramsey\u2013Tur\u00e1n \u201cnumbers\u201d for G\u00f6del"
    assert latex_to_text(None) == ""


def test_mermaid_titles_are_text(diamond, capsys):
    _, out, _ = run(capsys, "dag", str(diamond), "--format", "mermaid")
    assert '["lem:a: The first step"]' in out and "\\emph" not in out


def test_svg_without_graphviz_exits_1_naming_it(diamond, capsys, monkeypatch):
    monkeypatch.setenv("PATH", "")
    code, out, err = run(capsys, "dag", str(diamond), "--format", "svg")
    assert code == 1 and out == ""
    assert "graphviz" in err and "dot" in err


def test_svg_through_graphviz(diamond, capsys):
    import os
    import shutil

    if shutil.which("dot") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("graphviz's dot is not installed (tests/run_all.sh installs it)")
        pytest.skip("graphviz's dot is not installed here")
    code, out, _ = run(capsys, "dag", str(diamond), "--format", "svg")
    assert code == 0
    root = ET.fromstring(out)
    assert root.tag.endswith("svg")
    titles = {t.text for t in root.iter("{http://www.w3.org/2000/svg}title")}
    assert {"lem:a", "thm:d", "colosseum-legend:obligation"} <= titles  # graphviz titles a node by its id


# ---- the HTML page -----------------------------------------------------------------------------------


def page_data(page: str) -> dict:
    found = re.search(r'<script id="graph-data" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


def test_html_page_is_offline_with_legend_arrows_search_and_every_claim(diamond, capsys):
    code, page, _ = run(capsys, "dag", str(diamond), "--format", "html")
    assert code == 0
    assert not re.search(r'(src|href)="(https?:)?//', page) and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "").replace('"http://www.w3.org/2000/svg"', "")
    assert '<marker id="arrow"' in page and 'marker-end' in page
    # the layout library inlined whole, with its licence notice, and no source map to fetch
    vendored = (Path(colosseum.__file__).parent / "data" / "vendor" / "dagre.min.js").read_text(encoding="utf-8")
    assert vendored.split("\n//# sourceMappingURL")[0] in page and "sourceMappingURL" not in page
    assert "Copyright (c) 2012-2014 Chris Pettitt" in page and "Permission is hereby granted" in page
    assert '<input id="search" type="search"' in page and 'id="focus"' in page
    legend = re.search(r'<span class="legend" id="legend">(.*?)</span></header>', page, re.S).group(1)
    for status in ("proved", "open", "obligation", "conditional", "formal", "draft"):
        assert f'data-status="{status}"' in legend
    assert "slice(0, 30)" not in page  # names are wrapped, not cut
    data = page_data(page)
    _, js, _ = run(capsys, "dag", str(diamond), "--format", "json")
    claims = {n["id"] for n in json.loads(js)["nodes"]}
    assert {n["id"] for n in data["nodes"]} == claims
    assert {n for layer in data["layers"] for n in layer} == claims  # every node is placed
    first = next(n for n in data["nodes"] if n["id"] == "lem:a")
    assert (first["text"], first["file"], first["line"], first["status"]) == ("The first step", "main.tex", 5, "open")
    assert first["uri"] == (diamond / "main.tex").resolve().as_uri()  # the link works wherever the page is saved
    assert ("lem:a", "thm:d") in {(e["source"], e["target"]) for e in data["edges"]}


def test_html_legend_counts_claims_and_names_only_the_edges_it_draws(diamond, capsys):
    # da2020 (120 claims, 216 sections): the legend said "proved (323)", counting sections, and
    # "contains: dotted" for a line the page never draws
    _, page, _ = run(capsys, "dag", str(diamond), "--format", "html")
    legend = re.search(r'<span class="legend" id="legend">(.*?)</span></header>', page, re.S).group(1)
    counts = [int(n) for n in re.findall(r'data-status="\w+"><i[^>]*></i>\w+ \((\d+)\)', legend)]
    assert sum(counts) == 6  # lem:a..f; the section sec:main is not a result
    assert "contains" not in legend and "statement-uses: solid" in legend
    assert "6 claims, 1 section, " in page


def test_html_data_cannot_end_its_script_early(make_project, tmp_path, capsys):
    root = make_project(tmp_path, {"main.tex": doc(
        "\\begin{lemma}[Bad </script><script>alert(1)</script> <!-- title]\\label{lem:a}A.\\end{lemma}\n")})
    _, page, _ = run(capsys, "dag", str(root), "--format", "html")
    assert "alert(1)</script>" not in page and page.count("</script>") == 3  # dagre, the data, the page's script
    assert page_data(page)["nodes"][0]["title"].startswith("Bad </script>")


def test_html_page_draws_selects_focuses_and_searches(diamond, capsys, tmp_path):
    """The page's own script, run in node against a small DOM double (tests/dag_page_dom.js)."""
    import os
    import shutil
    import subprocess
    from pathlib import Path

    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is not installed")
        pytest.skip("node is not installed here")
    _, page, _ = run(capsys, "dag", str(diamond), "--format", "html")
    (tmp_path / "page.html").write_text(page, encoding="utf-8")
    done = subprocess.run([node, str(Path(__file__).with_name("dag_page_dom.js")), str(tmp_path / "page.html"), "THM:D"],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("nodes drawn 7 edges drawn")
    edges = int(lines[0].split()[-1])
    assert lines[1] == f"layout done dagre placed 7 routed {edges}"  # the vendored dagre laid every node out
    assert "status:" in done.stdout and "main.tex:" in done.stdout
    hidden = int(re.search(r"hidden in focus (\d+)", done.stdout).group(1))
    assert 0 < hidden < 7
    assert "hits 1" in lines  # search ignores case
    # without dagre (as above its budget) the page lays out by generation itself, and says which it did
    done = subprocess.run([node, str(Path(__file__).with_name("dag_page_dom.js")), str(tmp_path / "page.html"), "THM:D",
                           "no-dagre"], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[1] == f"layout done layered placed 7 routed {edges}"
    assert "focus layout layered" in done.stdout and "hits 1" in done.stdout.splitlines()


ROLES = ("\\newtheorem{theorem}{Theorem}\\newtheorem{definition}{Definition}\\newtheorem{ex}{Exercise}"
         "\\newtheorem{exs}{Exercise}\\newtheorem{axiom}{Axiom}\\newtheorem{conjecture}{Conjecture}\n"
         "\\section{Results}\\label{sec:results}\n"
         "\\begin{theorem}\\label{thm:a}A\\end{theorem}\\begin{proof}ok\\end{proof}\n"
         "\\begin{theorem}\\label{thm:b}B\\end{theorem}\n"
         "\\section{Exercises}\\label{sec:exercises}\n"
         "\\begin{definition}\\label{def:x}X\\end{definition}\n\\begin{ex}\\label{ex:one}Show.\\end{ex}\n"
         "\\begin{exs}\\label{ex:two}Show.\\end{exs}\n\\begin{axiom}\\label{ax:c}C\\end{axiom}\n"
         "\\begin{conjecture}\\label{conj:d}D\\end{conjecture}\n"
         "\\section{Empty}\\label{sec:empty}\n")


def test_claims_that_owe_no_proof_are_stated_not_proved_in_every_output(make_project, tmp_path, capsys):
    # da2020: exercises (ex, exs) were green "proved" though an exercise has no proof
    root = make_project(tmp_path, {"main.tex": doc(ROLES)})
    _, out, _ = run(capsys, "dag", str(root), "--format", "json")
    status = {n["id"]: n["status"] for n in json.loads(out)["nodes"]}
    assert {k: status[k] for k in ("def:x", "ex:one", "ex:two", "ax:c")} == dict.fromkeys(
        ("def:x", "ex:one", "ex:two", "ax:c"), "stated")
    assert status["conj:d"] == "open" and status["thm:a"] == "proved" and status["thm:b"] == "open"
    _, page, _ = run(capsys, "dag", str(root), "--format", "html")
    legend = re.search(r'<span class="legend" id="legend">(.*?)</span></header>', page, re.S).group(1)
    assert '<span data-status="stated"><i style="background:#546e7a"></i>stated: no proof expected (4)</span>' in legend
    assert re.search(r'data-status="proved"><i[^>]*></i>proved \(1\)', legend)
    assert {n["id"]: n["status"] for n in page_data(page)["nodes"]}["ex:one"] == "stated"
    _, dot, _ = run(capsys, "dag", str(root), "--format", "dot")
    assert re.search(r'"ex:one" \[[^\n]*fillcolor="#546e7a"[^\n]*tooltip="ex ex:one \(stated \(no proof expected\)\)', dot)
    assert '"colosseum-legend:stated" [label="stated"' in dot
    _, mermaid, _ = run(capsys, "dag", str(root), "--format", "mermaid")
    assert "classDef stated fill:#546e7a" in mermaid and re.search(r'\["ex:one"\]:::stated', mermaid)


def test_a_section_says_what_it_holds_in_json_and_drawings(make_project, tmp_path, capsys):
    # the audit: sections were "proved" in hover and on the page; a section holds claims
    root = make_project(tmp_path, {"main.tex": doc(ROLES)})
    _, out, _ = run(capsys, "dag", str(root), "--format", "json")
    nodes = {n["id"]: n for n in json.loads(out)["nodes"]}
    assert nodes["sec:results"]["holds"] == "1 of 2 open" and nodes["sec:results"]["status"] == "open"
    assert nodes["sec:exercises"]["holds"] == "1 of 1 open"  # the conjecture; the rest owe nothing
    assert nodes["sec:empty"]["holds"] == "nothing owed" and nodes["sec:empty"]["status"] == "proved"  # kept
    assert "holds" not in nodes["thm:a"]
    _, page, _ = run(capsys, "dag", str(root), "--format", "html")
    drawn = {n["id"]: n for n in page_data(page)["nodes"]}
    assert drawn["sec:empty"]["status"] == "stated" and drawn["sec:results"]["holds"] == "1 of 2 open"
    assert 'data-kind="section">section: the colour of the least settled claim it holds' in page
    _, dot, _ = run(capsys, "dag", str(root), "--format", "dot")
    assert 'tooltip="section sec:results (holds: 1 of 2 open)' in dot


def test_section_summaries_in_words():
    from colosseum.graph.dag import DependencyGraph
    from colosseum.graph.status import section_summary
    graph = DependencyGraph()
    assert section_summary(graph, "s", {"proved": 4, "formal": 1}) == "all 5 claims proved"
    assert section_summary(graph, "s", {"proved": 1}) == "its claim proved"
    assert section_summary(graph, "s", {"proved": 3, "open": 2}) == "2 of 5 open"
    assert section_summary(graph, "s", {"proved": 1, "obligation": 1, "draft": 1, "stated": 4}) == \
        "1 of 3 an open obligation, 1 of 3 a draft"
    assert section_summary(graph, "s", {"stated": 2}) == "nothing owed (2 claims, none needing a proof)"
    assert section_summary(graph, "s", {}) == "nothing owed"
