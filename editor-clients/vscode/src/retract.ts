// "Retract" needs the author's reason, and LSP has no text prompt: the client asks, then sends
// the command again with the reason as its third argument. Kept free of the vscode module so
// that it is unit-tested with plain node.

export const RETRACT_COMMAND = "colosseum.retractEntry";

/** The arguments to send for `command`: unchanged for other commands or when a reason is
 * already there; with the reason `ask(entryId)` returns, trimmed; undefined when the author
 * dismissed the prompt (then nothing is sent and nothing is retracted). */
export async function withRetractReason(
  command: string,
  args: unknown[],
  ask: (entryId: string) => Promise<string | undefined>,
): Promise<unknown[] | undefined> {
  if (command !== RETRACT_COMMAND || (args.length >= 3 && String(args[2] ?? "").trim() !== "")) {
    return args;
  }
  const reason = await ask(String(args[1] ?? ""));
  if (reason === undefined || reason.trim() === "") {
    return undefined;
  }
  return [...args.slice(0, 2), reason.trim()];
}
