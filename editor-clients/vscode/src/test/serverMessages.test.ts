// Unit tests of the once-per-install Lean-not-found message (plain node: `npm test`).
import * as assert from "assert";
import { test } from "node:test";

import { isLeanNotFound, LEAN_NOT_FOUND_SHOWN, Remembered, shouldShowMessage } from "../serverMessages";

/** A globalState in memory; one instance is one install, kept across sessions (server starts). */
function memento(): Remembered & { values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  return {
    values,
    get: <T>(key: string) => values.get(key) as T | undefined,
    update: async (key: string, value: unknown) => {
      values.set(key, value);
    },
  };
}

const NOT_ON_PATH =
  "Colosseum: Lean: `lake` is not on PATH, so Lean 4 cannot be run and the claims' Lean declarations are left unchecked.";
const NOT_IN_PATH = "Colosseum: Lean: `lake` is installed at /home/a/.elan/bin/lake but that folder is not on PATH";

test("the Lean-not-found message is shown at the first start only, across restarts", () => {
  const state = memento();
  const shown = [1, 2, 3].map(() => shouldShowMessage(NOT_ON_PATH, state));
  assert.deepStrictEqual(shown, [true, false, false]);
  assert.strictEqual(state.values.get(LEAN_NOT_FOUND_SHOWN), true);
});

test("both forms of the message count as Lean-not-found; other messages always show", () => {
  assert.ok(isLeanNotFound(NOT_ON_PATH));
  assert.ok(isLeanNotFound(NOT_IN_PATH));
  const state = memento();
  assert.ok(shouldShowMessage(NOT_IN_PATH, state));
  assert.ok(!shouldShowMessage(NOT_ON_PATH, state));
  const other = "Colosseum: Lean: the project does not build";
  assert.ok(!isLeanNotFound(other));
  assert.ok(shouldShowMessage(other, state) && shouldShowMessage(other, state));
});

test("without a memento every message is shown", () => {
  assert.ok(shouldShowMessage(NOT_ON_PATH, undefined) && shouldShowMessage(NOT_ON_PATH, undefined));
});
