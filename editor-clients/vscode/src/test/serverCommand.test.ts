// Unit tests of the one-toast handling of failed server commands (plain node: `npm test`).
import * as assert from "assert";
import { test } from "node:test";

import { sendCommandTellingFailure } from "../serverCommand";

test("a failed command shows the server's message once and does not reject", async () => {
  const shown: string[] = [];
  const failing = async () => {
    throw new Error("no claim labelled lem:x in this file");
  };
  const outcome = await sendCommandTellingFailure(failing, "colosseum.solveObligation", ["u", "lem:x"], (t) =>
    shown.push(t),
  );
  assert.deepStrictEqual(outcome, { ok: false });
  assert.deepStrictEqual(shown, ["Colosseum: no claim labelled lem:x in this file"]);
});

test("a failure without a message names the command", async () => {
  const shown: string[] = [];
  await sendCommandTellingFailure(() => Promise.reject(new Error("")), "colosseum.reindex", [], (t) => shown.push(t));
  assert.deepStrictEqual(shown, ["Colosseum: colosseum.reindex failed"]);
});

test("a command that succeeds shows nothing and hands its result on", async () => {
  const shown: string[] = [];
  const sent: unknown[] = [];
  const outcome = await sendCommandTellingFailure(
    async (command, args) => {
      sent.push([command, args]);
      return { message: "done" };
    },
    "colosseum.reindex",
    ["u"],
    (t) => shown.push(t),
  );
  assert.deepStrictEqual(outcome, { ok: true, result: { message: "done" } });
  assert.deepStrictEqual(sent, [["colosseum.reindex", ["u"]]]);
  assert.deepStrictEqual(shown, []);
});
