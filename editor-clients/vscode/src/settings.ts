// The `colosseum` settings (declared in package.json): how to launch the server, and the
// settings object the server is sent (initializationOptions, didChangeConfiguration and
// workspace/configuration all carry the same one).

import * as vscode from "vscode";
import { ServerOptions } from "vscode-languageclient/node";

import { ServerSettings } from "./protocol";
import { buildServerSettings } from "./serverSettings";

/** The configuration section, also the section a server pulls with workspace/configuration. */
export const SETTINGS_SECTION = "colosseum";

const DEFAULT_SERVER_COMMAND = ["colosseum", "serve"];

function configuration(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SETTINGS_SECTION);
}

/** The server's command line: `colosseum.server.command`, or the default when it is unset or empty. */
export function configuredCommandLine(): string[] {
  const commandLine = configuration().get<string[]>("server.command", DEFAULT_SERVER_COMMAND);
  return commandLine.length > 0 ? commandLine : DEFAULT_SERVER_COMMAND;
}

/** The server process: its command line, environment and working directory. */
export function serverOptions(): ServerOptions {
  const [command, ...args] = configuredCommandLine();
  const extraEnv = configuration().get<Record<string, string>>("server.env", {}) ?? {};
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [key, value] of Object.entries(extraEnv)) {
    env[key] = String(value);
  }
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  // No `transport` on purpose: with TransportKind.stdio vscode-languageclient appends `--stdio` to
  // the arguments; without it, it talks over the process's stdin/stdout all the same.
  return {
    command,
    args,
    options: { env, ...(cwd ? { cwd } : {}) },
  };
}

/** Settings in the shape the server expects; unset values are left out (server default). */
export function serverSettings(): ServerSettings {
  const config = configuration();
  return buildServerSettings((key) => config.get(key), vscode.workspace.isTrusted === true);
}

/** The user's extra macros that define a label (without backslash). */
export function labelDefinitionCommands(): string[] {
  return configuration().get<string[]>("labelDefinitionCommands") ?? [];
}

/** The user's extra macros that reference a label (without backslash). */
export function labelReferenceCommands(): string[] {
  return configuration().get<string[]>("labelReferenceCommands") ?? [];
}

/** `colosseum.trace.server`: off, messages or verbose. */
export function traceSetting(): string {
  return configuration().get<string>("trace.server", "off");
}
