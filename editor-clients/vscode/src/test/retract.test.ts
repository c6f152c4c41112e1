// Unit tests of the retraction prompt's argument handling (plain node: `npm test`).
import * as assert from "assert";
import { test } from "node:test";

import { RETRACT_COMMAND, withRetractReason } from "../retract";

test("other commands pass through without asking", async () => {
  let asked = 0;
  const args = ["file:///a.tex", "lem:x"];
  const out = await withRetractReason("colosseum.solveObligation", args, async () => {
    asked += 1;
    return "no";
  });
  assert.deepStrictEqual(out, args);
  assert.strictEqual(asked, 0);
});

test("a retraction without a reason asks for one and sends it trimmed", async () => {
  const seen: string[] = [];
  const out = await withRetractReason(RETRACT_COMMAND, ["file:///a.tex", "my-entry"], async (id) => {
    seen.push(id);
    return "  the constant is wrong ";
  });
  assert.deepStrictEqual(seen, ["my-entry"]);
  assert.deepStrictEqual(out, ["file:///a.tex", "my-entry", "the constant is wrong"]);
});

test("a dismissed or empty prompt sends nothing", async () => {
  assert.strictEqual(await withRetractReason(RETRACT_COMMAND, ["u", "e"], async () => undefined), undefined);
  assert.strictEqual(await withRetractReason(RETRACT_COMMAND, ["u", "e"], async () => "   "), undefined);
});

test("a reason already given is not asked again", async () => {
  const args = ["u", "e", "known"];
  assert.deepStrictEqual(await withRetractReason(RETRACT_COMMAND, args, async () => "other"), args);
});
