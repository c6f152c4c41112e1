#!/usr/bin/env node
// The dependency-graph page (colosseum/graph/html.py) in a real browser: headless Chromium driven
// by playwright-core opens the generated file:// page, waits for the flag the page sets when its
// layout is drawn (body[data-layout="done"]) and reports what a reader would see, as JSON on stdout:
// which layout ran and how long it took, node boxes that overlap, edges without an arrowhead,
// what a search highlights, what a click shows, what focus mode keeps, which way edges point in
// each direction. tests/test_dag_html_browser.py asserts on the report (and bench/run.py --only
// dag-html reads the layout time from it); the script itself only fails when the page cannot be
// driven at all.
//
//   node tests/dag_page_browser.js --page FILE --playwright DIR [--chromium PATH] [--search TEXT]
//        [--click ID] [--sample N] [--screenshot FILE]
//
// --playwright is the playwright-core package directory (editor-clients/vscode/node_modules/...).
// Every wait is on a DOM condition; the time limit only keeps a broken run from hanging.

"use strict";

const path = require("path");

const WAIT_MS = 600_000; // a guard: a busy machine lays out 2,500 claims far slower than a quiet one

function parseArgs(argv) {
  const options = {chromium: "/usr/bin/chromium", search: "", click: "", sample: 400, screenshot: ""};
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    if (!(key in options || key === "page" || key === "playwright") || argv[i + 1] === undefined) {
      throw new Error(`unknown option or missing value: ${argv[i]}`);
    }
    options[key] = key === "sample" ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!options.page || !options.playwright) throw new Error("--page FILE and --playwright DIR are required");
  return options;
}

async function waitForLayout(page) {
  await page.waitForFunction(() => document.body.dataset.layout === "done", null, {timeout: WAIT_MS});
  // two animation frames after the flag: the browser has painted what the layout placed
  const paintedMs = await page.evaluate(() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now())))));
  return page.evaluate(paintedMs => ({engine: document.body.dataset.engine, layoutMs: Number(document.body.dataset.layoutMs),
    readyMs: Number(document.body.dataset.readyMs), paintedMs: Math.round(paintedMs),
    note: document.getElementById("layout-note").textContent}), paintedMs);
}

/** Boxes of (a sample of) the visible nodes as the browser draws them, and the pairs that overlap. */
function geometry(sample) {
  // (nested: page.evaluate sends this function's source alone)
  /** Edges (a sample) that pass through a box they do not end at: [source, target, box], in the
   *  drawing's own coordinates (each node's translation and rect; the path's points along its length,
   *  every 2 units). A box's outer pixel does not count: an edge may touch a box's side. */
  function edgesThroughBoxes(nodes, edges, sample) {
    const CELL = 100, grid = new Map(), found = [];
    for (const g of nodes) {
      const m = /translate\(([-\d.e]+),\s*([-\d.e]+)\)/.exec(g.getAttribute("transform") || ""), r = g.querySelector("rect");
      if (!m) continue;
      const b = {id: g.dataset.id, x: Number(m[1]) + Number(r.getAttribute("x")), y: Number(m[2]) + Number(r.getAttribute("y")),
        w: Number(r.getAttribute("width")), h: Number(r.getAttribute("height"))};
      for (let cx = Math.floor(b.x / CELL); cx <= Math.floor((b.x + b.w) / CELL); cx++)
        for (let cy = Math.floor(b.y / CELL); cy <= Math.floor((b.y + b.h) / CELL); cy++) {
          const key = cx + "," + cy; if (!grid.has(key)) grid.set(key, []); grid.get(key).push(b);
        }
    }
    const step = Math.max(1, Math.floor(edges.length / sample));
    edges.filter((_, i) => i % step === 0).forEach(p => {
      const ends = new Set([p.dataset.source, p.dataset.target]), hit = new Set(), length = p.getTotalLength();
      for (let d = 0; d <= length; d += 2) {
        const q = p.getPointAtLength(d);
        for (const b of grid.get(Math.floor(q.x / CELL) + "," + Math.floor(q.y / CELL)) || []) {
          if (ends.has(b.id) || hit.has(b.id)) continue;
          if (q.x > b.x + 1 && q.x < b.x + b.w - 1 && q.y > b.y + 1 && q.y < b.y + b.h - 1) {
            hit.add(b.id); found.push([p.dataset.source, p.dataset.target, b.id]);
          }
        }
      }
    });
    return found;
  }
  const nodes = [...document.querySelectorAll("g.node")].filter(g => !g.classList.contains("hidden"));
  const step = Math.max(1, Math.floor(nodes.length / sample));
  const boxes = nodes.filter((_, i) => i % step === 0).map(g => {
    const r = g.querySelector("rect").getBoundingClientRect();
    return {id: g.dataset.id, x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height};
  });
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5) overlaps.push([a.id, b.id]);
  }
  const edges = [...document.querySelectorAll("path.edge")].filter(p => !p.classList.contains("hidden"));
  const marker = document.querySelector("marker#arrow path");
  const centre = id => { const r = document.querySelector(`g.node[data-id="${CSS.escape(id)}"] rect`).getBoundingClientRect();
    return {x: r.left + r.width / 2, y: r.top + r.height / 2}; };
  const data = JSON.parse(document.getElementById("graph-data").textContent);
  const visible = new Set(nodes.map(g => g.dataset.id));
  let forward = 0, down = 0, counted = 0;
  for (const e of data.edges) {  // which way the edges run: right in left-to-right, down in top-down
    if (e.kind === "contains" || e.source === e.target || !visible.has(e.source) || !visible.has(e.target)) continue;
    const s = centre(e.source), t = centre(e.target);
    counted++; if (t.x > s.x) forward++; if (t.y > s.y) down++;
  }
  const through = edgesThroughBoxes(nodes, edges, sample);
  return {nodes: nodes.length, sampled: boxes.length, overlaps: overlaps.slice(0, 20), overlapCount: overlaps.length,
    throughBoxes: through.slice(0, 20), throughCount: through.length,
    unplaced: nodes.filter(g => !/^translate\(/.test(g.getAttribute("transform") || "")).length,
    edges: edges.length, withArrow: edges.filter(p => p.getAttribute("marker-end") === "url(#arrow)" && /^M/.test(p.getAttribute("d") || "")).length,
    arrowDrawn: !!marker && marker.getAttribute("d").length > 0, rightward: counted ? forward / counted : 1, downward: counted ? down / counted : 1,
    visible: [...visible]};
}

