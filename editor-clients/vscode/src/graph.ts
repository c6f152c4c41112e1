// The dependency graph the server writes as an HTML file: opened in the browser, or in a webview
// beside the editor when there is no browser to open it (remote) or the user asks for it.

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";

import { errorText } from "./errors";

/** Open the graph whose path the server returned, or say that it returned none. */
export async function openGraphResult(result: unknown, output: vscode.OutputChannel): Promise<void> {
  const file = graphPath(result);
  if (file) {
    await openGraph(file, output);
  } else if (result !== null && result !== undefined) {
    void vscode.window.showWarningMessage(
      `Colosseum: the server returned no graph path (${JSON.stringify(result)}).`,
    );
  }
}

/** The file of a result such as "/p/graph.html", "file:///p/graph.html", {path} or {uri}. */
function graphPath(result: unknown): string | undefined {
  if (typeof result === "string") {
    return result.startsWith("file:") ? vscode.Uri.parse(result).fsPath : result;
  }
  if (result && typeof result === "object") {
    const record = result as Record<string, unknown>;
    if (typeof record.path === "string") {
      return record.path;
    }
    if (typeof record.uri === "string") {
      return vscode.Uri.parse(record.uri).fsPath;
    }
  }
  return undefined;
}

async function openGraph(file: string, output: vscode.OutputChannel): Promise<void> {
  output.appendLine(`Colosseum: dependency graph written to ${file}`);
  const uri = vscode.Uri.file(file);
  const isRemote = vscode.env.remoteName !== undefined;
  let opened = false;
  if (!isRemote) {
    try {
      opened = await vscode.env.openExternal(uri);
    } catch {
      opened = false;
    }
  }
  if (!opened) {
    showGraphInWebview(file);
    return;
  }
  const choice = await vscode.window.showInformationMessage(
    `Colosseum: dependency graph opened in the browser (${file}).`,
    "Open in VS Code",
    "Copy Path",
  );
  if (choice === "Open in VS Code") {
    showGraphInWebview(file);
  } else if (choice === "Copy Path") {
    await vscode.env.clipboard.writeText(file);
  }
}

function showGraphInWebview(file: string): void {
  let html: string;
  try {
    html = fs.readFileSync(file, "utf8");
  } catch (err) {
    void vscode.window.showErrorMessage(
      `Colosseum: cannot read the dependency graph ${file}: ${errorText(err)}`,
    );
    return;
  }
  const dir = vscode.Uri.file(path.dirname(file));
  const panel = vscode.window.createWebviewPanel(
    "colosseumDependencyGraph",
    "Colosseum: dependency graph",
    vscode.ViewColumn.Beside,
    { enableScripts: true, localResourceRoots: [dir], retainContextWhenHidden: true },
  );
  panel.webview.html = html;
}
