// VS Code client for the Colosseum for LaTeX language server.
//
// Starts `colosseum serve` (configurable) on stdio for LaTeX documents, forwards the settings as
// initializationOptions and on change as workspace/didChangeConfiguration, offers the server's
// workspace/executeCommand commands in the command palette, opens the dependency graph HTML the
// server writes, and shows the server's state and open-obligation count in the status bar.

import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  State,
  Trace,
} from "vscode-languageclient/node";

import { errorText } from "./errors";
import { activeLatexEditor, LATEX_LANGUAGES, labelForEditor } from "./editor";
import { handleCommandResult } from "./results";
import { SERVER_COMMANDS, STATUS_NOTIFICATION, StatusParams } from "./protocol";
import { withRetractReason } from "./retract";
import { StatusBar } from "./status";
import {
  configuredCommandLine,
  serverOptions,
  serverSettings,
  SETTINGS_SECTION,
  traceSetting,
} from "./settings";

const CLIENT_ID = "colosseum";
const CLIENT_NAME = "Colosseum";

let client: LanguageClient | undefined;
let outputChannel: vscode.OutputChannel;
/** Disposed with the client (file watchers). */
let clientDisposables: vscode.Disposable[] = [];
let statusBar: StatusBar | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  outputChannel = vscode.window.createOutputChannel(CLIENT_NAME);
  statusBar = new StatusBar("colosseum-latex.showOutput");
  context.subscriptions.push(outputChannel, statusBar);

  context.subscriptions.push(
    vscode.commands.registerCommand("colosseum-latex.solveObligation", solveObligation),
    vscode.commands.registerCommand("colosseum-latex.globalReview", globalReview),
    vscode.commands.registerCommand("colosseum-latex.reviewClaim", () =>
      runLabelCommand(SERVER_COMMANDS.reviewClaim, (label) => `Colosseum: reviewing ${label}…`),
    ),
    vscode.commands.registerCommand("colosseum-latex.exploreStrategies", () =>
      runLabelCommand(SERVER_COMMANDS.exploreStrategies, (label) => `Colosseum: exploring strategies for ${label}…`),
    ),
    vscode.commands.registerCommand("colosseum-latex.research", () =>
      runLabelCommand(SERVER_COMMANDS.exploreStrategies, (label) => `Colosseum: researching ${label}…`, [
        { solve: true },
      ]),
    ),
    vscode.commands.registerCommand("colosseum-latex.checkLean", checkLean),
    vscode.commands.registerCommand("colosseum-latex.showDependencyGraph", showDependencyGraph),
    vscode.commands.registerCommand("colosseum-latex.reindex", reindex),
    vscode.commands.registerCommand("colosseum-latex.restartServer", restartServer),
    vscode.commands.registerCommand("colosseum-latex.showOutput", () => outputChannel.show(true)),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
    vscode.window.onDidChangeActiveTextEditor(() => renderStatus()),
    { dispose: () => void stopClient() },
  );

  await startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

// ---------------------------------------------------------------------------------------------
// Client life cycle

function clientOptions(): LanguageClientOptions {
  const watchers = [
    vscode.workspace.createFileSystemWatcher("**/*.{tex,bib,sty,cls,ltx}"),
    vscode.workspace.createFileSystemWatcher("**/colosseum.toml"),
  ];
  clientDisposables.push(...watchers);
  const selector = LATEX_LANGUAGES.flatMap((language) => [
    { scheme: "file", language },
    { scheme: "untitled", language },
  ]);
  return {
    documentSelector: selector,
    initializationOptions: serverSettings(),
    outputChannel,
    traceOutputChannel: outputChannel,
    synchronize: { fileEvents: watchers },
    middleware: {
      // Commands the server advertises are registered by vscode-languageclient under their
      // server ids (used by code lenses and code actions); their results get the same
      // treatment as the palette commands'.
      executeCommand: async (command, args, next) => {
        // LSP has no text prompt: the reason for a retraction is asked here, then sent along
        const sent = await withRetractReason(command, args, (entryId) =>
          Promise.resolve(
            vscode.window.showInputBox({
              title: `Retract catalog entry ${entryId}`,
              prompt: "Why is it retracted? (kept in the entry; what depends on it turns suspect)",
              ignoreFocusOut: true,
              validateInput: (value) => (value.trim() === "" ? "A retraction needs a reason." : undefined),
            }),
          ),
        );
        if (sent === undefined) {
          return undefined; // dismissed: nothing is retracted
        }
        args = sent;
        const result = await next(command, args);
        await handleCommandResult(command, result, outputChannel);
        return result;
      },
      workspace: {
        // A server that pulls `workspace/configuration` for section "colosseum" gets the same
        // object as the initializationOptions.
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) {
            return result;
          }
          return params.items.map((item, i) =>
            item.section === SETTINGS_SECTION ? serverSettings() : result[i],
          );
        },
      },
    },
  };
}