async function runChecks(page, options) {
  const report = {};
  report.first = await waitForLayout(page);
  report.lr = await page.evaluate(geometry, options.sample);
  if (options.screenshot) await page.screenshot({path: options.screenshot});
  const svgWidth = () => page.evaluate(() => Number(document.getElementById("g").getAttribute("width")));
  const full = await svgWidth();
  await page.fill("#zoom", "25");
  report.zoom = {full: full, quarter: await svgWidth()};
  await page.fill("#zoom", "100");
  if (options.search) {
    await page.fill("#search", options.search);
    report.search = await page.evaluate(() => [...document.querySelectorAll("g.node.hit")].map(g => g.dataset.id));
    await page.fill("#search", "");
  }
  if (options.click) {  // the click as a reader makes it: on the node's box, where the layout put it
    const box = page.locator(`g.node[data-id="${options.click}"] rect`);
    await box.scrollIntoViewIfNeeded();
    await box.click();
    report.details = await page.evaluate(() => ({text: document.getElementById("details").innerText,
      href: (document.querySelector("#details a.where") || {}).href || null}));
    await page.check("#focus");
    report.focus = {layout: await waitForLayout(page), geometry: await page.evaluate(geometry, options.sample)};
    await page.uncheck("#focus");
    await waitForLayout(page);
  }
  await page.selectOption("#direction", "tb");
  report.tb = {layout: await waitForLayout(page), geometry: await page.evaluate(geometry, options.sample)};
  delete report.tb.geometry.visible;
  return report;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const {chromium} = require(path.resolve(options.playwright));
  const browser = await chromium.launch({executablePath: options.chromium, headless: true});
  try {
    const page = await browser.newPage({viewport: {width: 1400, height: 900}});
    const errors = [];
    page.on("pageerror", err => errors.push(String(err)));
    page.on("request", request => { if (!request.url().startsWith("file:") && !request.url().startsWith("data:")) errors.push("network: " + request.url()); });
    await page.goto("file://" + path.resolve(options.page));
    const report = await runChecks(page, options);
    report.errors = errors;
    process.stdout.write(JSON.stringify(report) + "\n");
  } finally {
    await browser.close();
  }
}

main().catch(err => { process.stderr.write(`dag_page_browser.js: ${err.stack || err}\n`); process.exit(err.message.startsWith("unknown option") ? 2 : 1); });
