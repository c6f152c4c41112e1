// The contract with the Colosseum language server: its workspace/executeCommand ids, the payload
// of its status notification and the shape of the settings it reads. No `vscode` import.

/** Server-side command ids (workspace/executeCommand). */
export const SERVER_COMMANDS = {
  solveObligation: "colosseum.solveObligation",
  globalReview: "colosseum.globalReview",
  showDependencyGraph: "colosseum.showDependencyGraph",
  reindex: "colosseum.reindex",
  reviewClaim: "colosseum.reviewClaim",
  exploreStrategies: "colosseum.exploreStrategies",
  checkLean: "colosseum.checkLean",
} as const;

/** The server's notification of its state and open-obligation count. */
export const STATUS_NOTIFICATION = "colosseum/status";

/** Payload of the server's `colosseum/status` notification. */
export interface StatusParams {
  obligations?: number;
  state?: "indexing" | "ready" | string;
  message?: string;
}

/** Shape of the initializationOptions and of `settings.colosseum` in didChangeConfiguration. */
export interface ServerSettings {
  model?: string;
  budget?: { max_calls?: number; max_usd?: number };
  labelDefinitionCommands?: string[];
  labelReferenceCommands?: string[];
  reviewOnSave?: boolean;
  /** Diagnostic codes the server does not send, e.g. ["colosseum/undefined-reference"]. */
  ignoredDiagnostics?: string[];
  startDelaySeconds?: number;
  /** The workspace is trusted (VS Code's workspace trust): only then does the server run the
   * project's code (Lean's lake serve elaborates lakefile.lean). Left out when not trusted. */
  trusted?: boolean;
}
