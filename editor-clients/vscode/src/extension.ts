// VS Code client for the Colosseum for LaTeX language server.
//
// Starts `colosseum serve` (configurable) on stdio for LaTeX documents, forwards the settings as
// initializationOptions and on change as workspace/didChangeConfiguration, offers the server's
// workspace/executeCommand commands in the command palette, opens the dependency graph HTML the
// server writes, and shows the server's state and open-obligation count in the status bar.

import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";

import { CLIENT_NAME, ServerClient } from "./client";
import { activeLatexEditor, labelForEditor } from "./editor";
import { errorText } from "./errors";
import { SERVER_COMMANDS } from "./protocol";
import { handleCommandResult } from "./results";
import { StatusBar } from "./status";

let outputChannel: vscode.OutputChannel;
let server: ServerClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  outputChannel = vscode.window.createOutputChannel(CLIENT_NAME);
  const statusBar = new StatusBar("colosseum-latex.showOutput");
  context.subscriptions.push(outputChannel, statusBar);
  const started = new ServerClient(outputChannel, statusBar);
  server = started;

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
    vscode.commands.registerCommand("colosseum-latex.restartServer", () => started.restart()),
    vscode.commands.registerCommand("colosseum-latex.showOutput", () => outputChannel.show(true)),
    vscode.workspace.onDidChangeConfiguration((event) => started.onConfigurationChanged(event)),
    vscode.window.onDidChangeActiveTextEditor(() => started.renderStatus()),
    { dispose: () => void started.stop() },
  );

  await started.start();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
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
  const running = await server?.running();
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
