"""Public output formats of the index: diagnostics and the DAG as JSON, DOT and Mermaid.

These formats are documented in the README and kept stable; fields are only ever added."""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING

from colosseum.core.schema_version import SCHEMA_VERSION
from colosseum.core.structure import Diagnostic
from colosseum.graph.plain_text import latex_to_text
from colosseum.graph.status import NOTHING_OWED, section_holdings, section_summary, status_words

if TYPE_CHECKING:
    from colosseum.graph.view import DrawnProject as ProjectIndex  # what a drawing reads of the index

# the drawings colour a claim Lean has checked apart ("formal"); in the JSON its status is "proved"
# (the status values are public and may grow: proved, open, obligation, conditional, draft, stated)
# and "lean_checked" is true. "stated" (a definition, exercise, axiom: no proof owed, none given) is
# settled but not proved: a colour of its own, not the proved green
STATUS_COLOURS = {"proved": "#2e7d32", "open": "#9e9e9e", "obligation": "#c62828", "conditional": "#ef6c00",
                 "formal": "#1565c0", "draft": "#8e24aa", "stated": "#546e7a"}


# computational evidence (a probe checked small cases: catalog kind `computation`) is a mark on the
# node's outline, never its fill: the fill is the claim's status, and a probe proves nothing
COMPUTATION_MARKS = {"checked": ("#f9a825", "checked on small cases"),
                     "counterexample": ("#d50000", "counterexample found")}


class WithEvidence:
    """A project as the drawings read it, with the catalog's evidence of each claim (label -> lists
    by kind, colosseum.catalog.evidence): ``node_records`` adds it as ``"evidence"``."""

    def __init__(self, index: "ProjectIndex", claim_evidence: dict):
        self._index = index
        self.claim_evidence = claim_evidence

    def __getattr__(self, name):
        return getattr(self._index, name)


def computation_mark(node: dict) -> str | None:
    """"counterexample" when a probe found one, "checked" when probes found none, else None."""
    items = (node.get("evidence") or {}).get("computation") or []
    if any(item.get("verdict") == "counterexample" for item in items):
        return "counterexample"
    return "checked" if items else None


def drawn_status(node: dict) -> str:
    """The status a drawing colours a node record by."""
    if node.get("holds", "").startswith(NOTHING_OWED):
        return "stated"  # a section that owes nothing is not "proved": it holds no result to prove
    return "formal" if node.get("lean_checked") else node["status"]


def diagnostic_record(index: "ProjectIndex", diag: Diagnostic) -> dict:
    return {
        "file": index.relative(diag.file),
        "line": diag.range.start.line + 1,
        "column": diag.range.start.character + 1,
        "severity": diag.severity,
        "code": diag.code,
        "message": diag.message,
    }


def diagnostics_text(index: "ProjectIndex", diagnostics: list[Diagnostic]) -> str:
    lines = []
    for diag in diagnostics:
        rec = diagnostic_record(index, diag)
        lines.append(f"{rec['file']}:{rec['line']}:{rec['column']}: {rec['severity']} {rec['code']}: {rec['message']}")
    return "\n".join(lines)


def diagnostics_json(index: "ProjectIndex", diagnostics: list[Diagnostic]) -> str:
    return json.dumps({"schema_version": SCHEMA_VERSION, "diagnostics": [diagnostic_record(index, d) for d in diagnostics]},
                      indent=2, ensure_ascii=False)


def node_records(index: "ProjectIndex") -> list[dict]:
    graph = index.graph
    evidence = getattr(index, "claim_evidence", None)
    nodes = []
    holdings = section_holdings(graph) if index.sections else {}
    for sid, section in index.sections.items():
        # "status" is the worst of what it holds (kept as it was); "holds" says it in words, since
        # "proved" is said of results: "all 5 claims proved", "2 of 5 open", "nothing owed"
        nodes.append({"id": sid, "kind": "section", "title": section.title, "file": index.relative(section.file),
                      "line": section.location.range.start.line + 1, "status": graph.status[sid], "formal": False,
                      "lean_checked": False, "holds": section_summary(graph, sid, holdings.get(sid, {}))})
    for cid, claim in index.claims.items():
        checked = graph.status[cid] == "formal"
        record = {"id": cid, "kind": claim.kind, "title": claim.title, "file": index.relative(claim.file),
                  "line": claim.location.range.start.line + 1, "status": "proved" if checked else graph.status[cid],
                  # the author's marks, as blueprints mean them; what Lean checked is lean_checked
                  "formal": bool(claim.leanok or claim.mathlibok), "lean_checked": checked}
        record.update(draft_fields(claim))
        if evidence is not None:  # the catalog was read: every claim's evidence, by kind
            record["evidence"] = evidence.get(cid, {})
        nodes.append(record)
    nodes.sort(key=lambda n: (n["file"], n["line"], n["id"]))
    return nodes


