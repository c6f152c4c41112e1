#!/usr/bin/env node
// The real-editor test: the packaged extension in a real VS Code build (code-server), opened in
// headless Chromium, against the real Colosseum server on a copy of example-project. It checks
// what an author sees: the Problems panel lists the server's warnings, the "Solve obligation" lens
// stands over the open obligation, and hovering a \cref shows the claim it points to.
//
//   node e2e/run-e2e.js --code-server PATH [--python PYTHON] [--artifacts DIR] [--workdir DIR]
//                       [--vsix FILE] [--project DIR] [--chromium PATH]
//
// --code-server is the program install-code-server.sh prints. Without --vsix the extension is
// packaged here (npm run package). Screenshots and code-server's log go to --artifacts. Every
// wait is on a DOM condition; the time limits only keep a broken run from hanging. Exit 0: all
// checks passed; 1: a check failed (the message says which; see the screenshots); 2: bad usage.

"use strict";

const { spawn, execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const EXTENSION_DIR = path.resolve(__dirname, "..");
const REPO_ROOT = path.resolve(EXTENSION_DIR, "..", "..");
const EXTENSION_ID = "colosseum.colosseum-latex";

// What the checks look for in example-project (sections/main-result.tex): the lemma
// `lem:resampling` is an open obligation that `thm:main` relies on.
const CHECKED_FILE = "main-result.tex";
const PROBLEM_TEXT = "is conditional: its proof relies on the open obligation";
const LENS_TEXT = "Solve obligation";
const HOVERED_REF = "lem:resampling";
const HOVER_TEXT = "Expected number of resamplings";

const WAIT_MS = 180_000; // a guard per condition: the first start indexes the project cold
const RUN_LIMIT_MS = 15 * 60_000; // a guard for the whole run

const OPTIONS = ["codeServer", "python", "artifacts", "workdir", "vsix", "project", "chromium"];

function parseArgs(argv) {
  const options = {
    python: process.env.PYTHON || "python3",
    artifacts: path.join(REPO_ROOT, ".ci", "artifacts", "vscode-e2e"),
    project: path.join(REPO_ROOT, "example-project"),
    chromium: "/usr/bin/chromium",
  };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "").replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (!OPTIONS.includes(key) || argv[i + 1] === undefined) {
      throw new Error(`unknown option or missing value: ${argv[i]}`);
    }
    // paths are made absolute (the server's cwd is the project); a bare `python3` stays as it is
    options[key] = key === "python" && !argv[i + 1].includes(path.sep) ? argv[i + 1] : path.resolve(argv[i + 1]);
  }
  if (!options.codeServer) throw new Error("--code-server PATH is required");
  return options;
}

/** How long each step took, printed at the end (the test reports what it adds to CI). */
const timings = [];
let lastMark = Date.now();
function mark(step) {
  const now = Date.now();
  const seconds = (now - lastMark) / 1000;
  timings.push({ step, seconds });
  lastMark = now;
  console.error(`e2e: ${step} (${seconds.toFixed(1)} s)`);
}

function packageExtension(workdir) {
  const vsix = path.join(workdir, "colosseum-latex.vsix");
  // `vscode:prepublish` bundles the extension first (esbuild), so dist/ is always fresh
  execFileSync("npm", ["run", "--silent", "package", "--", "-o", vsix], { cwd: EXTENSION_DIR, stdio: ["ignore", "ignore", "inherit"] });
  return vsix;
}

/** A fresh code-server home: user data (with our settings), extensions and config dirs. */
function prepareHome(options, workdir) {
  const home = {
    userData: path.join(workdir, "user-data"),
    extensions: path.join(workdir, "extensions"),
    config: path.join(workdir, "xdg-config"),
  };
  for (const dir of Object.values(home)) fs.mkdirSync(dir, { recursive: true });
  const settings = {
    // the server the extension starts: this checkout's, with the Python the test runs
    "colosseum.server.command": [options.python, "-m", "colosseum", "serve"],
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.welcomePage.walkthroughs.openOnInstall": false,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "update.mode": "none",
    "editor.hover.delay": 150,
    "editor.minimap.enabled": false,
  };
  fs.mkdirSync(path.join(home.userData, "User"), { recursive: true });
  fs.writeFileSync(path.join(home.userData, "User", "settings.json"), JSON.stringify(settings, null, 2));
  return home;
}

function codeServerEnv(home) {
  // XDG_CONFIG_HOME: code-server writes its config.yaml there, the Colosseum server keeps its
  // user-level state there, Chromium its crash reports; none touches the real ~/.config
  return { ...process.env, XDG_CONFIG_HOME: home.config, NODE_OPTIONS: "" };
}

