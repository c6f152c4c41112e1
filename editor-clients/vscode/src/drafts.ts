// A model's proof reaches the paper only when the author has read it and said yes. The server
// offers it as a code action on the claim, "Insert draft proof of X (run R: <verdict>, N
// critiques survive)"; the client turns that action into "Review and insert…", which shows the
// proof in a diff and applies the edit only on confirmation. Kept free of the vscode module so
// that it is unit-tested with plain node; draftReview.ts is the glue.

/** How the server's draft offers are titled. */
export const OFFER_PREFIX = "Insert draft ";
/** How the client titles them: nothing is inserted before the author has seen it. */
export const REVIEW_PREFIX = "Review and insert draft ";
/** The draft marker the server puts on the first line of each inserted proof. */
export const DRAFT_MARKER = "% colosseum: draft";

export interface Position {
  line: number;
  character: number;
}

export interface TextChange {
  range: { start: Position; end: Position };
  newText: string;
}

/** Whether a code action (by its title, and carrying an edit) is one of the server's draft offers. */
export function isDraftOffer(action: { title?: unknown; edit?: unknown }): boolean {
  return typeof action.title === "string" && action.title.startsWith(OFFER_PREFIX) && action.edit !== undefined;
}

/** "Insert draft proof of X (…)" -> "Review and insert draft proof of X (…)". */
export function reviewTitle(title: string): string {
  return title.startsWith(OFFER_PREFIX) ? REVIEW_PREFIX + title.slice(OFFER_PREFIX.length) : title;
}

function offsetAt(text: string, pos: Position): number {
  let offset = 0;
  for (let line = 0; line < pos.line; line++) {
    const next = text.indexOf("\n", offset);
    if (next < 0) {
      return text.length;
    }
    offset = next + 1;
  }
  return Math.min(offset + pos.character, text.length);
}

/** `text` with `changes` applied (as one edit: positions refer to the original text). */
export function proposedText(text: string, changes: readonly TextChange[]): string {
  const ordered = [...changes].sort(
    (a, b) => b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character,
  );
  let out = text;
  for (const change of ordered) {
    out = out.slice(0, offsetAt(out, change.range.start)) + change.newText + out.slice(offsetAt(out, change.range.end));
  }
  return out;
}

/** Where a command's result says a draft was offered (`offered` and `offer_at`: the claim's uri
 * and position), else undefined. */
export function offerLocation(result: unknown): { uri: string; line: number; character: number } | undefined {
  if (!result || typeof result !== "object") {
    return undefined;
  }
  const record = result as Record<string, unknown>;
  const at = record.offer_at as Record<string, unknown> | null | undefined;
  if (record.offered !== true || !at || typeof at.uri !== "string" || typeof at.line !== "number") {
    return undefined;
  }
  return { uri: at.uri, line: at.line, character: typeof at.character === "number" ? at.character : 0 };
}

/** What the author is shown and asked: the ways of the editor, given to `reviewAndInsert`. */
export interface DraftReviewUi<Offer> {
  /** Show the draft (a diff of each document it changes). */
  preview(offer: Offer): Promise<void>;
  /** Ask; true only on an explicit yes. */
  confirm(offer: Offer): Promise<boolean>;
  /** Apply the offer's edit; true when the editor applied it. */
  apply(offer: Offer): Promise<boolean>;
  /** Tell the server it was inserted (the offer's own command). */
  inserted(offer: Offer): Promise<void>;
}

export type ReviewOutcome = "inserted" | "declined" | "not-applied";

/** Preview, ask, and only on a yes apply the edit and tell the server. */
export async function reviewAndInsert<Offer>(offer: Offer, ui: DraftReviewUi<Offer>): Promise<ReviewOutcome> {
  await ui.preview(offer);
  if (!(await ui.confirm(offer))) {
    return "declined";
  }
  if (!(await ui.apply(offer))) {
    return "not-applied";
  }
  await ui.inserted(offer);
  return "inserted";
}
