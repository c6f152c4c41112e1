// The server's window/showMessage, shown as vscode-languageclient would, except the message that
// Lean (lake) is not installed: the server says it at every start, and an author who writes no
// Lean needs to read it once per install, not once per session. The extension's globalState
// remembers that it was shown. Kept free of the vscode module so that it is unit-tested with node.

/** The part of VS Code's Memento (ExtensionContext.globalState) used here. */
export interface Remembered {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

export const LEAN_NOT_FOUND_SHOWN = "colosseum.leanNotFoundShown";

/** The server's Lean-not-found messages (colosseum/lean/project.py lake_status): lake not on PATH,
 * or installed in ~/.elan/bin which is not on PATH. */
export function isLeanNotFound(message: string): boolean {
  return /^Colosseum: Lean: `lake` is (not on PATH|installed at )/.test(message);
}

/** Whether to show `message` as a toast: always, except a Lean-not-found message already shown
 * once in this install (then it goes to the output only). Remembers showing it. Without a
 * memento (no extension context) everything is shown. */
export function shouldShowMessage(message: string, remembered: Remembered | undefined): boolean {
  if (!isLeanNotFound(message) || remembered === undefined) {
    return true;
  }
  if (remembered.get<boolean>(LEAN_NOT_FOUND_SHOWN) === true) {
    return false;
  }
  void remembered.update(LEAN_NOT_FOUND_SHOWN, true);
  return true;
}
