// a tiny DOM double, enough to run the dependency page's script (colosseum/graph/html.py) in node with
// its vendored dagre: lay out, draw, click, focus, search. The real-browser test is dag_page_browser.js.
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
const dataText = html.match(/<script id="graph-data" type="application\/json">([\s\S]*?)<\/script>/)[1];
const dagreText = html.match(/<script id="dagre-lib">([\s\S]*?)<\/script>/)[1];
const script = html.match(/<script>([\s\S]*?)<\/script>/)[1];
function mk(tag) {
  const e = {tag, attrs: {}, children: [], classes: new Set(), listeners: {}, textContent: "", innerHTML: "", checked: false, value: "",
    setAttribute(k, v) { this.attrs[k] = v; }, getAttribute(k) { return this.attrs[k]; }, appendChild(c) { this.children.push(c); return c; },
    addEventListener(t, f) { this.listeners[t] = f; }, scrollIntoView() {},
    classList: null};
  e.classList = {add: c => e.classes.add(c), remove: c => e.classes.delete(c), toggle: (c, on) => on ? e.classes.add(c) : e.classes.delete(c)};
  return e;
}
const byId = {"graph-data": Object.assign(mk("script"), {textContent: dataText}), g: mk("svg"), details: mk("aside"), focus: mk("input"),
  search: mk("input"), direction: Object.assign(mk("select"), {value: "lr"}), "layout-note": mk("span"),
  zoom: Object.assign(mk("input"), {value: "100"})};
global.document = {getElementById: id => byId[id], createElementNS: (ns, t) => mk(t), body: {dataset: {}}};
if (process.argv[4] !== "no-dagre") global.dagre = new Function(dagreText + ";return dagre;")();  // else: the page's own layout
eval(script);
setTimeout(() => {  // after the page's own first layout (queued first)
  const nodes = byId.g.children[1].children, edges = byId.g.children[0].children;
  console.log("nodes drawn", nodes.length, "edges drawn", edges.length);
  console.log("layout", document.body.dataset.layout, document.body.dataset.engine,
    "placed", nodes.filter(n => /^translate\(/.test(n.attrs.transform || "")).length,
    "routed", edges.filter(p => /^M/.test(p.attrs.d || "") && p.attrs["marker-end"] === "url(#arrow)").length);
  nodes[3].listeners.click();
  console.log(byId.details.innerHTML.slice(0, 300));
  byId.focus.checked = true; byId.focus.listeners.change();
  console.log("hidden in focus", nodes.filter(n => n.classes.has("hidden")).length, "focus layout", document.body.dataset.engine);
  byId.search.listeners.input({target: {value: process.argv[3] || "lem"}});
  console.log("hits", nodes.filter(n => n.classes.has("hit")).length);
}, 0);
