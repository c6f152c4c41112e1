// "Review and insert…": the server's draft offers (code actions "Insert draft proof of X …")
// become actions that open the proof in a diff and insert it only when the author confirms.
// Nothing a model wrote is applied from the light bulb at once. The logic is in drafts.ts.

import * as vscode from "vscode";

import { errorText } from "./errors";
import { isDraftOffer, offerLocation, proposedText, reviewAndInsert, reviewTitle } from "./drafts";

export const REVIEW_DRAFT_COMMAND = "colosseum-latex.reviewAndInsertDraft";
const PREVIEW_SCHEME = "colosseum-draft";

/** The proposed texts the diff's right side shows, by preview path. */
const previews = new Map<string, string>();
let previewProvider: vscode.Disposable | undefined;

/** The code actions as the client shows them: each draft offer turned into "Review and insert…"
 * (no edit of its own: its command previews and asks), the others unchanged. */
export function reviewDraftActions(
  actions: (vscode.Command | vscode.CodeAction)[] | null | undefined,
): (vscode.Command | vscode.CodeAction)[] | null | undefined {
  if (!actions) {
    return actions;
  }
  return actions.map((action) => {
    if (!(action instanceof vscode.CodeAction) || !isDraftOffer(action)) {
      return action;
    }
    const review = new vscode.CodeAction(reviewTitle(action.title), action.kind);
    review.command = { title: review.title, command: REVIEW_DRAFT_COMMAND, arguments: [action] };
    return review;
  });
}

/** The command: with an offer (from the light bulb) review that one; with a place (a solve's
 * `offer_at`) or without, the offers on that claim or the one under the cursor, picked from a
 * list when there are several. */
export function registerDraftReview(): vscode.Disposable {
  return vscode.commands.registerCommand(REVIEW_DRAFT_COMMAND, async (offer?: unknown) => {
    try {
      const chosen = offer instanceof vscode.CodeAction ? offer : await pickOffer(offerLocation(offer));
      if (!chosen) {
        return;
      }
      const outcome = await reviewAndInsert(chosen, {
        preview: showDiff,
        confirm: async (o) =>
          (await vscode.window.showInformationMessage(
            `${o.title}?`,
            {
              modal: true,
              detail:
                "The proof is inserted with `% colosseum: draft <run>` on its first line: the claim stays a draft, " +
                "and what depends on it conditional, until you accept it.",
            },
            "Insert",
          )) === "Insert",
        apply: async (o) => (o.edit ? vscode.workspace.applyEdit(o.edit) : false),
        inserted: async (o) => {
          if (o.command) {
            await vscode.commands.executeCommand(o.command.command, ...(o.command.arguments ?? []));
          }
        },
      });
      if (outcome === "declined") {
        vscode.window.setStatusBarMessage("Colosseum: nothing inserted", 5000);
      } else if (outcome === "not-applied") {
        void vscode.window.showWarningMessage("Colosseum: the draft was not inserted (the document changed?)");
      }
    } catch (err) {
      void vscode.window.showErrorMessage(`Colosseum: reviewing the draft failed: ${errorText(err)}`);
    }
  });
}

/** A place from offerLocation; without one, the cursor of the active editor. */
async function pickOffer(at?: { uri: string; line: number; character: number }): Promise<vscode.CodeAction | undefined> {
  const editor = vscode.window.activeTextEditor;
  const uri = at ? vscode.Uri.parse(at.uri) : editor?.document.uri;
  const position = at ? new vscode.Position(at.line, at.character) : editor?.selection.active;
  if (!uri || !position) {
    return undefined;
  }
  const actions =
    (await vscode.commands.executeCommand<(vscode.Command | vscode.CodeAction)[]>(
      "vscode.executeCodeActionProvider",
      uri,
      new vscode.Range(position, position),
    )) ?? [];
  // through the middleware: each offer is a review action carrying the server's action
  const offers = actions
    .map((a) => (a instanceof vscode.CodeAction && a.command?.command === REVIEW_DRAFT_COMMAND ? a.command.arguments?.[0] : a))
    .filter((a): a is vscode.CodeAction => a instanceof vscode.CodeAction && isDraftOffer(a));
  if (offers.length === 0) {
    void vscode.window.showInformationMessage(
      "Colosseum: no draft proof is offered here; put the cursor on a claim that a solve, research run or retry offered one for.",
    );
    return undefined;
  }
  if (offers.length === 1) {
    return offers[0];
  }
  const picked = await vscode.window.showQuickPick(
    offers.map((o) => ({ label: reviewTitle(o.title), offer: o })),
    { title: "Colosseum: review which draft?" },
  );
  return picked?.offer;
}

/** A diff of each document the offer changes: as it is, and with the draft in it. */
async function showDiff(offer: vscode.CodeAction): Promise<void> {
  if (!offer.edit) {
    return;
  }
  previewProvider ??= vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, {
    provideTextDocumentContent: (uri) => previews.get(uri.path) ?? "",
  });
  for (const [uri, edits] of offer.edit.entries()) {
    let original = "";
    let left: vscode.Uri;
    try {
      original = (await vscode.workspace.openTextDocument(uri)).getText();
      left = uri;
    } catch {
      left = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/empty${uri.path}` }); // a new file
    }
    const right = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/draft${uri.path}` });
    previews.set(right.path, proposedText(original, edits));
    await vscode.commands.executeCommand("vscode.diff", left, right, `${reviewTitle(offer.title)}`, {
      preview: true,
    });
  }
}