function installExtension(options, home, vsix) {
  const out = execFileSync("node", [options.codeServer, "--user-data-dir", home.userData,
    "--extensions-dir", home.extensions, "--install-extension", vsix, "--force"],
  { env: codeServerEnv(home), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const listed = execFileSync("node", [options.codeServer, "--user-data-dir", home.userData,
    "--extensions-dir", home.extensions, "--list-extensions"],
  { env: codeServerEnv(home), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (!listed.split(/\s+/).includes(EXTENSION_ID)) {
    throw new Error(`the .vsix did not install (${EXTENSION_ID} not listed):\n${out}\n${listed}`);
  }
}

function copyProject(source, workdir) {
  const copy = path.join(workdir, "project");
  fs.cpSync(source, copy, {
    recursive: true,
    filter: (from) => ![".colosseum", ".lake"].includes(path.basename(from)),
  });
  return copy;
}

/** Starts code-server on 127.0.0.1, on a port the system picks; resolves with its URL. */
function startCodeServer(options, home, logFile) {
  const args = [options.codeServer, "--bind-addr", "127.0.0.1:0", "--auth", "none",
    "--user-data-dir", home.userData, "--extensions-dir", home.extensions,
    "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
    "--disable-getting-started-override", "--ignore-last-opened"];
  const child = spawn("node", args, { env: codeServerEnv(home), stdio: ["ignore", "pipe", "pipe"], detached: true });
  const log = fs.createWriteStream(logFile);
  const ready = new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk) => {
      log.write(chunk);
      seen += chunk.toString();
      const listening = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(seen);
      if (listening) resolve(listening[1]);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error(`code-server exited (${code}) before listening; see ${logFile}`)));
  });
  return { child, ready };
}

function stopCodeServer(child) {
  if (child && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGTERM"); // its process group: the extension host and our server too
    } catch {
      /* already gone */
    }
  }
}

// --- in the browser -------------------------------------------------------------------------------

async function openWorkbench(page, url, projectDir) {
  await page.goto(`${url}/?folder=${encodeURIComponent(projectDir)}`);
  // the explorer lists the project's files once the workbench and its file service are up
  await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "main.tex" }).first()
    .waitFor({ timeout: WAIT_MS });
}

/** Opens a file by name through Quick Open (which searches the folder with rg). */
async function openFile(page, name) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ timeout: WAIT_MS });
  await input.fill(name);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor({ timeout: WAIT_MS });
  await page.keyboard.press("Enter");
  await page.locator(".tabs-container .tab.active", { hasText: name }).waitFor({ timeout: WAIT_MS });
  await page.locator(".monaco-editor .view-lines").first().waitFor({ timeout: WAIT_MS });
}

async function checkProblems(page) {
  await page.keyboard.press("Control+Shift+M");
  const row = page.locator(".markers-panel .monaco-list-row", { hasText: PROBLEM_TEXT }).first();
  await row.waitFor({ timeout: WAIT_MS });
  return (await row.innerText()).replace(/\s+/g, " ").trim();
}

async function checkLens(page) {
  const lens = page.locator(".monaco-editor .codelens-decoration", { hasText: LENS_TEXT }).first();
  await lens.waitFor({ timeout: WAIT_MS });
  return (await lens.innerText()).trim();
}

/** Where on screen the label of `\cref{label}` is drawn, or null while it is not on screen. */
function labelCentre({ label }) {
  const needle = `\\cref{${label}}`;
  for (const line of document.querySelectorAll(".monaco-editor .view-lines .view-line")) {
    const text = line.textContent.replace(/\u00a0/g, " ");
    const at = text.indexOf(needle);
    if (at < 0) continue;
    const offset = at + needle.indexOf(label) + Math.floor(label.length / 2);
    // walk the line's text nodes (one per token) to the character in the middle of the label
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    let seen = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (seen + node.length > offset) {
        const range = document.createRange();
        range.setStart(node, offset - seen);
        range.setEnd(node, offset - seen + 1);
        const box = range.getBoundingClientRect();
        return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
      }
      seen += node.length;
    }
  }
  return null;
}

