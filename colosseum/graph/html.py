"""A self-contained HTML page of the DAG (no network, no library: one file that opens offline).

Layers by generation from left to right, arrowheads, full names wrapped (never cut), status colours
with a legend, search by label or title, a click shows the claim (title as text, status, file:line)
and focus mode shows only one claim's ancestors and descendants. The layout is computed in the page
in linear time, so that a blueprint of a few thousand claims still opens."""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from colosseum.graph.export import COMPUTATION_MARKS, EDGE_STYLES, STATUS_COLOURS, computation_mark, drawn_status, node_records
from colosseum.graph.plain_text import latex_to_text

if TYPE_CHECKING:
    from colosseum.graph.view import DrawnProject as ProjectIndex  # what a drawing reads of the index

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;display:flex;flex-direction:column;height:100vh}
header{padding:6px 12px;border-bottom:1px solid #ddd;display:flex;flex-wrap:wrap;gap:10px;align-items:center}
.legend span{display:inline-block;margin-right:10px;font-size:13px}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;border-radius:2px;vertical-align:-1px}
main{flex:1;display:flex;min-height:0}#view{flex:1;overflow:auto}
aside{width:320px;border-left:1px solid #ddd;padding:10px;overflow:auto;font-size:14px}
aside code{background:#f3f3f3;padding:1px 4px}aside ul{padding-left:18px}aside a{cursor:pointer;color:#1565c0}
svg{display:block}text{font-size:11px;pointer-events:none;fill:#fff}
g.node rect{stroke:#333;stroke-width:.5;cursor:pointer}g.node.hit rect{stroke:#ffd600;stroke-width:3}
g.node.selected rect{stroke:#000;stroke-width:2.5}.faded{opacity:.12}.hidden{display:none}
g.node.checked rect{stroke:#f9a825;stroke-width:3}g.node.counterexample rect{stroke:#d50000;stroke-width:3}
.legend i.mark{background:#fff;border:3px solid;width:7px;height:7px}
path.edge{fill:none;stroke:#666;stroke-width:1}path.statement-uses{stroke:#444}
path.proof-uses{stroke-dasharray:5 3}path.contains{stroke:#bbb;stroke-dasharray:1 3}
</style></head><body>
<header><b>__TITLE__</b><span>__COUNTS__</span>
<input id="search" type="search" placeholder="search label or title" aria-label="search by label">
<label><input id="focus" type="checkbox"> focus on the selected claim</label>
<span class="legend" id="legend">__LEGEND__</span></header>
<main><div id="view"><svg id="g">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
<path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs></svg></div>
<aside id="details"><p>Click a node to see its statement and where it is.</p></aside></main>
<script id="graph-data" type="application/json">__DATA__</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("graph-data").textContent);
const colours = data.colours, W = 230, LINE = 13, GX = 70, GY = 10, CHARS = 34, ns = "http://www.w3.org/2000/svg";
const byId = {}, succ = {}, pred = {}, pos = {}, shapes = {}, edgeShapes = [];
for (const n of data.nodes) { byId[n.id] = n; succ[n.id] = []; pred[n.id] = []; }
for (const e of data.edges) if (e.source in byId && e.target in byId) { succ[e.source].push(e.target); pred[e.target].push(e.source); }
function wrap(text) {  // whole words on lines of CHARS characters: a name is never cut
  const lines = []; let line = "";
  for (const word of text.split(/\\s+/).filter(Boolean)) {
    if (line && (line + " " + word).length > CHARS) { lines.push(line); line = word; } else line = line ? line + " " + word : word;
    while (line.length > CHARS) { lines.push(line.slice(0, CHARS)); line = line.slice(CHARS); }
  }
  if (line) lines.push(line);
  return lines;
}
function el(name, attrs, parent) {
  const x = document.createElementNS(ns, name);
  for (const k in attrs) x.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(x);
  return x;
}
const svg = document.getElementById("g"), edgeLayer = el("g", {}, svg), nodeLayer = el("g", {}, svg);
let width = 0, height = 0;
data.layers.forEach((layer, x) => {
  let y = 20;
  for (const id of layer) {
    const n = byId[id]; if (!n) continue;
    const lines = wrap(n.kind + " " + n.id).concat(n.text ? wrap(n.text) : []);
    const h = 10 + LINE * lines.length;
    pos[id] = {x: 20 + x * (W + GX), y: y, h: h, lines: lines};
    y += h + GY;
  }
  height = Math.max(height, y + 20); width = Math.max(width, 40 + (x + 1) * (W + GX));
});
svg.setAttribute("width", width); svg.setAttribute("height", height);
for (const e of data.edges) {
  const s = pos[e.source], t = pos[e.target]; if (!s || !t) continue;
  const x1 = s.x + W, y1 = s.y + s.h / 2, x2 = t.x, y2 = t.y + t.h / 2, dx = Math.max(30, Math.abs(x2 - x1) / 2);
  const p = el("path", {d: `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`, "class": "edge " + e.kind,
    "marker-end": "url(#arrow)"}, edgeLayer);
  edgeShapes.push([e, p]);
}
for (const n of data.nodes) {
  const p = pos[n.id]; if (!p) continue;
  const g = el("g", {"class": "node" + (n.mark ? " " + n.mark : ""), "data-id": n.id}, nodeLayer);
  el("rect", {x: p.x, y: p.y, width: W, height: p.h, rx: 4, fill: colours[n.status]}, g);
  p.lines.forEach((line, i) => { el("text", {x: p.x + 6, y: p.y + 15 + i * LINE}, g).textContent = line; });
  el("title", {}, g).textContent = n.id + " (" + n.status + ") " + n.file + ":" + n.line +
    (n.mark ? "; " + data.marks[n.mark][1] + " (not a proof)" : "");
  g.addEventListener("click", () => select(n.id));
  shapes[n.id] = g;
}
function reach(start, next) {
  const seen = new Set([start]), stack = [start];
  while (stack.length) for (const m of next[stack.pop()]) if (!seen.has(m)) { seen.add(m); stack.push(m); }
  return seen;
}
let selected = null;
function link(id) { return `<a data-go="${esc(id)}">${esc(id)}</a>`; }
function esc(s) { return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c])); }
function select(id) {
  if (selected) shapes[selected].classList.remove("selected");
  selected = id; shapes[id].classList.add("selected");
  const n = byId[id];
  document.getElementById("details").innerHTML =
    `<h3>${esc(n.kind)} <code>${esc(n.id)}</code></h3><p>${esc(n.text || "(no title)")}</p>` +
    `<p>status: <b style="color:${colours[n.status]}">${esc(n.status)}</b>${n.draft ? " (a model's draft)" : ""}</p>` +
    `<p>at <a class="where" href="${esc(n.uri || n.file)}">${esc(n.file)}:${n.line}</a></p>` +
    (n.computation && n.computation.length ? `<p>Computation (not a proof):</p><ul>${n.computation.map(c => `<li>${esc(c)}</li>`).join("")}</ul>` : "") +
    `<p>uses: ${pred[id].map(link).join(", ") || "nothing"}</p><p>used by: ${succ[id].map(link).join(", ") || "nothing"}</p>`;
  applyFocus();
}
document.getElementById("details").addEventListener("click", ev => {
  const go = ev.target.getAttribute && ev.target.getAttribute("data-go");
  if (go) { select(go); shapes[go].scrollIntoView({block: "center", inline: "center"}); }
});
function applyFocus() {
  const on = document.getElementById("focus").checked && selected;
  const keep = on ? new Set([...reach(selected, pred), ...reach(selected, succ)]) : null;
  for (const id in shapes) shapes[id].classList.toggle("hidden", !!keep && !keep.has(id));
  for (const [e, p] of edgeShapes) p.classList.toggle("hidden", !!keep && !(keep.has(e.source) && keep.has(e.target)));
}
document.getElementById("focus").addEventListener("change", applyFocus);
document.getElementById("search").addEventListener("input", ev => {
  const q = ev.target.value.trim().toLowerCase(); let first = null;
  for (const id in shapes) {
    const n = byId[id], hit = q && (id.toLowerCase().includes(q) || (n.text || "").toLowerCase().includes(q));
    shapes[id].classList.toggle("hit", !!hit); shapes[id].classList.toggle("faded", !!q && !hit);
    if (hit && !first) first = id;
  }
  if (first) shapes[first].scrollIntoView({block: "center", inline: "center"});
});
</script></body></html>
"""


def graph_page_data(index: "ProjectIndex") -> dict:
    """What the page draws: every node (its title as text), the dependency and containment edges,
    and the generations that place the nodes from left to right."""
    graph = index.graph
    nodes = [dict(n, status=drawn_status(n), text=latex_to_text(n["title"]), mark=computation_mark(n),
                  computation=[_computation_text(c) for c in (n.get("evidence") or {}).get("computation") or []])
             for n in node_records(index) if n["kind"] != "leannode"]
    for node in nodes:  # the page may be saved anywhere: its link to the source is absolute
        item = index.claims.get(node["id"]) or index.sections.get(node["id"])
        if item is not None:
            node["uri"] = item.file.resolve().as_uri()
    keep = {n["id"] for n in nodes}
    layers = [[n for n in layer if n in keep] for layer in graph.generations()]
    layers = [layer for layer in layers if layer]
    placed = {n for layer in layers for n in layer}
    if keep - placed:  # sections and anything the generations leave out: a first column of their own
        layers.insert(0, sorted(keep - placed))
    edges = [{"source": e.source, "target": e.target, "kind": e.kind} for e in graph.dependency_edges()]
    return {"nodes": nodes, "edges": edges, "layers": layers, "colours": STATUS_COLOURS,
            "edge_styles": EDGE_STYLES, "marks": COMPUTATION_MARKS}


def _computation_text(item: dict) -> str:
    """One computation of the JSON's evidence lists, as the details panel words it."""
    bounds = ", ".join(f"{low:g} ≤ {name} ≤ {high:g}" for name, (low, high) in sorted((item.get("range") or {}).items()))
    found = (f"counterexample found: {item.get('counterexample') or 'see the run'}"
             if item.get("verdict") == "counterexample" else "consistent")
    return f"checked for {bounds or 'the cases its run lists'}: {found}" + (f" (run {item['run']})" if item.get("run") else "")


def dag_html(index: "ProjectIndex", title: str = "Dependency graph") -> str:
    data = graph_page_data(index)
    nodes, edges = data["nodes"], data["edges"]
    counts = {s: sum(1 for n in nodes if n["status"] == s) for s in STATUS_COLOURS}
    legend = "".join(f'<span data-status="{s}"><i style="background:{c}"></i>{s} ({counts[s]})</span>'
                     for s, c in STATUS_COLOURS.items())
    legend += "".join(f'<span data-mark="{m}"><i class="mark" style="border-color:{c}"></i>{meaning} '
                      f'({sum(1 for n in nodes if n["mark"] == m)})</span>' for m, (c, meaning) in COMPUTATION_MARKS.items())
    legend += "".join(f'<span>{kind}: {style}</span>' for kind, style in EDGE_STYLES.items())
    # nothing in a <script> element may read as a tag ("</script>", "<!--"): every "<" as JSON's \u003c
    payload = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    return (_PAGE.replace("__TITLE__", html.escape(title))
            .replace("__COUNTS__", f"{len(nodes)} nodes, {len(edges)} dependency edges")
            .replace("__LEGEND__", legend).replace("__DATA__", payload))
