// What the language client does to the messages that pass through it: a retraction asks for its
// reason before it is sent, every command's result is handled like a palette command's, a draft
// proof the server offers is shown as "Review and insert…" (a diff, then a confirmation), and a
// server that pulls its settings gets the same object as its initializationOptions.

import * as vscode from "vscode";
import { Middleware } from "vscode-languageclient/node";

import { reviewDraftActions } from "./draftReview";
import { handleCommandResult } from "./results";
import { withRetractReason } from "./retract";
import { SendCommand, sendCommandTellingFailure } from "./serverCommand";
import { serverSettings, SETTINGS_SECTION } from "./settings";

/** `sendCommand` sends workspace/executeCommand straight to the server: the client's own path
 * (`next`) would add a generic error toast after the server's message (see serverCommand.ts). */
export function clientMiddleware(output: vscode.OutputChannel, sendCommand: SendCommand): Middleware {
  return {
    // Commands the server advertises are registered by vscode-languageclient under their
    // server ids (used by code lenses and code actions); their results get the same
    // treatment as the palette commands'.
    executeCommand: async (command, args) => {
      // LSP has no text prompt: the reason for a retraction is asked here, then sent along
      const sent = await withRetractReason(command, args, askRetractReason);
      if (sent === undefined) {
        return undefined; // dismissed: nothing is retracted
      }
      const outcome = await sendCommandTellingFailure(sendCommand, command, sent, (text) => {
        void vscode.window.showErrorMessage(text);
      });
      if (!outcome.ok) {
        return undefined; // told once above; a rejection here would be told again
      }
      await handleCommandResult(command, outcome.result, output);
      return outcome.result;
    },
    // a model's proof is never inserted from the light bulb at once: see draftReview.ts
    provideCodeActions: async (document, range, context, token, next) =>
      reviewDraftActions(await next(document, range, context, token)),
    workspace: {
      // A server that pulls `workspace/configuration` for section "colosseum" gets the same
      // object as the initializationOptions.
      configuration: async (params, token, next) => {
        const result = await next(params, token);
        if (!Array.isArray(result)) {
          return result;
        }
        return params.items.map((item, i) => (item.section === SETTINGS_SECTION ? serverSettings() : result[i]));
      },
    },
  };
}

function askRetractReason(entryId: string): Promise<string | undefined> {
  return Promise.resolve(
    vscode.window.showInputBox({
      title: `Retract catalog entry ${entryId}`,
      prompt: "Why is it retracted? (kept in the entry; what depends on it turns suspect)",
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() === "" ? "A retraction needs a reason." : undefined),
    }),
  );
}
