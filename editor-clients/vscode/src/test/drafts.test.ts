// Unit tests of "Review and insert…" (plain node: `npm test`): a draft offer is recognised and
// retitled, its diff shows the document with the proof in it, and the edit is applied only after
// the author confirms.
import * as assert from "assert";
import { test } from "node:test";

import {
  DRAFT_MARKER,
  DraftReviewUi,
  isDraftOffer,
  offerLocation,
  proposedText,
  reviewAndInsert,
  reviewTitle,
} from "../drafts";

const TITLE = "Insert draft proof of lem:a (run 20261204-1-lem_a: refuted, 2 critiques survive)";

test("the server's draft offers are recognised and shown as review actions", () => {
  assert.ok(isDraftOffer({ title: TITLE, edit: {} }));
  assert.ok(!isDraftOffer({ title: TITLE })); // no edit: nothing to review
  assert.ok(!isDraftOffer({ title: "Add `lem:a` to the catalog", edit: {} }));
  assert.strictEqual(
    reviewTitle(TITLE),
    "Review and insert draft proof of lem:a (run 20261204-1-lem_a: refuted, 2 critiques survive)",
  );
});

test("the preview is the document with the draft inserted where the edit says", () => {
  const text = "\\begin{lemma}\\label{lem:a}\n  Easy.\n\\end{lemma}\nAfter.\n";
  const proof = `\n\\begin{proof} ${DRAFT_MARKER} 20261204-1-lem_a\nBy counting.\n\\end{proof}\n`;
  const at = { line: 2, character: "\\end{lemma}".length };
  const shown = proposedText(text, [{ range: { start: at, end: at }, newText: proof }]);
  assert.strictEqual(
    shown,
    "\\begin{lemma}\\label{lem:a}\n  Easy.\n\\end{lemma}\n\\begin{proof} % colosseum: draft 20261204-1-lem_a\n" +
      "By counting.\n\\end{proof}\n\nAfter.\n",
  );
  // a replacement (an empty proof) and several edits at once, positions in the original text
  const two = proposedText("ab\ncd\n", [
    { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 2 } }, newText: "XY" },
    { range: { start: { line: 0, character: 1 }, end: { line: 0, character: 1 } }, newText: "-" },
  ]);
  assert.strictEqual(two, "a-b\nXY\n");
});

function recordingUi(answer: boolean, applied = true): { ui: DraftReviewUi<string>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    ui: {
      preview: async (o) => void calls.push(`preview ${o}`),
      confirm: async (o) => {
        calls.push(`confirm ${o}`);
        return answer;
      },
      apply: async (o) => {
        calls.push(`apply ${o}`);
        return applied;
      },
      inserted: async (o) => void calls.push(`inserted ${o}`),
    },
  };
}

test("declined: the draft is shown and nothing is applied", async () => {
  const { ui, calls } = recordingUi(false);
  assert.strictEqual(await reviewAndInsert("offer", ui), "declined");
  assert.deepStrictEqual(calls, ["preview offer", "confirm offer"]);
});

test("confirmed: shown first, then applied, then the server told", async () => {
  const { ui, calls } = recordingUi(true);
  assert.strictEqual(await reviewAndInsert("offer", ui), "inserted");
  assert.deepStrictEqual(calls, ["preview offer", "confirm offer", "apply offer", "inserted offer"]);
});

test("an edit the editor refused is not reported to the server as inserted", async () => {
  const { ui, calls } = recordingUi(true, false);
  assert.strictEqual(await reviewAndInsert("offer", ui), "not-applied");
  assert.ok(!calls.includes("inserted offer"));
});

test("a solve's result says where its draft is offered", () => {
  const at = { uri: "file:///p/a.tex", line: 9, character: 0 };
  assert.deepStrictEqual(offerLocation({ status: "done", offered: true, offer_at: at }), at);
  assert.strictEqual(offerLocation({ status: "done", offered: false, offer_at: null }), undefined);
  assert.strictEqual(offerLocation({ status: "cancelled" }), undefined);
  assert.strictEqual(offerLocation("text"), undefined);
});
