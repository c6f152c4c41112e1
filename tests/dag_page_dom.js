// a tiny DOM double, enough to run the dependency page's script (colosseum/graph/html.py) in node: draw, click, focus, search
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
const dataText = html.match(/<script id="graph-data" type="application\/json">([\s\S]*?)<\/script>/)[1];
const script = html.match(/<script>([\s\S]*?)<\/script>/)[1];
function mk(tag) {
  const e = {tag, attrs: {}, children: [], classes: new Set(), listeners: {}, textContent: "", innerHTML: "", checked: false, value: "",
    setAttribute(k, v) { this.attrs[k] = v; }, getAttribute(k) { return this.attrs[k]; }, appendChild(c) { this.children.push(c); return c; },
    addEventListener(t, f) { this.listeners[t] = f; }, scrollIntoView() {},
    classList: null};
  e.classList = {add: c => e.classes.add(c), remove: c => e.classes.delete(c), toggle: (c, on) => on ? e.classes.add(c) : e.classes.delete(c)};
  return e;
}
const byId = {"graph-data": Object.assign(mk("script"), {textContent: dataText}), g: mk("svg"), details: mk("aside"), focus: mk("input"), search: mk("input")};
global.document = {getElementById: id => byId[id], createElementNS: (ns, t) => mk(t)};
eval(script);
const nodes = byId.g.children[1].children;
console.log("nodes drawn", nodes.length, "edges drawn", byId.g.children[0].children.length);
nodes[3].listeners.click();
console.log(byId.details.innerHTML.slice(0, 300));
byId.focus.checked = true; byId.focus.listeners.change();
console.log("hidden in focus", nodes.filter(n => n.classes.has("hidden")).length);
byId.search.listeners.input({target: {value: process.argv[3] || "lem"}});
console.log("hits", nodes.filter(n => n.classes.has("hit")).length);
