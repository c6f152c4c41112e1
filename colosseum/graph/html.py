"""A self-contained HTML page of the DAG: one file that opens offline (no network).

The layout is dagre's (the vendored colosseum/data/vendor/dagre.min.js, MIT, inlined into the page):
layered left to right or top down (a toggle), edges routed around the nodes, arrowheads. Dagre's
cost grows with the nodes plus the ranks every edge crosses; above a budget (a blueprint of a few
thousand claims) the page lays the nodes out by generation itself, in linear time, and says so,
and focus mode lays the focused claim's ancestors and descendants out with dagre when they fit the
budget. Full names wrapped (never cut), status colours with a legend, search by label or title, a
click shows the claim (title as text, status, file:line). The page sets ``data-layout="done"`` on
its body once a layout is drawn (tests and bench wait on it)."""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from colosseum.graph.dag import DEPENDENCY_KINDS
from colosseum.graph.export import COMPUTATION_MARKS, EDGE_STYLES, STATUS_COLOURS, computation_mark, drawn_status, node_records
from colosseum.graph.plain_text import latex_to_text

DAGRE_VERSION = "3.1.3"  # colosseum/data/vendor/README.md says where it comes from
VENDOR = Path(__file__).resolve().parents[1] / "data" / "vendor"  # core.resources.PACKAGE_DATA / "vendor"

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
#layout-note{color:#8a4b00;font-size:13px}
</style></head><body>
<header><b>__TITLE__</b><span>__COUNTS__</span>
<input id="search" type="search" placeholder="search label or title" aria-label="search by label">
<label><input id="focus" type="checkbox"> focus on the selected claim</label>
<label>layout <select id="direction" aria-label="layout direction"><option value="lr">left to right</option>
<option value="tb">top down</option></select></label>
<label>zoom <input id="zoom" type="range" min="5" max="100" value="100" aria-label="zoom"></label><span id="layout-note">laying out...</span>
<span class="legend" id="legend">__LEGEND__</span></header>
<main><div id="view"><svg id="g">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
<path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs></svg></div>
<aside id="details"><p>Click a node to see its statement and where it is.</p></aside></main>
<script id="dagre-lib">__DAGRE__</script>
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
// dagre's cost grows with the nodes plus one dummy node for every rank an edge crosses: above this
// budget it takes too long (seconds at 1,500 on a busy machine), and the page lays out by generation itself
const DAGRE_BUDGET = 1500, generation = {};
data.layers.forEach((layer, k) => { for (const id of layer) generation[id] = k; });
for (const n of data.nodes) {  // each node's box; the layout places it by a translation of its group
  const lines = wrap(n.kind + " " + n.id).concat(n.text ? wrap(n.text) : []);
  pos[n.id] = {x: 0, y: 0, h: 10 + LINE * lines.length, lines: lines};
}
for (const e of data.edges) {
  if (!(e.source in pos) || !(e.target in pos)) continue;
  edgeShapes.push([e, el("path", {"class": "edge " + e.kind, "marker-end": "url(#arrow)", "data-source": e.source,
    "data-target": e.target}, edgeLayer)]);
}
function layoutWork(ids) {
  let work = ids.size;
  for (const [e] of edgeShapes) if (ids.has(e.source) && ids.has(e.target))
    work += Math.max(0, Math.abs((generation[e.target] || 0) - (generation[e.source] || 0)) - 1);
  return work;
}
function dagreLayout(ids, topDown) {  // ranks, crossings, coordinates and edge routes: all dagre's
  const g = new dagre.graphlib.Graph({multigraph: true});
  g.setGraph({rankdir: topDown ? "TB" : "LR", nodesep: GY + 8, ranksep: GX, edgesep: 6, marginx: 20, marginy: 20});
  for (const id of ids) g.setNode(id, {width: W, height: pos[id].h});
  edgeShapes.forEach(([e], i) => { if (ids.has(e.source) && ids.has(e.target)) g.setEdge(e.source, e.target, {}, "e" + i); });
  dagre.layout(g);
  const at = {}, routes = {}, bands = [];
  for (const id of ids) {
    const n = g.node(id); at[id] = {x: n.x - W / 2, y: n.y - pos[id].h / 2};
    widen(bands, topDown ? n.y : n.x, topDown ? pos[id].h / 2 : W / 2);
  }
  edgeShapes.forEach(([e], i) => {
    if (ids.has(e.source) && ids.has(e.target)) routes[i] = portRoute(g.edge(e.source, e.target, "e" + i).points, e, at, topDown, bands);
  });
  return {at: at, routes: routes, width: g.graph().width, height: g.graph().height, engine: "dagre"};
}
// Every node of a rank has the same coordinate along the layout's axis (x left to right, y top
// down): a rank is a band of boxes, and between two bands is a gap with no box. dagre's route
// leaves a box on whatever side faces its first bend, so an edge to a box far below ran down
// through the boxes under it in the same column (FLT's first column). Here an edge leaves on the
// box's side that faces along the axis, crosses each band it passes in a straight line at the
// height dagre kept free for it (its dummy node), and bends only inside gaps (pathOf's curves stay
// between their two ends along the axis): no edge passes through a box it does not end at.
function widen(bands, coord, half) {  // the rank at coord reaches half either side (its widest box)
  const band = bands.find(b => Math.abs(b.at - coord) < 0.5);
  if (band) band.half = Math.max(band.half, half); else bands.push({at: coord, half: half});
}
function bandAt(bands, coord) { const band = bands.find(b => Math.abs(b.at - coord) < 0.5); return band ? band.half : null; }
function portRoute(points, e, at, topDown, bands) {
  const ax = topDown ? "y" : "x", centre = id => ({x: at[id].x + W / 2, y: at[id].y + pos[id].h / 2});
  const half = id => topDown ? pos[id].h / 2 : W / 2, moved = (p, by, straight) => {
    const q = {x: p.x, y: p.y, straight: straight}; q[ax] += by; return q; };
  const s = centre(e.source), t = centre(e.target), inner = points.slice(1, -1), out = [];
  const dir = (from, to) => Math.sign(to[ax] - from[ax]) || 1;
  const d0 = dir(s, inner.length ? inner[0] : t), sb = bandAt(bands, s[ax]) || half(e.source);
  out.push(moved(s, d0 * half(e.source), false));
  if (sb > half(e.source)) out.push(moved(s, d0 * sb, true));  // out of its rank's band, straight
  inner.forEach((p, k) => {
    const band = bandAt(bands, p[ax]);
    if (band === null) { out.push({x: p.x, y: p.y, straight: false}); return; }  // a bend in a gap
    const d = dir(out[out.length - 1], k + 1 < inner.length ? inner[k + 1] : t);
    out.push(moved(p, -d * band, false), moved(p, d * band, true));  // across a band where dagre kept room
  });
  const d1 = dir(out[out.length - 1], t), tb = bandAt(bands, t[ax]) || half(e.target);
  if (tb > half(e.target)) out.push(moved(t, -d1 * tb, false));
  out.push(moved(t, -d1 * half(e.target), tb > half(e.target)));
  return out;
}
function layeredLayout(ids, topDown) {  // by generation, each layer sorted by where its predecessors are: linear time
  const layers = data.layers.map(layer => layer.filter(id => ids.has(id))).filter(layer => layer.length), rel = {};
  for (const layer of layers) layer.forEach((id, i) => { rel[id] = i / layer.length; });
  for (const layer of layers.slice(1)) {
    const key = {};
    for (const id of layer) {
      const before = pred[id].filter(m => m in rel && generation[m] < generation[id]);
      key[id] = before.length ? before.reduce((sum, m) => sum + rel[m], 0) / before.length : rel[id];
    }
    layer.sort((a, b) => key[a] - key[b]); layer.forEach((id, i) => { rel[id] = i / layer.length; });
  }
  const at = {}, routes = {};
  let rank = 20, width = 0, height = 0;
  for (const layer of layers) {
    let along = 20;
    const thick = topDown ? layer.reduce((m, id) => Math.max(m, pos[id].h), 0) : W;
    for (const id of layer) {
      at[id] = topDown ? {x: along, y: rank} : {x: rank, y: along};
      along += topDown ? W + GY : pos[id].h + GY;
    }
    width = Math.max(width, topDown ? along : rank + W); height = Math.max(height, topDown ? rank + thick : along);
    rank += thick + GX;
  }
  edgeShapes.forEach(([e], i) => {
    const s = at[e.source], t = at[e.target], hs = pos[e.source].h, ht = pos[e.target].h; if (!s || !t) return;
    routes[i] = topDown ? [{x: s.x + W / 2, y: s.y + hs}, {x: t.x + W / 2, y: t.y}] : [{x: s.x + W, y: s.y + hs / 2}, {x: t.x, y: t.y + ht / 2}];
  });
  return {at: at, routes: routes, width: width + 20, height: height + 20, engine: "layered"};
}
function pathOf(points, topDown) {  // two points: one curve; dagre's bends: smoothed through their midpoints
  const a = points[0], b = points[points.length - 1];
  if ("straight" in a) {  // portRoute's: straight across bands, curves that keep between their ends along the axis
    let d = `M${a.x},${a.y}`;
    for (let i = 1; i < points.length; i++) {
      const p = points[i - 1], q = points[i];
      if (q.straight) { d += ` L${q.x},${q.y}`; continue; }
      d += topDown ? ` C${p.x},${(p.y + q.y) / 2} ${q.x},${(p.y + q.y) / 2} ${q.x},${q.y}`
        : ` C${(p.x + q.x) / 2},${p.y} ${(p.x + q.x) / 2},${q.y} ${q.x},${q.y}`;
    }
    return d;
  }
  if (points.length === 2) {
    const d = Math.max(30, Math.abs(topDown ? b.y - a.y : b.x - a.x) / 2);
    return topDown ? `M${a.x},${a.y} C${a.x},${a.y + d} ${b.x},${b.y - d} ${b.x},${b.y}`
      : `M${a.x},${a.y} C${a.x + d},${a.y} ${b.x - d},${b.y} ${b.x},${b.y}`;
  }
  let d = `M${a.x},${a.y}`;
  for (let i = 1; i < points.length - 1; i++)
    d += ` Q${points[i].x},${points[i].y} ${(points[i].x + points[i + 1].x) / 2},${(points[i].y + points[i + 1].y) / 2}`;
  return d + ` L${b.x},${b.y}`;
}
for (const n of data.nodes) {
  const p = pos[n.id]; if (!p) continue;
  const g = el("g", {"class": "node" + (n.mark ? " " + n.mark : ""), "data-id": n.id}, nodeLayer);
  el("rect", {x: p.x, y: p.y, width: W, height: p.h, rx: 4, fill: colours[n.status]}, g);
  p.lines.forEach((line, i) => { el("text", {x: p.x + 6, y: p.y + 15 + i * LINE}, g).textContent = line; });
  el("title", {}, g).textContent = n.id + " (" + said(n) + ") " + n.file + ":" + n.line +
    (n.mark ? "; " + data.marks[n.mark][1] + " (not a proof)" : "");
  g.addEventListener("click", () => select(n.id));
  shapes[n.id] = g;
}
// a section is not proved or open: it holds claims ("all 5 claims proved"); a stated claim owes no proof
function said(n) { return n.holds !== undefined ? "holds: " + n.holds : n.status === "stated" ? "stated, no proof expected" : n.status; }
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
    (n.holds !== undefined ? `<p>holds: <b style="color:${colours[n.status]}">${esc(n.holds)}</b></p>`
      : `<p>status: <b style="color:${colours[n.status]}">${esc(said(n))}</b>${n.draft ? " (a model's draft)" : ""}</p>`) +
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
  const wanted = (keep ? "focus " + selected : "all") + " " + direction.value;
  if (wanted !== laidOut) { laidOut = wanted; relayout(keep); }
  if (keep) shapes[selected].scrollIntoView({block: "center", inline: "center"});
}
document.getElementById("focus").addEventListener("change", applyFocus);
const direction = document.getElementById("direction"), note = document.getElementById("layout-note");
let laidOut = null;
function relayout(keep) {  // the whole graph, or focus mode's claims alone; dagre when it fits the budget
  document.body.dataset.layout = "running";
  const started = performance.now(), topDown = direction.value === "tb", ids = keep || new Set(Object.keys(pos));
  const work = layoutWork(ids);
  let result = null;
  if (typeof dagre !== "undefined" && work <= DAGRE_BUDGET) {
    try { result = dagreLayout(ids, topDown); } catch (err) { console.error("dagre failed, laid out by generation", err); }
  }
  result = result || layeredLayout(ids, topDown);
  for (const id in result.at) shapes[id].setAttribute("transform", `translate(${result.at[id].x},${result.at[id].y})`);
  edgeShapes.forEach(([e, p], i) => { if (result.routes[i]) p.setAttribute("d", pathOf(result.routes[i], topDown)); });
  drawn = {width: Math.ceil(result.width), height: Math.ceil(result.height)}; applyZoom();
  note.textContent = result.engine === "dagre" ? "" : `${keep ? "focus: " : ""}${ids.size} nodes laid out by generation: ` +
    `too many for dagre in reasonable time (${work} nodes and rank crossings, over its budget of ${DAGRE_BUDGET})` +
    (keep ? "" : "; focus on a claim to lay out its ancestors and descendants with dagre");
  // layoutMs: this layout alone; readyMs: from the page's start to this layout drawn (what bench reports)
  Object.assign(document.body.dataset, {engine: result.engine, layoutMs: Math.round(performance.now() - started),
    readyMs: Math.round(performance.now()), layout: "done"});
}
direction.addEventListener("change", applyFocus);
const zoom = document.getElementById("zoom");
let drawn = {width: 0, height: 0};
function applyZoom() {  // the drawing keeps its coordinates (viewBox); only its size on screen changes
  const scale = Number(zoom.value) / 100;
  svg.setAttribute("viewBox", `0 0 ${drawn.width} ${drawn.height}`);
  svg.setAttribute("width", Math.ceil(drawn.width * scale)); svg.setAttribute("height", Math.ceil(drawn.height * scale));
  if (selected) shapes[selected].scrollIntoView({block: "center", inline: "center"});
}
zoom.addEventListener("input", applyZoom);
setTimeout(applyFocus, 0);  // after the first paint: the header shows while the layout runs
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


