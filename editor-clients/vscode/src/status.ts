// The status bar item: the server's state (starting, stopped, indexing) and its count of open
// obligations; clicking it shows the server's output.

import * as vscode from "vscode";
import { State } from "vscode-languageclient/node";

import { isLatexEditor } from "./editor";
import { StatusParams } from "./protocol";

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  /** What the server last said in `colosseum/status`, merged. */
  private serverStatus: StatusParams = {};

  constructor(showOutputCommand: string) {
    this.item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
    this.item.name = "Colosseum";
    this.item.command = showOutputCommand;
  }

  /** Forget the last server's status (a new server is starting). */
  reset(): void {
    this.serverStatus = {};
  }

  update(params: StatusParams): void {
    this.serverStatus = { ...this.serverStatus, ...params };
  }

  /** Show the state; `clientState` undefined: there is no client. Shown on LaTeX files, and
   * anywhere while the server is not running. */
  render(clientState: State | undefined): void {
    const item = this.item;
    const status = this.serverStatus;
    if (clientState === undefined) {
      item.text = "$(circle-slash) Colosseum";
      item.tooltip = "Colosseum language server: stopped";
      item.backgroundColor = undefined;
    } else if (clientState === State.Starting) {
      item.text = "$(sync~spin) Colosseum: starting";
      item.tooltip = "Colosseum language server: starting";
      item.backgroundColor = undefined;
    } else if (clientState === State.Stopped) {
      item.text = "$(error) Colosseum: stopped";
      item.tooltip = "Colosseum language server: stopped (see the output)";
      item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
    } else if (status.state === "indexing") {
      item.text = "$(sync~spin) Colosseum: indexing";
      item.tooltip = "Colosseum language server: indexing the project";
      item.backgroundColor = undefined;
    } else {
      const n = status.obligations;
      item.text =
        typeof n === "number"
          ? `$(checklist) Colosseum: ${n} open obligation${n === 1 ? "" : "s"}`
          : "$(check) Colosseum";
      item.tooltip =
        `Colosseum language server: ${status.state ?? "running"}` + (status.message ? `\n${status.message}` : "");
      item.backgroundColor = undefined;
    }
    if (isLatexEditor(vscode.window.activeTextEditor) || (clientState !== undefined && clientState !== State.Running)) {
      item.show();
    } else {
      item.hide();
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
