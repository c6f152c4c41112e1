// VS Code client for the Colosseum for LaTeX language server.
//
// Starts `colosseum serve` (configurable) on stdio for LaTeX documents, forwards the settings as
// initializationOptions and on change as workspace/didChangeConfiguration, offers the server's
// workspace/executeCommand commands in the command palette, opens the dependency graph HTML the
// server writes, and shows the server's state and open-obligation count in the status bar.
//
// This file wires the parts together: client.ts (life cycle), commands.ts (the commands),
// status.ts (status bar), settings.ts, middleware.ts, results.ts and graph.ts.

import * as vscode from "vscode";

import { CLIENT_NAME, ServerClient } from "./client";
import { COMMANDS, registerCommands } from "./commands";
import { registerDraftReview } from "./draftReview";
import { StatusBar } from "./status";

let server: ServerClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel(CLIENT_NAME);
  const statusBar = new StatusBar(COMMANDS.showOutput);
  context.subscriptions.push(output, statusBar);
  const client = new ServerClient(output, statusBar, context.globalState);
  server = client;

  context.subscriptions.push(
    ...registerCommands(client, output),
    registerDraftReview(),
    vscode.workspace.onDidChangeConfiguration((event) => client.onConfigurationChanged(event)),
    vscode.window.onDidChangeActiveTextEditor(() => client.renderStatus()),
    // trust granted while running: the server hears `trusted: true` and may now run Lean
    ...(vscode.workspace.onDidGrantWorkspaceTrust
      ? [vscode.workspace.onDidGrantWorkspaceTrust(() => void client.sendSettings())]
      : []),
    { dispose: () => void client.stop() },
  );

  await client.start();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
}
