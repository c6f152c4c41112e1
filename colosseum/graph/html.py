"""A self-contained HTML page of the DAG (no network): layers by generation, coloured by status."""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from colosseum.graph.export import STATUS_COLOURS, drawn_status, node_records

if TYPE_CHECKING:
    from colosseum.graph.view import DrawnProject as ProjectIndex  # what a drawing reads of the index

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{font-family:system-ui,sans-serif;margin:0}header{padding:8px 12px;border-bottom:1px solid #ddd}
.legend span{display:inline-block;margin-right:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
svg{display:block}text{font-size:11px;pointer-events:none}rect{stroke:#333;stroke-width:.5}
line.statement-uses{stroke:#555}line.proof-uses{stroke:#999;stroke-dasharray:4 3}
</style></head><body>
<header><b>__TITLE__</b> — __COUNTS__ <span class="legend">__LEGEND__</span></header>
<svg id="g"></svg>
<script>
const data = __DATA__;
const colours = __COLOURS__;
const W = 190, H = 26, GX = 60, GY = 12, ns = "http://www.w3.org/2000/svg";
const pos = {};
data.layers.forEach((layer, x) => layer.forEach((id, y) => { pos[id] = [20 + x * (W + GX), 20 + y * (H + GY)]; }));
const svg = document.getElementById("g");
const maxY = Math.max(1, ...data.layers.map(l => l.length));
svg.setAttribute("width", 40 + data.layers.length * (W + GX));
svg.setAttribute("height", 40 + maxY * (H + GY));
for (const e of data.edges) {
  if (!(e.source in pos) || !(e.target in pos)) continue;
  const l = document.createElementNS(ns, "line");
  l.setAttribute("x1", pos[e.source][0] + W); l.setAttribute("y1", pos[e.source][1] + H / 2);
  l.setAttribute("x2", pos[e.target][0]); l.setAttribute("y2", pos[e.target][1] + H / 2);
  l.setAttribute("class", e.kind); svg.appendChild(l);
}
for (const n of data.nodes) {
  if (!(n.id in pos)) continue;
  const g = document.createElementNS(ns, "g");
  const r = document.createElementNS(ns, "rect");
  r.setAttribute("x", pos[n.id][0]); r.setAttribute("y", pos[n.id][1]); r.setAttribute("width", W);
  r.setAttribute("height", H); r.setAttribute("rx", 4); r.setAttribute("fill", colours[n.status]);
  const t = document.createElementNS(ns, "text");
  t.setAttribute("x", pos[n.id][0] + 6); t.setAttribute("y", pos[n.id][1] + 17); t.setAttribute("fill", "#fff");
  t.textContent = (n.kind + " " + n.id).slice(0, 30);
  const tip = document.createElementNS(ns, "title");
  tip.textContent = n.kind + " " + n.id + (n.title ? " — " + n.title : "") + "\\n" + n.status + " · " + n.file + ":" + n.line;
  g.appendChild(r); g.appendChild(t); g.appendChild(tip); svg.appendChild(g);
}
</script></body></html>
"""


def dag_html(index: "ProjectIndex", title: str = "Dependency graph") -> str:
    graph = index.graph
    nodes = [dict(n, status=drawn_status(n)) for n in node_records(index) if n["kind"] != "leannode"]
    keep = {n["id"] for n in nodes}
    layers = [[n for n in layer if n in keep] for layer in graph.generations()]
    layers = [layer for layer in layers if layer]
    edges = [{"source": e.source, "target": e.target, "kind": e.kind} for e in graph.dependency_edges()]
    counts = {s: sum(1 for n in nodes if n["status"] == s) for s in STATUS_COLOURS}
    legend = "".join(f'<span><i style="background:{c}"></i>{s} ({counts[s]})</span>' for s, c in STATUS_COLOURS.items())
    data = json.dumps({"nodes": nodes, "edges": edges, "layers": layers}).replace("</", "<\\/")
    return (_PAGE.replace("__TITLE__", html.escape(title))
            .replace("__COUNTS__", f"{len(nodes)} nodes, {len(edges)} dependency edges")
            .replace("__LEGEND__", legend).replace("__DATA__", data)
            .replace("__COLOURS__", json.dumps(STATUS_COLOURS)))
