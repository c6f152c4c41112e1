// Finding "the label under the cursor" in LaTeX source.
//
// Pure functions (no `vscode` import) so that they can be tested with plain node.

/** Macros whose brace argument is a label (definition or reference). */
export const DEFAULT_LABEL_COMMANDS: readonly string[] = [
  "label",
  "ref",
  "cref",
  "Cref",
  "crefrange",
  "Crefrange",
  "cpageref",
  "Cpageref",
  "labelcref",
  "eqref",
  "autoref",
  "Autoref",
  "pageref",
  "nameref",
  "Nameref",
  "vref",
  "Vref",
  "vpageref",
  "zref",
  "zcref",
  "uses",
  "proves",
];

/** Environments that never carry a proof obligation (math, lists, floats, ...). */
const NON_CLAIM_ENVIRONMENTS = new Set<string>([
  "equation",
  "equation*",
  "align",
  "align*",
  "alignat",
  "alignat*",
  "gather",
  "gather*",
  "multline",
  "multline*",
  "flalign",
  "flalign*",
  "eqnarray",
  "eqnarray*",
  "split",
  "aligned",
  "gathered",
  "cases",
  "array",
  "matrix",
  "pmatrix",
  "bmatrix",
  "tabular",
  "itemize",
  "enumerate",
  "description",
  "figure",
  "figure*",
  "table",
  "table*",
  "center",
  "tikzpicture",
  "tikzcd",
  "document",
  "abstract",
  "minipage",
  "quote",
  "quotation",
  "verbatim",
]);

const SECTIONING = /\\(part|chapter|section|subsection|subsubsection|paragraph)\*?\s*(\[[^\]]*\])?\s*\{/;
const LABEL_DEF = /\\label\s*(?:\[[^\]]*\])?\s*\{([^{}]+)\}/;
const ENVIRONMENT = /\\(begin|end)\s*\{([^{}]+)\}/g;
const ARG_COMMAND = /\\([A-Za-z@]+)\*?\s*(?:\[[^\]]*\]\s*)*\{([^{}]*)\}/g;

/**
 * The label whose text contains the cursor, when the cursor is inside the brace argument of a
 * label or reference macro (`\label{..}`, `\cref{a,b}`, `\uses{..}`, ...). For a
 * comma-separated list, the item under the cursor.
 */
export function labelInArgumentAt(
  line: string,
  character: number,
  labelCommands: readonly string[] = DEFAULT_LABEL_COMMANDS,
): string | undefined {
  const commands = new Set(labelCommands);
  ARG_COMMAND.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = ARG_COMMAND.exec(line)) !== null) {
    const name = match[1];
    const arg = match[2];
    const argStart = match.index + match[0].length - 1 - arg.length;
    const argEnd = argStart + arg.length;
    if (character < argStart || character > argEnd) {
      continue;
    }
    if (!commands.has(name) && !/ref$/i.test(name)) {
      return undefined;
    }
    let offset = argStart;
    for (const item of arg.split(",")) {
      if (character >= offset && character <= offset + item.length) {
        const label = item.trim();
        return label.length > 0 ? label : undefined;
      }
      offset += item.length + 1;
    }
  }
  return undefined;
}

/**
 * The label of the claim (theorem-like environment) or section that encloses the cursor:
 * walks up from the cursor to the nearest `\begin{env}` that is not a math/list environment
 * (a `proof` is skipped, since the claim it proves stands right above it, unless its optional
 * argument references the claim), or to the nearest sectioning command, and returns the first
 * `\label{..}` that follows it.
 */
export function enclosingLabel(
  lines: readonly string[],
  lineNumber: number,
  character: number,
  maxLines = 500,
): string | undefined {
  const stop = Math.max(0, lineNumber - maxLines);
  let inProof = false;
  for (let l = lineNumber; l >= stop; l--) {
    // On the cursor's line only what starts at or before the cursor counts.
    const limit = l === lineNumber ? character : Number.POSITIVE_INFINITY;
    const uncommented = stripComment(lines[l]);
    const events: { kind: string; env: string; end: number }[] = [];
    ENVIRONMENT.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = ENVIRONMENT.exec(uncommented)) !== null) {
      if (m.index <= limit) {
        events.push({ kind: m[1], env: m[2].trim(), end: m.index + m[0].length });
      }
    }
    for (let i = events.length - 1; i >= 0; i--) {
      const { kind, env, end } = events[i];
      if (NON_CLAIM_ENVIRONMENTS.has(env)) {
        continue;
      }
      const isProof = env.startsWith("proof");
      if (kind === "end") {
        if (isProof || !inProof) {
          // The cursor is after a claim or a proof, not inside one.
          return undefined;
        }
        continue; // the claim that the proof we are in proves
      }
      if (isProof) {
        const rest = stripComment(lines[l].slice(end));
        const ref = /^\s*\[[^\]]*\\[A-Za-z]*ref\*?\s*\{([^{},]+)[,}]/.exec(rest);
        if (ref) {
          return ref[1].trim();
        }
        inProof = true;
        continue;
      }
      return firstLabelFrom(lines, l, end, 10);
    }
    const section = SECTIONING.exec(uncommented);
    if (section && section.index <= limit) {
      return inProof ? undefined : firstLabelFrom(lines, l, section.index + section[0].length, 3);
    }
  }
  return undefined;
}

/** Every `\label{..}` defined in the text, in order, without duplicates. */
export function allLabels(lines: readonly string[]): string[] {
  const seen = new Set<string>();
  const re = new RegExp(LABEL_DEF.source, "g");
  for (const line of lines) {
    const text = stripComment(line);
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      seen.add(m[1].trim());
    }
  }
  return [...seen];
}

/** The label under the cursor: argument of a label/reference macro, else the enclosing claim's. */
export function labelAt(
  lines: readonly string[],
  lineNumber: number,
  character: number,
  labelCommands: readonly string[] = DEFAULT_LABEL_COMMANDS,
): string | undefined {
  if (lineNumber < 0 || lineNumber >= lines.length) {
    return undefined;
  }
  return (
    labelInArgumentAt(lines[lineNumber], character, labelCommands) ??
    enclosingLabel(lines, lineNumber, character)
  );
}

function firstLabelFrom(
  lines: readonly string[],
  lineNumber: number,
  character: number,
  window: number,
): string | undefined {
  for (let l = lineNumber; l < Math.min(lines.length, lineNumber + window); l++) {
    const text = stripComment(l === lineNumber ? lines[l].slice(character) : lines[l]);
    const label = LABEL_DEF.exec(text);
    const boundary = /\\(begin|end)\s*\{/.exec(text);
    if (label && (!boundary || label.index < boundary.index)) {
      return label[1].trim();
    }
    if (boundary) {
      // A nested environment or the end of the claim: its labels are not the claim's.
      return undefined;
    }
  }
  return undefined;
}

function stripComment(line: string): string {
  const m = /(^|[^\\])%/.exec(line);
  return m ? line.slice(0, m.index + m[1].length) : line;
}
