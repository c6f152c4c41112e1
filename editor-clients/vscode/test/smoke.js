// Smoke test of the compiled extension without VS Code: out/extension.js runs against a stub of
// the `vscode` API (just enough for activate()) with the real vscode-languageclient, talking to
// the stand-in server editor-clients/testing/fake_server.py (stdlib Python) over stdio.
//
//   npm run compile && npm run smoke      (PYTHON=... to choose the interpreter)
//
// Checks: the commands are registered; initializationOptions; the palette commands send
// workspace/executeCommand with [uri, label] / [uri] / []; the graph path is opened, also when the
// command comes from a code lens (the server-id command); colosseum/status reaches the status
// bar; a settings change sends workspace/didChangeConfiguration (and turns tracing on), a
// restart or a server setting change starts a new server; the commands registered and the
// settings read are the ones package.json contributes.
"use strict";

const assert = require("assert");
const fs = require("fs");
const Module = require("module");
const os = require("os");
const path = require("path");

const HERE = __dirname;
// `--bundle`: the esbuild bundle the .vsix ships (dist/), else tsc's output (out/)
const EXTENSION = process.argv.includes("--bundle")
  ? path.join(HERE, "..", "dist", "extension.js")
  : path.join(HERE, "..", "out", "extension.js");
const FAKE_SERVER = path.join(HERE, "..", "..", "testing", "fake_server.py");
const PYTHON = process.env.PYTHON || "python3";

// A temporary project and the server's request log.
const project = fs.mkdtempSync(path.join(os.tmpdir(), "colosseum-vscode-smoke-"));
const texPath = path.join(project, "main.tex");
const texLines = [
  "\\documentclass{article}",
  "\\begin{document}",
  "\\begin{lemma}\\label{lem:a}",
  "  Easy.",
  "\\end{lemma}",
  "\\begin{theorem}\\label{thm:b}",
  "  By \\cref{missing,lem:a}, done.",
  "\\end{theorem}",
  "\\end{document}",
];
fs.writeFileSync(texPath, texLines.join("\n") + "\n");
const logPath = path.join(project, "server.log");
process.env.FAKE_COLOSSEUM_LOG = logPath;
// the version handshake: the stand-in server names a newer minor version than the extension's
const OWN_VERSION = require("../package.json").version;
const [ownMajor, ownMinor] = OWN_VERSION.split(".").map(Number);
process.env.FAKE_COLOSSEUM_VERSION = `${ownMajor}.${ownMinor + 1}.0`;

// ---------------------------------------------------------------------------------------------
// The stub `vscode` module.

/** A value that is any function, object or constructor one asks of it. */
function stub(name) {
  const fn = function () {
    return stub(name + "()");
  };
  return new Proxy(fn, {
    get(target, prop) {
      if (prop === "then") return undefined; // not a thenable
      if (prop === Symbol.toPrimitive) return () => name;
      if (prop === Symbol.iterator) return undefined;
      if (prop === "dispose") return () => {};
      if (!(prop in target)) target[prop] = stub(name + "." + String(prop));
      return target[prop];
    },
    construct() {
      return stub("new " + name);
    },
  });
}

/** An object with the given members; anything else is a stub. */
function partial(name, members) {
  return new Proxy(members, {
    get(target, prop) {
      if (prop === "then") return undefined;
      if (!(prop in target)) target[prop] = stub(name + "." + String(prop));
      return target[prop];
    },
  });
}

class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (f) => {
      this.listeners.push(f);
      return { dispose() {} };
    };
  }
  fire(e) {
    this.listeners.forEach((f) => f(e));
  }
  dispose() {}
}

class Disposable {
  constructor(f) {
    this.f = f;
  }
  dispose() {
    if (this.f) this.f();
  }
  static from(...items) {
    return new Disposable(() => items.forEach((d) => d && d.dispose && d.dispose()));
  }
}

