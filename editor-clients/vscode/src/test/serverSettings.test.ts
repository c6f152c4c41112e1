// Unit tests of the settings object sent to the server (plain node: `npm test`).
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { test } from "node:test";

import { buildServerSettings } from "../serverSettings";

function reader(values: Record<string, unknown>) {
  return (key: string) => values[key];
}

test("ignoredDiagnostics is forwarded to the server", () => {
  const settings = buildServerSettings(
    reader({ ignoredDiagnostics: ["colosseum/undefined-reference", " colosseum/unused-label "] }),
    false,
  );
  assert.deepStrictEqual(settings.ignoredDiagnostics, ["colosseum/undefined-reference", "colosseum/unused-label"]);
});

test("an empty or unset ignoredDiagnostics is left out (the server's default)", () => {
  assert.ok(!("ignoredDiagnostics" in buildServerSettings(reader({ ignoredDiagnostics: [] }), false)));
  assert.ok(!("ignoredDiagnostics" in buildServerSettings(reader({}), false)));
});

test("the other settings keep their shape", () => {
  const settings = buildServerSettings(
    reader({ model: "m", "budget.maxCalls": 3.7, labelDefinitionCommands: ["lemlabel"], reviewOnSave: true }),
    true,
  );
  assert.deepStrictEqual(settings, {
    model: "m",
    budget: { max_calls: 3 },
    labelDefinitionCommands: ["lemlabel"],
    reviewOnSave: true,
    trusted: true,
  });
});

test("package.json contributes colosseum.ignoredDiagnostics as a list of codes", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf-8"));
  const setting = manifest.contributes.configuration.properties["colosseum.ignoredDiagnostics"];
  assert.ok(setting, "colosseum.ignoredDiagnostics is contributed");
  assert.strictEqual(setting.type, "array");
  assert.strictEqual(setting.items.type, "string");
  assert.deepStrictEqual(setting.default, []);
});

test("startDelaySeconds is forwarded, 0 included; unset is left out", () => {
  assert.strictEqual(buildServerSettings(reader({ startDelaySeconds: 0 }), false).startDelaySeconds, 0);
  assert.strictEqual(buildServerSettings(reader({ startDelaySeconds: 5 }), false).startDelaySeconds, 5);
  assert.ok(!("startDelaySeconds" in buildServerSettings(reader({}), false)));
});
