// The extension's commands (contributed in package.json: palette and editor context menu). Most
// send a server command about the active LaTeX file, or about the label in it, and hand the
// result to handleCommandResult.

import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";

import { ServerClient } from "./client";
import { activeLatexEditor, LabelPrompt, labelForEditor } from "./editor";
import { SERVER_COMMANDS } from "./protocol";
import { handleCommandResult } from "./results";
import { sendCommandTellingFailure } from "./serverCommand";

/** The extension's command ids, as package.json contributes them. */
export const COMMANDS = {
  solveObligation: "colosseum-latex.solveObligation",
  globalReview: "colosseum-latex.globalReview",
  reviewClaim: "colosseum-latex.reviewClaim",
  exploreStrategies: "colosseum-latex.exploreStrategies",
  research: "colosseum-latex.research",
  checkLean: "colosseum-latex.checkLean",
  showDependencyGraph: "colosseum-latex.showDependencyGraph",
  reindex: "colosseum-latex.reindex",
  restartServer: "colosseum-latex.restartServer",
  showOutput: "colosseum-latex.showOutput",
} as const;

export function registerCommands(server: ServerClient, output: vscode.OutputChannel): vscode.Disposable[] {
  const runner = new ServerCommandRunner(server, output);
  const aboutLabel =
    (command: string, ask: LabelPrompt, busy: (label: string) => string, extra: unknown[] = []) =>
    () =>
      runner.aboutLabel(command, ask, busy, extra);
  const aboutFile = (command: string, busy: string) => () => runner.aboutFile(command, busy);
  const handlers: [string, () => void | Promise<void>][] = [
    [
      COMMANDS.solveObligation,
      aboutLabel(
        SERVER_COMMANDS.solveObligation,
        { title: "Colosseum: Solve obligation", prompt: "Label of the claim whose obligation to solve" },
        (label) => `Colosseum: solving ${label}…`,
      ),
    ],
    [COMMANDS.globalReview, aboutFile(SERVER_COMMANDS.globalReview, "Colosseum: reviewing the paper…")],
    [
      COMMANDS.reviewClaim,
      aboutLabel(
        SERVER_COMMANDS.reviewClaim,
        { title: "Colosseum: Review claim", prompt: "Label of the claim to review" },
        (label) => `Colosseum: reviewing ${label}…`,
      ),
    ],
    [
      COMMANDS.exploreStrategies,
      aboutLabel(
        SERVER_COMMANDS.exploreStrategies,
        { title: "Colosseum: Explore strategies", prompt: "Label of the claim to explore proof strategies for" },
        (label) => `Colosseum: exploring strategies for ${label}…`,
      ),
    ],
    [
      COMMANDS.research,
      aboutLabel(
        SERVER_COMMANDS.exploreStrategies,
        { title: "Colosseum: Research", prompt: "Label of the claim to research and draft a proof for" },
        (label) => `Colosseum: researching ${label}…`,
        [{ solve: true }],
      ),
    ],
    [COMMANDS.checkLean, () => runner.checkLean()],
    [
      COMMANDS.showDependencyGraph,
      aboutFile(SERVER_COMMANDS.showDependencyGraph, "Colosseum: drawing the dependency graph…"),
    ],
    [COMMANDS.reindex, () => runner.run(SERVER_COMMANDS.reindex, [], "Colosseum: re-indexing…")],
    [COMMANDS.restartServer, () => server.restart()],
    [COMMANDS.showOutput, () => output.show(true)],
  ];
  return handlers.map(([id, handler]) => vscode.commands.registerCommand(id, handler));
}

/** Sends server commands (workspace/executeCommand) with a busy message in the status bar. */
class ServerCommandRunner {
  constructor(
    private readonly server: ServerClient,
    private readonly output: vscode.OutputChannel,
  ) {}

  /** A server command about the label under the cursor (or asked for): [uri, label, ...extra]. */
  async aboutLabel(command: string, ask: LabelPrompt, busy: (label: string) => string, extra: unknown[]): Promise<void> {
    const editor = activeLatexEditor();
    if (!editor) {
      return;
    }
    const label = await labelForEditor(editor, ask);
    if (!label) {
      return;
    }
    await this.run(command, [editor.document.uri.toString(), label, ...extra], busy(label));
  }

  /** A server command about the active LaTeX file: [uri]. */
  async aboutFile(command: string, busy: string): Promise<void> {
    const editor = activeLatexEditor();
    if (!editor) {
      return;
    }
    await this.run(command, [editor.document.uri.toString()], busy);
  }

  /** The Lean check of the active LaTeX file's project; without one, [] lets the server choose. */
  async checkLean(): Promise<void> {
    const editor = activeLatexEditor();
    await this.run(
      SERVER_COMMANDS.checkLean,
      editor ? [editor.document.uri.toString()] : [],
      "Colosseum: checking the Lean declarations…",
    );
  }

  async run(command: string, args: unknown[], busy: string): Promise<void> {
    const running = await this.server.running();
    if (!running) {
      return;
    }
    const busyMessage = vscode.window.setStatusBarMessage(`$(sync~spin) ${busy}`);
    try {
      const outcome = await sendCommandTellingFailure(
        (name, sent) => running.sendRequest(ExecuteCommandRequest.type, { command: name, arguments: sent }),
        command,
        args,
        (text) => void vscode.window.showErrorMessage(text),
      );
      if (outcome.ok) {
        await handleCommandResult(command, outcome.result, this.output);
      }
    } finally {
      busyMessage.dispose();
    }
  }
}