class Uri {
  constructor(scheme, p) {
    this.scheme = scheme;
    this.path = p;
    this.fsPath = p;
  }
  static file(p) {
    return new Uri("file", p);
  }
  static parse(s) {
    const scheme = s.split(":")[0];
    return new Uri(scheme, decodeURIComponent(s.replace(/^[a-z]+:\/\//, "")));
  }
  toString() {
    return `${this.scheme}://${this.path}`;
  }
  with() {
    return this;
  }
}

const settings = {
  "server.command": [PYTHON, FAKE_SERVER],
  "server.env": {},
  model: "model-1",
  "budget.maxCalls": 7,
  "budget.maxUsd": null,
  labelDefinitionCommands: [],
  labelReferenceCommands: ["lemref"],
  "trace.server": "off",
};

const registered = {};
const settingsRead = new Set();
const outputText = [];
const inputPrompts = [];
const inputAnswers = [];
const configurationListeners = [];
const shown = [];
const opened = [];
let statusItem;

const documentStub = {
  uri: Uri.file(texPath),
  fileName: texPath,
  languageId: "latex",
  version: 1,
  isClosed: false,
  isDirty: false,
  isUntitled: false,
  lineCount: texLines.length,
  lineAt: (i) => ({ text: texLines[i] }),
  getText: () => fs.readFileSync(texPath, "utf8"),
};
// The cursor on `lem:a` in `\cref{missing,lem:a}`.
const cursor = { line: 6, character: texLines[6].indexOf("lem:a") + 1 };
const editor = {
  document: documentStub,
  selection: { isEmpty: true, isSingleLine: true, active: cursor },
};

const vscode = partial("vscode", {
  EventEmitter,
  Disposable,
  Uri,
  version: "1.85.0",
  StatusBarAlignment: { Left: 1, Right: 2 },
  ViewColumn: { Active: -1, Beside: -2 },
  ThemeColor: class {
    constructor(id) {
      this.id = id;
    }
  },
  workspace: partial("workspace", {
    getConfiguration: (section) => ({
      get: (key, def) => {
        const full = section === "colosseum" ? key : `${String(section).replace(/^colosseum\./, "")}.${key}`;
        settingsRead.add(full);
        return full in settings ? settings[full] : def;
      },
      has: () => false,
      inspect: () => undefined,
      update: async () => {},
    }),
    workspaceFolders: undefined,
    textDocuments: [documentStub],
    onDidChangeConfiguration: (f) => {
      configurationListeners.push(f);
      return { dispose() {} };
    },
  }),
  window: partial("window", {
    activeTextEditor: editor,
    visibleTextEditors: [editor],
    createOutputChannel: (name) => ({
      name,
      append: (s) => void outputText.push(s),
      appendLine: (s) => {
        outputText.push(s);
        if (process.env.VERBOSE) console.log("[output]", s);
      },
      clear() {},
      replace() {},
      show() {},
      hide() {},
      dispose() {},
    }),
    showInputBox: async (options) => {
      inputPrompts.push(options.title);
      return inputAnswers.shift();
    },
    showInformationMessage: async (m) => void shown.push(["info", m]),
    showWarningMessage: async (m) => void shown.push(["warning", m]),
    showErrorMessage: async (m) => void shown.push(["error", m]),
    setStatusBarMessage: () => ({ dispose() {} }),
    createStatusBarItem: () => {
      statusItem = { text: "", show() {}, hide() {}, dispose() {} };
      return statusItem;
    },
  }),
  extensions: partial("extensions", {
    getExtension: (id) => (id === "colosseum.colosseum-latex" ? { packageJSON: { version: OWN_VERSION } } : undefined),
  }),
  languages: partial("languages", { match: () => 10 }),
  commands: partial("commands", {
    registerCommand: (id, f) => {
      registered[id] = f;
      return { dispose() {} };
    },
    executeCommand: async () => undefined,
  }),
  env: partial("env", {
    appName: "Visual Studio Code",
    language: "en",
    uriScheme: "vscode",
    machineId: "smoke",
    sessionId: "smoke",
    remoteName: undefined,
    openExternal: async (uri) => {
      opened.push(uri.fsPath);
      return true;
    },
    clipboard: { writeText: async () => {} },
  }),
});

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "vscode" ? "vscode" : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: "vscode", filename: "vscode", loaded: true, exports: vscode };

// ---------------------------------------------------------------------------------------------

function requests() {
  if (!fs.existsSync(logPath)) return [];
  // The stand-in server appends one line per message while this reads: only whole lines count
  // (the last one may be half written; a complete line that does not parse is still an error).
  const text = fs.readFileSync(logPath, "utf8");
  const whole = text.endsWith("\n") ? text : text.slice(0, text.lastIndexOf("\n") + 1);
  return whole
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

function executed(command) {
  return requests().filter((r) => r.method === "workspace/executeCommand" && r.params.command === command);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(predicate, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (predicate()) return true;
    await sleep(50);
  }
  return predicate();
}

async function main() {
  const extension = require(EXTENSION);
  await extension.activate({ subscriptions: [], extensionPath: path.dirname(EXTENSION) });

  for (const id of [
    "colosseum-latex.solveObligation",
    "colosseum-latex.globalReview",
    "colosseum-latex.showDependencyGraph",
    "colosseum-latex.reindex",
  ]) {
    assert.ok(registered[id], `command ${id} registered`);
  }
  // What package.json contributes matches what the code registers and reads.
  const manifest = JSON.parse(fs.readFileSync(path.join(HERE, "..", "package.json"), "utf8"));
  const contributed = manifest.contributes.commands.map((c) => c.command).sort();
  const ours = Object.keys(registered).filter((id) => id.startsWith("colosseum-latex.")).sort();
  assert.deepStrictEqual(ours, contributed, "registered commands = contributed commands");
  for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
    for (const item of items) assert.ok(contributed.includes(item.command), `${menu}: ${item.command} contributed`);
  }
  const declared = Object.keys(manifest.contributes.configuration.properties);
  // vscode-languageclient registers the server's commands (for code lenses) under their ids.
  assert.ok(registered["colosseum.showDependencyGraph"], "server command registered by the client");

  const init = requests().find((r) => r.method === "initialize");
  assert.deepStrictEqual(init.params.clientInfo, { name: "Visual Studio Code", version: "1.85.0" });
  assert.deepStrictEqual(init.params.initializationOptions, {
    model: "model-1",
    budget: { max_calls: 7 },
    labelReferenceCommands: ["lemref"],
  });

  const uri = documentStub.uri.toString();
  await registered["colosseum-latex.solveObligation"]();
  assert.deepStrictEqual(executed("colosseum.solveObligation")[0].params.arguments, [uri, "lem:a"]);
  await registered["colosseum-latex.globalReview"]();
  assert.deepStrictEqual(executed("colosseum.globalReview")[0].params.arguments, [uri]);
  await registered["colosseum-latex.reindex"]();
  assert.deepStrictEqual(executed("colosseum.reindex")[0].params.arguments, []);
  await registered["colosseum-latex.showDependencyGraph"]();
  assert.deepStrictEqual(executed("colosseum.showDependencyGraph")[0].params.arguments, [uri]);
  assert.strictEqual(opened.length, 1, "graph opened");
  assert.ok(opened[0].endsWith(".html") && fs.existsSync(opened[0]), `graph file ${opened[0]}`);

  await registered["colosseum-latex.reviewClaim"]();
  assert.deepStrictEqual(executed("colosseum.reviewClaim")[0].params.arguments, [uri, "lem:a"]);
  await registered["colosseum-latex.exploreStrategies"]();
  assert.deepStrictEqual(executed("colosseum.exploreStrategies")[0].params.arguments, [uri, "lem:a"]);
  await registered["colosseum-latex.research"]();
  assert.deepStrictEqual(executed("colosseum.exploreStrategies")[1].params.arguments, [uri, "lem:a", { solve: true }]);
  await registered["colosseum-latex.checkLean"]();
  assert.deepStrictEqual(executed("colosseum.checkLean")[0].params.arguments, [uri]);

  // "Retract" from a code action: the reason is asked, then sent; a dismissed prompt sends nothing.
  inputAnswers.push(undefined, "  the constant is wrong ");
  await registered["colosseum.retractEntry"](uri, "my-entry");
  assert.strictEqual(executed("colosseum.retractEntry").length, 0, "a dismissed prompt retracts nothing");
  await registered["colosseum.retractEntry"](uri, "my-entry");
  assert.deepStrictEqual(executed("colosseum.retractEntry")[0].params.arguments, [uri, "my-entry", "the constant is wrong"]);
  assert.deepStrictEqual(inputPrompts, ["Retract catalog entry my-entry", "Retract catalog entry my-entry"]);

  // No label under the cursor and none in the file: the label is asked for in the command's own
  // words, and a dismissed prompt sends nothing.
  const [lineCount, lineAt] = [documentStub.lineCount, documentStub.lineAt];
  documentStub.lineCount = 1;
  documentStub.lineAt = () => ({ text: "No labels here." });
  inputAnswers.push(undefined, undefined);
  await registered["colosseum-latex.reviewClaim"]();
  await registered["colosseum-latex.solveObligation"]();
  [documentStub.lineCount, documentStub.lineAt] = [lineCount, lineAt];
  assert.deepStrictEqual(inputPrompts.slice(2), ["Colosseum: Review claim", "Colosseum: Solve obligation"]);
  assert.strictEqual(executed("colosseum.reviewClaim").length, 1, "a dismissed label prompt sends nothing");

  // A code lens runs the server-id command: the result is handled the same way.
  await registered["colosseum.showDependencyGraph"](uri);
  assert.strictEqual(opened.length, 2, "graph opened from the server-id command");

  assert.ok(
    await waitFor(() => /Colosseum: \d+ open obligations?/.test(statusItem.text)),
    `status bar shows the obligations: ${statusItem.text}`,
  );

  settings.model = "model-2";
  settings["budget.maxUsd"] = 1.25;
  for (const listener of configurationListeners) {
    await listener({ affectsConfiguration: (s) => s === "colosseum" || s === "colosseum.model" });
  }
  assert.ok(
    await waitFor(() => requests().some((r) => r.method === "workspace/didChangeConfiguration")),
    "didChangeConfiguration sent",
  );
  const change = requests().find((r) => r.method === "workspace/didChangeConfiguration");
  assert.deepStrictEqual(change.params.settings, {
    colosseum: { model: "model-2", budget: { max_calls: 7, max_usd: 1.25 }, labelReferenceCommands: ["lemref"] },
  });

  // Tracing turned on: the messages to the server are traced in the output.
  const traced = () => outputText.some((s) => /Sending request 'workspace\/executeCommand/.test(s));
  assert.ok(!traced(), "no trace before it is turned on");
  settings["trace.server"] = "messages";
  for (const listener of configurationListeners) {
    await listener({ affectsConfiguration: (s) => s === "colosseum" || s === "colosseum.trace.server" });
  }
  await registered["colosseum-latex.reindex"]();
  assert.ok(traced(), "requests traced after trace.server = messages");
  settings["trace.server"] = "off";

  // Restart from the palette, and after a change of the server settings: a new server each time.
  const initializes = () => requests().filter((r) => r.method === "initialize").length;
  await registered["colosseum-latex.restartServer"]();
  assert.strictEqual(initializes(), 2, "restart starts a new server");
  for (const listener of configurationListeners) {
    await listener({ affectsConfiguration: (s) => s === "colosseum" || s === "colosseum.server" });
  }
  assert.strictEqual(initializes(), 3, "a server setting change restarts the server");
  await registered["colosseum-latex.reindex"]();
  assert.strictEqual(executed("colosseum.reindex").length, 3, "commands reach the restarted server");
  assert.ok(
    await waitFor(() => /Colosseum: \d+ open obligations?/.test(statusItem.text)),
    `status bar after the restart: ${statusItem.text}`,
  );

  for (const key of settingsRead) {
    assert.ok(declared.includes(`colosseum.${key}`), `setting colosseum.${key} declared in package.json`);
  }
  assert.ok(settingsRead.has("server.command") && settingsRead.has("model"), "settings read");

  const handshake = shown.filter(([kind, m]) => kind === "warning" && m.includes(process.env.FAKE_COLOSSEUM_VERSION));
  assert.ok(handshake.length >= 1, `the version handshake warned: ${JSON.stringify(shown)}`);
  assert.match(handshake[0][1], /this extension is .*: upgrade the extension/);
  const errors = shown.filter(([kind]) => kind === "error");
  assert.deepStrictEqual(errors, [], "no error shown");
  await extension.deactivate();
  for (const file of opened) fs.rmSync(file, { force: true });
}

main()
  .then(() => {
    fs.rmSync(project, { recursive: true, force: true });
    console.log("smoke: ok");
    process.exit(0);
  })
  .catch((err) => {
    console.error("smoke: FAILED", err);
    if (fs.existsSync(logPath)) console.error(fs.readFileSync(logPath, "utf8"));
    process.exit(1);
  });
