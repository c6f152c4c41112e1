// Unit tests of the version handshake (plain node: `npm test`).
import * as assert from "assert";
import { test } from "node:test";

import { versionMismatch, versionParts } from "../version";

test("the same major and minor version fits, whatever the patch", () => {
  assert.strictEqual(versionMismatch("0.1.0", { name: "colosseum", version: "0.1.7" }), undefined);
  assert.deepStrictEqual(versionParts("1.2"), [1, 2, 0]);
});

test("an older server asks to upgrade the server, with the install tool's command", () => {
  const message = versionMismatch("0.2.0", { name: "colosseum", version: "0.1.3" });
  assert.ok(message);
  assert.match(message, /server is 0\.1\.3 and this extension is 0\.2\.0/);
  assert.match(message, /pipx upgrade colosseum-latex/);
});

test("a newer server asks to upgrade the extension", () => {
  const message = versionMismatch("0.1.0", { name: "colosseum", version: "1.0.0" });
  assert.ok(message);
  assert.match(message, /upgrade the extension/);
  assert.doesNotMatch(message, /pipx/);
});

test("a server that reports no version is older: upgrade it", () => {
  assert.match(versionMismatch("0.1.0", undefined) ?? "", /did not report its version.*pipx upgrade/);
  assert.match(versionMismatch("0.1.0", { name: "colosseum" }) ?? "", /upgrade the server/);
});