def draft_fields(claim) -> dict:
    """``"draft": true`` and ``"draft_run"`` for a claim whose proof is a model's draft (its marker,
    colosseum.latex.draft_marker), nothing for any other: the fields are added, never changed."""
    proof = claim.proof
    if proof is None or proof.draft_run is None:
        return {}
    return {"draft": True, "draft_run": proof.draft_run}


def dag_json(index: "ProjectIndex") -> str:
    edges = [{"source": e.source, "target": e.target, "kind": e.kind} for e in index.graph.edges]
    edges.sort(key=lambda e: (e["target"], e["source"], e["kind"]))
    # one node or edge per line: readable, and json's C encoder (indent= would use the slow one)
    nodes = ",\n".join(json.dumps(n, ensure_ascii=False) for n in node_records(index))
    lines = ",\n".join(json.dumps(e, ensure_ascii=False) for e in edges)
    return '{"schema_version": ' + str(SCHEMA_VERSION) + ', "nodes": [\n' + nodes + '\n],\n"edges": [\n' + lines + "\n]}"


def _quote(text: str) -> str:
    """A DOT string: backslashes and quotes escaped, a line break as DOT's own ``\\n``."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# a drawing labels an edge only where its kind is not the usual one: most uses are in proofs
# (dashed); a use in a statement is solid and says so; contains is dotted, from a section
EDGE_STYLES = {"statement-uses": "solid", "proof-uses": "dashed", "contains": "dotted"}
EDGE_LABELS = {"statement-uses": "statement"}
TITLE_WIDTH = 32  # characters per line of a drawn title: wrapped, never cut


def drawn_label(node: dict) -> str:
    """A node's label in a drawing: its id, then its title as text, wrapped (colosseum.graph.plain_text)."""
    title = latex_to_text(node["title"])
    return node["id"] + ("\n" + "\n".join(textwrap.wrap(title, TITLE_WIDTH)) if title else "")


def _dot_legend() -> list[str]:
    """A legend cluster: one swatch per status and one edge per line style, kept apart from the
    claims' ranks (its nodes are named so that no label can take them)."""
    out = ['  subgraph cluster_legend {', '    label="Legend"; fontsize=10; style=rounded; color="#bbbbbb";']
    previous = None
    for status, colour in STATUS_COLOURS.items():
        out.append(f'    "colosseum-legend:{status}" [label={_quote(status)}, fillcolor={_quote(colour)}];')
        if previous:  # an invisible chain keeps the swatches in one column
            out.append(f'    "colosseum-legend:{previous}" -> "colosseum-legend:{status}" [style=invis];')
        previous = status
    for mark, (colour, meaning) in COMPUTATION_MARKS.items():  # an outline, on white: no status's fill
        out.append(f'    "colosseum-legend:{mark}" [label={_quote(meaning)}, fillcolor="white", fontcolor="black", '
                   f'color={_quote(colour)}, penwidth=3];')
        out.append(f'    "colosseum-legend:{previous}" -> "colosseum-legend:{mark}" [style=invis];')
        previous = mark
    for kind, style in EDGE_STYLES.items():
        out.append(f'    "colosseum-legend:{kind}:from" [label="", shape=point, width=0.05];')
        out.append(f'    "colosseum-legend:{kind}:to" [label={_quote(kind)}, shape=plaintext, fontcolor=black];')
        out.append(f'    "colosseum-legend:{kind}:from" -> "colosseum-legend:{kind}:to" [style={style}];')
    out.append("  }")
    return out


