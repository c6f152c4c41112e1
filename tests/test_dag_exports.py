"""`colosseum dag --format graphml|gexf|svg|html` and `--transitive-reduction`."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

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
