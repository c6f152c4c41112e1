// What a server command's result turns into: the dependency graph opened, the server's message
// shown, or the re-index counts in the status bar. The same for commands run from the palette
// and for those run by code lenses and code actions (through the client's middleware).

import * as vscode from "vscode";

import { REVIEW_DRAFT_COMMAND } from "./draftReview";
import { offerLocation } from "./drafts";
import { openGraphResult } from "./graph";
import { SERVER_COMMANDS } from "./protocol";

export async function handleCommandResult(
  command: string,
  result: unknown,
  output: vscode.OutputChannel,
): Promise<void> {
  if (command === SERVER_COMMANDS.showDependencyGraph) {
    await openGraphResult(result, output);
    return;
  }
  const message = resultMessage(result);
  if (message && offerLocation(result)) {
    // a draft was offered: one click to read it (nothing is inserted before the author confirms)
    const REVIEW = "Review and insert…";
    void vscode.window.showInformationMessage(`Colosseum: ${message}`, REVIEW).then((choice) => {
      if (choice === REVIEW) {
        void vscode.commands.executeCommand(REVIEW_DRAFT_COMMAND, result);
      }
    });
  } else if (message) {
    void vscode.window.showInformationMessage(`Colosseum: ${message}`);
  } else if (command === SERVER_COMMANDS.reindex) {
    vscode.window.setStatusBarMessage(`Colosseum: re-indexed${countsText(result)}`, 5000);
  }
}

/** " (12 files, 30 claims)" from a result such as {"files": 12, "claims": 30}, else "". */
function countsText(result: unknown): string {
  if (!result || typeof result !== "object") {
    return "";
  }
  const record = result as Record<string, unknown>;
  const parts = ["files", "claims", "sections"]
    .filter((key) => typeof record[key] === "number")
    .map((key) => `${record[key] as number} ${key}`);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/** The server's message: the result itself when it is text, else its message/summary/status. */
function resultMessage(result: unknown): string | undefined {
  if (typeof result === "string" && result.trim().length > 0) {
    return result;
  }
  if (result && typeof result === "object") {
    const record = result as Record<string, unknown>;
    for (const key of ["message", "summary", "status"]) {
      if (typeof record[key] === "string" && (record[key] as string).length > 0) {
        return record[key] as string;
      }
    }
  }
  return undefined;
}
