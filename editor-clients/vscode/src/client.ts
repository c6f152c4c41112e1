// The language client's life cycle: start the server (telling the user when it cannot), stop
// and restart it, pass settings changes on, and hand a running client to the commands.

import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  MessageType,
  ShowMessageNotification,
  ShowMessageParams,
  State,
  Trace,
} from "vscode-languageclient/node";

import { LATEX_LANGUAGES } from "./editor";
import { errorText } from "./errors";
import { clientMiddleware } from "./middleware";
import { STATUS_NOTIFICATION, StatusParams } from "./protocol";
import {
  configuredCommandLine,
  serverOptions,
  serverSettings,
  SETTINGS_SECTION,
  traceSetting,
} from "./settings";
import { Remembered, shouldShowMessage } from "./serverMessages";
import { StatusBar } from "./status";
import { EXTENSION_ID, versionMismatch } from "./version";

const CLIENT_ID = "colosseum";
export const CLIENT_NAME = "Colosseum";

/** The one client of the Colosseum server (none while stopped), and what lives as long as it. */
export class ServerClient {
  private client: LanguageClient | undefined;
  /** Disposed with the client (file watchers). */
  private clientDisposables: vscode.Disposable[] = [];

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly status: StatusBar,
    /** The extension's globalState: what is told once per install. */
    private readonly remembered?: Remembered,
  ) {}

  renderStatus(): void {
    this.status.render(this.client?.state);
  }

  async start(): Promise<void> {
    this.status.reset();
    const options = serverOptions();
    const newClient = new LanguageClient(CLIENT_ID, CLIENT_NAME, options, this.clientOptions());
    this.client = newClient;
    newClient.onDidChangeState(() => this.renderStatus());
    newClient.onNotification(STATUS_NOTIFICATION, (params: StatusParams) => {
      this.status.update(params);
      this.renderStatus();
    });
    // replaces the client's own showMessage handler (registered before start, it is set after it)
    newClient.onNotification(ShowMessageNotification.type, (params) => this.showServerMessage(params));
    this.renderStatus();
    try {
      await newClient.start();
      this.compareVersions(newClient);
    } catch (err) {
      this.renderStatus();
      const commandLine = configuredCommandLine().join(" ");
      const choice = await vscode.window.showErrorMessage(
        `Colosseum: could not start the language server (\`${commandLine}\`): ${errorText(err)}`,
        "Open Settings",
        "Show Output",
      );
      if (choice === "Open Settings") {
        await vscode.commands.executeCommand("workbench.action.openSettings", "colosseum.server");
      } else if (choice === "Show Output") {
        this.output.show(true);
      }
    }
    this.renderStatus();
  }

  /** The server's message as a toast, as the client would show it, unless already told (serverMessages.ts). */
  private showServerMessage(params: ShowMessageParams): void {
    if (!shouldShowMessage(params.message, this.remembered)) {
      this.output.appendLine(params.message);
      return;
    }
    if (params.type === MessageType.Error) {
      void vscode.window.showErrorMessage(params.message);
    } else if (params.type === MessageType.Warning) {
      void vscode.window.showWarningMessage(params.message);
    } else {
      void vscode.window.showInformationMessage(params.message);
    }
  }

  /** The handshake: tell the user which side to upgrade when the server's major or minor version
   * (serverInfo in `initialize`) differs from the extension's. */
  private compareVersions(started: LanguageClient): void {
    // (optional chaining throughout: the handshake never stands between the user and a started server)
    const ownVersion = String(vscode.extensions?.getExtension(EXTENSION_ID)?.packageJSON?.version ?? "");
    if (!ownVersion) {
      return; // running from a source folder without its manifest: nothing to compare with
    }
    const serverInfo = started.initializeResult?.serverInfo;
    this.output.appendLine(`Colosseum: server ${serverInfo?.version ?? "(no version)"}, extension ${ownVersion}`);
    const mismatch = versionMismatch(ownVersion, serverInfo);
    if (mismatch) {
      void vscode.window.showWarningMessage(mismatch);
    }
  }

  async stop(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    for (const disposable of this.clientDisposables) {
      disposable.dispose();
    }
    this.clientDisposables = [];
    if (old && old.state !== State.Stopped) {
      try {
        await old.stop();
      } catch (err) {
        this.output.appendLine(`Colosseum: error while stopping the server: ${errorText(err)}`);
      }
    }
    this.renderStatus();
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** A running client: started if there is none, waited for while it starts; when it is not
   * running the user may restart it. Undefined when there is still none running. */
  async running(): Promise<LanguageClient | undefined> {
    if (!this.client) {
      await this.start();
    }
    const starting = this.client;
    if (!starting) {
      return undefined;
    }
    if (starting.state === State.Starting) {
      await new Promise<void>((resolve) => {
        const sub = starting.onDidChangeState((e) => {
          if (e.newState !== State.Starting) {
            sub.dispose();
            resolve();
          }
        });
      });
    }
    if (isRunning(this.client)) {
      return this.client;
    }
    const choice = await vscode.window.showErrorMessage(
      "Colosseum: the language server is not running.",
      "Restart",
      "Show Output",
    );
    if (choice === "Restart") {
      await this.restart();
      return isRunning(this.client) ? this.client : undefined;
    }
    if (choice === "Show Output") {
      this.output.show(true);
    }
    return undefined;
  }

  async onConfigurationChanged(event: vscode.ConfigurationChangeEvent): Promise<void> {
    if (!event.affectsConfiguration(SETTINGS_SECTION)) {
      return;
    }
    if (event.affectsConfiguration("colosseum.server")) {
      await this.restart();
      return;
    }
    const client = this.client;
    if (!isRunning(client)) {
      return;
    }
    if (event.affectsConfiguration("colosseum.trace.server")) {
      await client.setTrace(Trace.fromString(traceSetting()));
    }
    await this.sendSettings();
  }

  /** The settings again, e.g. once the author trusts the workspace (they now say `trusted`). */
  async sendSettings(): Promise<void> {
    const client = this.client;
    if (!isRunning(client)) {
      return;
    }
    await client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { colosseum: serverSettings() },
    });
  }

  /** workspace/executeCommand to the current client, past the client's own failure toast. */
  private async sendCommand(command: string, args: unknown[]): Promise<unknown> {
    const client = this.client;
    if (!client) {
      throw new Error("the language server is not running");
    }
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }

  private clientOptions(): LanguageClientOptions {
    const watchers = [
      vscode.workspace.createFileSystemWatcher("**/*.{tex,bib,sty,cls,ltx}"),
      vscode.workspace.createFileSystemWatcher("**/colosseum.toml"),
    ];
    this.clientDisposables.push(...watchers);
    const selector = LATEX_LANGUAGES.flatMap((language) => [
      { scheme: "file", language },
      { scheme: "untitled", language },
    ]);
    return {
      documentSelector: selector,
      initializationOptions: serverSettings(),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      synchronize: { fileEvents: watchers },
      middleware: clientMiddleware(this.output, (command, args) => this.sendCommand(command, args)),
    };
  }
}

// A function, so that TypeScript does not carry a narrowed `state` across awaits.
function isRunning(c: LanguageClient | undefined): c is LanguageClient {
  return c !== undefined && c.state === State.Running;
}
