// Unit tests of the label finder (plain node: `npm test`).
import * as assert from "assert";
import { test } from "node:test";

import { allLabels, enclosingLabel, labelAt, labelInArgumentAt } from "../labels";

const doc = [
  "\\section{Main results}\\label{sec:main}", // 0
  "\\begin{lemma}[Key]\\label{lem:key}", // 1
  "  For all $n$, $f(n) > 0$.", // 2
  "\\end{lemma}", // 3
  "\\begin{proof}", // 4
  "  By \\cref{lem:aux,thm:big} and", // 5
  "  \\begin{equation}\\label{eq:one} x = 1 \\end{equation}", // 6
  "\\end{proof}", // 7
  "\\begin{theorem}", // 8
  "  \\label{thm:main} % \\label{commented}", // 9
  "  Statement \\uses{lem:key}.", // 10
  "\\end{theorem}", // 11
  "\\begin{proof}[Proof of \\cref{thm:main}]", // 12
  "  Trivial.", // 13
  "\\end{proof}", // 14
];

test("argument of a reference macro, item under the cursor", () => {
  const line = doc[5];
  assert.strictEqual(labelInArgumentAt(line, line.indexOf("lem:aux") + 2), "lem:aux");
  assert.strictEqual(labelInArgumentAt(line, line.indexOf("thm:big") + 1), "thm:big");
  assert.strictEqual(labelInArgumentAt(line, line.indexOf("By")), undefined);
  assert.strictEqual(labelInArgumentAt("\\begin{lemma}", 9), undefined);
  assert.strictEqual(labelInArgumentAt("see \\lemref{x}", 12), "x");
  assert.strictEqual(labelInArgumentAt("see \\mine{x}", 10, ["mine"]), "x");
});

test("enclosing claim", () => {
  assert.strictEqual(enclosingLabel(doc, 2, 3), "lem:key");
  // Inside a proof: the claim right above, not the equation's label.
  assert.strictEqual(enclosingLabel(doc, 5, 2), "lem:key");
  assert.strictEqual(enclosingLabel(doc, 10, 2), "thm:main");
  // A proof that names its claim.
  assert.strictEqual(enclosingLabel(doc, 13, 2), "thm:main");
  assert.strictEqual(enclosingLabel(doc, 0, 5), "sec:main");
});

test("labelAt prefers the argument under the cursor", () => {
  assert.strictEqual(labelAt(doc, 10, doc[10].indexOf("lem:key")), "lem:key");
  assert.strictEqual(labelAt(doc, 10, 3), "thm:main");
  assert.strictEqual(labelAt(doc, 99, 0), undefined);
});

test("allLabels skips comments", () => {
  assert.deepStrictEqual(allLabels(doc), ["sec:main", "lem:key", "eq:one", "thm:main"]);
});

test("prose after a claim or proof belongs to no claim", () => {
  const prose = ["\\begin{lemma}\\label{a}", "x", "\\end{lemma}", "Some prose.", "\\begin{proof}", "y", "\\end{proof}", "More."];
  assert.strictEqual(enclosingLabel(prose, 3, 2), undefined);
  assert.strictEqual(enclosingLabel(prose, 5, 0), "a");
  assert.strictEqual(enclosingLabel(prose, 7, 2), undefined);
});
