// The LaTeX editor a command is about, and the label in it the command is about.

import * as vscode from "vscode";

import { allLabels, DEFAULT_LABEL_COMMANDS, labelAt } from "./labels";
import { labelDefinitionCommands, labelReferenceCommands } from "./settings";

// VS Code's language id of .tex/.ltx files (built in, and LaTeX Workshop's). Packages and classes
// (.sty/.cls, language id "tex") are read by the server from disk, not sent as documents.
export const LATEX_LANGUAGES = ["latex"];

export function isLatexEditor(editor: vscode.TextEditor | undefined): editor is vscode.TextEditor {
  return editor !== undefined && LATEX_LANGUAGES.includes(editor.document.languageId);
}

/** The active editor when it shows a LaTeX file; otherwise the user is told to open one. */
export function activeLatexEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!isLatexEditor(editor)) {
    void vscode.window.showWarningMessage("Colosseum: open a LaTeX file first.");
    return undefined;
  }
  return editor;
}

/** What a label prompt says: its title (the command) and what the label is for. */
export interface LabelPrompt {
  title: string;
  prompt: string;
}

/** The selection, else the label under the cursor, else the user's pick among the file's labels. */
export async function labelForEditor(editor: vscode.TextEditor, ask: LabelPrompt): Promise<string | undefined> {
  const document = editor.document;
  const selection = editor.selection;
  if (!selection.isEmpty && selection.isSingleLine) {
    const text = document.getText(selection).trim();
    if (/^[^\s{}\\]+$/.test(text)) {
      return text;
    }
  }
  const lines: string[] = [];
  for (let i = 0; i < document.lineCount; i++) {
    lines.push(document.lineAt(i).text);
  }
  const commands = [...DEFAULT_LABEL_COMMANDS, ...labelDefinitionCommands(), ...labelReferenceCommands()];
  const found = labelAt(lines, selection.active.line, selection.active.character, commands);
  if (found) {
    return found;
  }
  const labels = allLabels(lines);
  if (labels.length > 0) {
    return vscode.window.showQuickPick(labels, { title: ask.title, placeHolder: ask.prompt });
  }
  return vscode.window.showInputBox({ title: ask.title, prompt: ask.prompt });
}