async function checkHover(page, projectDir) {
  // bring the line with the \cref into view (Go to Line), then rest the mouse on the label
  await page.locator(".monaco-editor textarea").first().focus();
  await page.keyboard.press("Control+G");
  await page.locator(".quick-input-widget input").waitFor({ timeout: WAIT_MS });
  const line = fs.readFileSync(path.join(projectDir, "sections", CHECKED_FILE), "utf8").split("\n")
    .findIndex((text) => text.includes(`\\cref{${HOVERED_REF}}`)) + 1;
  await page.keyboard.type(String(line));
  await page.keyboard.press("Enter");
  const spot = await (await page.waitForFunction(labelCentre, { label: HOVERED_REF }, { timeout: WAIT_MS })).jsonValue();
  await page.mouse.move(spot.x - 30, spot.y);
  await page.mouse.move(spot.x, spot.y, { steps: 5 });
  const hover = page.locator(".monaco-hover", { hasText: HOVER_TEXT }).first();
  await hover.waitFor({ state: "visible", timeout: WAIT_MS });
  // its fade-in finished, so that the screenshot shows it whole
  await hover.evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished)));
  return (await hover.innerText()).replace(/\s+/g, " ").trim();
}

// --- the run --------------------------------------------------------------------------------------

/** Runs one step; a failure says which step, what it looked for, and the underlying error. */
async function step(description, action) {
  try {
    return await action();
  } catch (err) {
    throw new Error(`${description}: ${err.message}`);
  }
}

async function runChecks(options, home, url, projectDir) {
  const { chromium } = require("playwright-core");
  // Chromium keeps its crash reports under XDG_CONFIG_HOME: the run's own, not ~/.config
  const browser = await chromium.launch({ executablePath: options.chromium, headless: true, env: codeServerEnv(home) });
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  try {
    await step("the workbench did not show the project", () => openWorkbench(page, url, projectDir));
    mark("workbench open in Chromium");
    await step(`Quick Open did not open ${CHECKED_FILE}`, () => openFile(page, CHECKED_FILE));
    mark(`${CHECKED_FILE} open`);
    const seen = {};
    seen.problem = await step(`the Problems panel never listed "${PROBLEM_TEXT}"`, () => checkProblems(page));
    await page.screenshot({ path: path.join(options.artifacts, "1-problems.png") });
    mark("Problems panel lists the server's warning");
    seen.lens = await step(`no "${LENS_TEXT}" code lens was shown`, () => checkLens(page));
    await page.screenshot({ path: path.join(options.artifacts, "2-lens.png") });
    mark("lens shown");
    seen.hover = await step(`hovering \\cref{${HOVERED_REF}} did not show "${HOVER_TEXT}"`, () => checkHover(page, projectDir));
    await page.screenshot({ path: path.join(options.artifacts, "3-hover.png") });
    mark("hover shown");
    return seen;
  } catch (err) {
    await page.screenshot({ path: path.join(options.artifacts, "failure.png") }).catch(() => {});
    throw err;
  } finally {
    await browser.close();
  }
}

async function main(options) {
  const guard = setTimeout(() => {
    console.error(`e2e: FAILED: the run took longer than ${RUN_LIMIT_MS / 60000} minutes`);
    process.exit(1);
  }, RUN_LIMIT_MS);
  fs.rmSync(options.artifacts, { recursive: true, force: true });
  fs.mkdirSync(options.artifacts, { recursive: true });
  const workdir = options.workdir || fs.mkdtempSync(path.join(os.tmpdir(), "colosseum-vscode-e2e-"));
  fs.mkdirSync(workdir, { recursive: true });
  const vsix = options.vsix || packageExtension(workdir);
  mark("extension packaged");
  const home = prepareHome(options, workdir);
  installExtension(options, home, vsix);
  mark("extension installed into code-server");
  const project = copyProject(options.project, workdir);
  const server = startCodeServer(options, home, path.join(options.artifacts, "code-server.log"));
  process.on("exit", () => stopCodeServer(server.child));
  try {
    const url = await server.ready;
    mark(`code-server listening at ${url}`);
    const seen = await runChecks(options, home, url, project);
    console.log(JSON.stringify({ ok: true, seen, timings }, null, 2));
  } finally {
    stopCodeServer(server.child);
    // the extension host's logs (the Colosseum output channel among them) for whoever reads a failure
    const logs = path.join(home.userData, "logs");
    if (fs.existsSync(logs)) fs.cpSync(logs, path.join(options.artifacts, "logs"), { recursive: true });
    clearTimeout(guard);
  }
}

if (require.main === module) {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`e2e: usage: ${err.message}`);
    process.exit(2);
  }
  main(options).then(() => process.exit(0), (err) => {
    console.error(`e2e: FAILED: ${err.stack || err}`);
    process.exit(1);
  });
}
