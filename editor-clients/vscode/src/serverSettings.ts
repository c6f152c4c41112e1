// The settings object the server is sent, built from the `colosseum.*` values. Kept free of the
// vscode module (settings.ts reads the configuration and calls it) so that it is unit-tested.

import { ServerSettings } from "./protocol";

/** One `colosseum.*` setting's value by its key without the section ("budget.maxCalls"). */
export type ReadSetting = (key: string) => unknown;

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v.trim() !== "") : [];
}

/** Settings in the shape the server expects; unset values are left out (server default). */
export function buildServerSettings(read: ReadSetting, trusted: boolean): ServerSettings {
  const settings: ServerSettings = {};
  const model = read("model");
  if (typeof model === "string" && model) {
    settings.model = model;
  }
  const maxCalls = read("budget.maxCalls");
  const maxUsd = read("budget.maxUsd");
  if (typeof maxCalls === "number" || typeof maxUsd === "number") {
    settings.budget = {};
    if (typeof maxCalls === "number") {
      settings.budget.max_calls = Math.floor(maxCalls);
    }
    if (typeof maxUsd === "number") {
      settings.budget.max_usd = maxUsd;
    }
  }
  const defs = stringList(read("labelDefinitionCommands"));
  if (defs.length > 0) {
    settings.labelDefinitionCommands = defs;
  }
  const refs = stringList(read("labelReferenceCommands"));
  if (refs.length > 0) {
    settings.labelReferenceCommands = refs;
  }
  // codes the server does not send (e.g. beside texlab, which reports undefined references too)
  const ignored = stringList(read("ignoredDiagnostics")).map((code) => code.trim());
  if (ignored.length > 0) {
    settings.ignoredDiagnostics = ignored;
  }
  // how long a model-backed run shows its estimate before its first call (0: at once)
  const startDelay = read("startDelaySeconds");
  if (typeof startDelay === "number" && startDelay >= 0) {
    settings.startDelaySeconds = startDelay;
  }
  if (read("reviewOnSave") === true) {
    settings.reviewOnSave = true;
  }
  // the editor's word on trust; the server runs no project code (lake serve) without it
  if (trusted) {
    settings.trusted = true;
  }
  return settings;
}