def dag_dot(index: "ProjectIndex") -> str:
    out = ["digraph colosseum {", "  rankdir=LR; ranksep=0.6; nodesep=0.25;",
           '  node [shape=box, style="rounded,filled", fontcolor=white, fontname="Helvetica", fontsize=11];',
           '  edge [color="#555555", arrowsize=0.7, fontname="Helvetica", fontsize=9];']
    for node in node_records(index):
        label = drawn_label(node)
        shape = "folder" if node["kind"] == "section" else "box"
        said = f"holds: {node['holds']}" if "holds" in node else status_words(drawn_status(node))
        tooltip = f"{node['kind']} {node['id']} ({said}) {node['file']}:{node['line']}"
        mark = computation_mark(node)
        outline = ""
        if mark is not None:
            colour, meaning = COMPUTATION_MARKS[mark]
            outline, tooltip = f", color={_quote(colour)}, penwidth=3", f"{tooltip}; {meaning} (not a proof)"
        out.append(f"  {_quote(node['id'])} [label={_quote(label)}, shape={shape}, "
                   f"fillcolor={_quote(STATUS_COLOURS[drawn_status(node)])}{outline}, tooltip={_quote(tooltip)}];")
    for edge in index.graph.edges:
        label = f", label={_quote(EDGE_LABELS[edge.kind])}" if edge.kind in EDGE_LABELS else ""
        out.append(f"  {_quote(edge.source)} -> {_quote(edge.target)} [style={EDGE_STYLES[edge.kind]}, "
                   f"class={_quote(edge.kind)}{label}];")
    out.extend(_dot_legend())
    out.append("}")
    return "\n".join(out)


def dag_mermaid(index: "ProjectIndex") -> str:
    ids = {}
    out = ["graph TD"]
    records = node_records(index)
    for i, node in enumerate(records):
        ids[node["id"]] = f"n{i}"
        title = latex_to_text(node["title"])
        text = node["id"] + (f": {title}" if title else "")
        text = text.replace('"', "'")
        out.append(f'  n{i}["{text}"]:::{drawn_status(node)}')
    arrows = {"statement-uses": "-->", "proof-uses": "-.->", "contains": "---"}
    for edge in index.graph.edges:
        if edge.source in ids and edge.target in ids:
            out.append(f"  {ids[edge.source]} {arrows[edge.kind]}|{edge.kind}| {ids[edge.target]}")
    for status, colour in STATUS_COLOURS.items():
        out.append(f"  classDef {status} fill:{colour},color:#fff")
    marked = [(ids[n["id"]], computation_mark(n)) for n in records if computation_mark(n)]
    for mark, (colour, _meaning) in COMPUTATION_MARKS.items() if marked else ():  # an outline beside the fill
        out.append(f"  classDef {mark} stroke:{colour},stroke-width:3px")
    out += [f"  class {node} {mark}" for node, mark in marked]
    return "\n".join(out)


def obligation_ids(index) -> list[str]:
    """The claims and sections the author marked as obligations, in graph order: what
    ``colosseum obligations`` lists and the editor's status bar counts. Not the nodes whose status
    is "obligation": a section holding an obligation has that status without being one."""
    return [node for node in index.graph.status
            if (node in index.claims and index.claims[node].obligation)
            or (node in index.sections and index.sections[node].obligation)]


def obligation_plan(index: "ProjectIndex") -> list[dict]:
    """Obligations in a valid solve order (DAG generations), with what each still waits on."""
    graph = index.graph
    evidence = getattr(index, "claim_evidence", None)
    order = {node: i for i, layer in enumerate(graph.generations()) for node in layer}
    plan = []
    for node in obligation_ids(index):
        status = graph.status[node]
        waits = sorted(a for a in graph.ancestors(node) if graph.status.get(a) in ("open", "obligation", "draft"))
        item = index.claims.get(node) or index.sections.get(node)
        entry = {"id": node, "status": status, "generation": order.get(node, 0) + 1,
                 "file": index.relative(item.file), "line": item.location.range.start.line + 1,
                 "waits_on": waits}
        if node in index.claims:
            entry.update(draft_fields(index.claims[node]))
        if evidence is not None and node in index.claims:  # the catalog's computations: small cases, not a proof
            entry["computation"] = (evidence.get(node) or {}).get("computation") or []
        plan.append(entry)
    plan.sort(key=lambda p: (p["generation"], p["file"], p["line"]))
    return plan