async function startClient(): Promise<void> {
  statusBar?.reset();
  const options = serverOptions();
  const newClient = new LanguageClient(CLIENT_ID, CLIENT_NAME, options, clientOptions());
  client = newClient;
  newClient.onDidChangeState(() => renderStatus());
  newClient.onNotification(STATUS_NOTIFICATION, (params: StatusParams) => {
    statusBar?.update(params);
    renderStatus();
  });
  renderStatus();
  try {
    await newClient.start();
  } catch (err) {
    renderStatus();
    const commandLine = configuredCommandLine().join(" ");
    const choice = await vscode.window.showErrorMessage(
      `Colosseum: could not start the language server (\`${commandLine}\`): ${errorText(err)}`,
      "Open Settings",
      "Show Output",
    );
    if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "colosseum.server");
    } else if (choice === "Show Output") {
      outputChannel.show(true);
    }
  }
  renderStatus();
}

async function stopClient(): Promise<void> {
  const old = client;
  client = undefined;
  for (const disposable of clientDisposables) {
    disposable.dispose();
  }
  clientDisposables = [];
  if (old && old.state !== State.Stopped) {
    try {
      await old.stop();
    } catch (err) {
      outputChannel.appendLine(`Colosseum: error while stopping the server: ${errorText(err)}`);
    }
  }
  renderStatus();
}

async function restartServer(): Promise<void> {
  await stopClient();
  await startClient();
}

async function onConfigurationChanged(event: vscode.ConfigurationChangeEvent): Promise<void> {
  if (!event.affectsConfiguration(SETTINGS_SECTION)) {
    return;
  }
  if (event.affectsConfiguration("colosseum.server")) {
    await restartServer();
    return;
  }
  if (!client || client.state !== State.Running) {
    return;
  }
  if (event.affectsConfiguration("colosseum.trace.server")) {
    await client.setTrace(Trace.fromString(traceSetting()));
  }
  await client.sendNotification(DidChangeConfigurationNotification.type, {
    settings: { colosseum: serverSettings() },
  });
}

// ---------------------------------------------------------------------------------------------
// Commands

async function solveObligation(): Promise<void> {
  await runLabelCommand(SERVER_COMMANDS.solveObligation, (label) => `Colosseum: solving ${label}…`);
}

/** A server command about the label under the cursor (or asked for): [uri, label, ...extra]. */
async function runLabelCommand(command: string, busy: (label: string) => string, extra: unknown[] = []): Promise<void> {
  const editor = activeLatexEditor();
  if (!editor) {
    return;
  }
  const label = await labelForEditor(editor);
  if (!label) {
    return;
  }
  await runServerCommand(command, [editor.document.uri.toString(), label, ...extra], busy(label));
}

async function checkLean(): Promise<void> {
  const editor = activeLatexEditor();
  await runServerCommand(
    SERVER_COMMANDS.checkLean,
    editor ? [editor.document.uri.toString()] : [],
    "Colosseum: checking the Lean declarations…",
  );
}

async function globalReview(): Promise<void> {
  const editor = activeLatexEditor();
  if (!editor) {
    return;
  }
  await runServerCommand(
    SERVER_COMMANDS.globalReview,
    [editor.document.uri.toString()],
    "Colosseum: reviewing the paper…",
  );
}

async function showDependencyGraph(): Promise<void> {
  const editor = activeLatexEditor();
  if (!editor) {
    return;
  }
  await runServerCommand(
    SERVER_COMMANDS.showDependencyGraph,
    [editor.document.uri.toString()],
    "Colosseum: drawing the dependency graph…",
  );
}

async function reindex(): Promise<void> {
  await runServerCommand(SERVER_COMMANDS.reindex, [], "Colosseum: re-indexing…");
}

async function runServerCommand(command: string, args: unknown[], busy: string): Promise<unknown> {
  const running = await runningClient();
  if (!running) {
    return undefined;
  }
  const busyMessage = vscode.window.setStatusBarMessage(`$(sync~spin) ${busy}`);
  try {
    const result = await running.sendRequest(ExecuteCommandRequest.type, {
      command,
      arguments: args,
    });
    await handleCommandResult(command, result, outputChannel);
    return result;
  } catch (err) {
    void vscode.window.showErrorMessage(`Colosseum: ${command} failed: ${errorText(err)}`);
    return undefined;
  } finally {
    busyMessage.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

async function runningClient(): Promise<LanguageClient | undefined> {
  if (!client) {
    await startClient();
  }
  if (!client) {
    return undefined;
  }
  if (client.state === State.Starting) {
    await new Promise<void>((resolve) => {
      const sub = client!.onDidChangeState((e) => {
        if (e.newState !== State.Starting) {
          sub.dispose();
          resolve();
        }
      });
    });
  }
  if (client.state !== State.Running) {
    const choice = await vscode.window.showErrorMessage(
      "Colosseum: the language server is not running.",
      "Restart",
      "Show Output",
    );
    if (choice === "Restart") {
      await restartServer();
      return isRunning(client) ? client : undefined;
    }
    if (choice === "Show Output") {
      outputChannel.show(true);
    }
    return undefined;
  }
  return client;
}

// A function, so that TypeScript does not carry a narrowed `state` across awaits.
function isRunning(c: LanguageClient | undefined): c is LanguageClient {
  return c !== undefined && c.state === State.Running;
}

function renderStatus(): void {
  statusBar?.render(client?.state);
}