@cache
def _vendored_dagre() -> str:
    """dagre as an inline script, its MIT notice first (the page is a copy of it), without its
    source-map comment (no map ships beside the page), with nothing that could end its element."""
    vendor = VENDOR
    text = (vendor / "dagre.min.js").read_text(encoding="utf-8")
    text = re.sub(r"^//# sourceMappingURL=.*$", "", text, flags=re.M)
    # in minified code either can only stand inside a string, where a backslash before "/" or "!" changes nothing
    text = re.sub(r"</(script)", r"<\\/\\1", text, flags=re.I).replace("<!--", "<\\!--")
    notice = (vendor / "LICENSE").read_text(encoding="utf-8").replace("*/", "* /")
    return f"/*! dagre {DAGRE_VERSION} (https://github.com/dagrejs/dagre), MIT licence:\n{notice}*/\n{text}"


def graph_page_data(index: "ProjectIndex") -> dict:
    """What the page draws: every node (its title as text), the dependency edges,
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


# what the legend says beside a colour, where the status's name alone would mislead
_LEGEND_WORDS = {"stated": "stated: no proof expected"}


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def dag_html(index: "ProjectIndex", title: str = "Dependency graph") -> str:
    data = graph_page_data(index)
    nodes, edges = data["nodes"], data["edges"]
    # the counts are of claims: a section's colour summarises what it holds, and counting the 216
    # sections of a textbook as "proved" made 120 claims read as 323 proved results
    claims = [n for n in nodes if n["kind"] != "section"]
    counts = {s: sum(1 for n in claims if n["status"] == s) for s in STATUS_COLOURS}
    legend = "".join(f'<span data-status="{s}"><i style="background:{c}"></i>{_LEGEND_WORDS.get(s, s)} ({counts[s]})</span>'
                     for s, c in STATUS_COLOURS.items())
    # a section's box takes the colour of the worst claim it holds: it is not itself proved
    legend += '<span data-kind="section">section: the colour of the least settled claim it holds</span>'
    legend += "".join(f'<span data-mark="{m}"><i class="mark" style="border-color:{c}"></i>{meaning} '
                      f'({sum(1 for n in claims if n["mark"] == m)})</span>' for m, (c, meaning) in COMPUTATION_MARKS.items())
    # only the kinds of edge the page draws (dependency edges: no "contains" line is ever drawn)
    legend += "".join(f'<span>{kind}: {EDGE_STYLES[kind]}</span>' for kind in DEPENDENCY_KINDS)
    # nothing in a <script> element may read as a tag ("</script>", "<!--"): every "<" as JSON's \u003c
    payload = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    return (_PAGE.replace("__DAGRE__", _vendored_dagre()).replace("__TITLE__", html.escape(title))
            .replace("__COUNTS__", f"{_count(len(claims), 'claim')}, {_count(len(nodes) - len(claims), 'section')}, "
                                    f"{_count(len(edges), 'dependency edge')}")
            .replace("__LEGEND__", legend).replace("__DATA__", payload))
