// A server command (workspace/executeCommand) sent so that its failure is told once. The server
// answers a failed command with RequestFailed and a message written for the author; letting the
// rejection through vscode-languageclient's own handler adds a second, generic toast ("Request
// workspace/executeCommand failed."), so the rejection is caught here and shown once. Kept free
// of the vscode module so that it is unit-tested with plain node.

import { errorText } from "./errors";

/** Sends one server command and resolves with its result (rejects when the server fails it). */
export type SendCommand = (command: string, args: unknown[]) => Promise<unknown>;

export type CommandOutcome = { ok: true; result: unknown } | { ok: false };

/** Send `command`; on failure show the server's own message once and resolve `{ok: false}`. */
export async function sendCommandTellingFailure(
  send: SendCommand,
  command: string,
  args: unknown[],
  showError: (text: string) => void,
): Promise<CommandOutcome> {
  try {
    return { ok: true, result: await send(command, args) };
  } catch (err) {
    showError(failureText(command, err));
    return { ok: false };
  }
}

/** The text of a failed command: the server's message, or the command id when it gave none. */
export function failureText(command: string, err: unknown): string {
  const message = errorText(err).trim();
  return message ? `Colosseum: ${message}` : `Colosseum: ${command} failed`;
}
