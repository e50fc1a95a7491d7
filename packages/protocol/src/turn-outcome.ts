import type { ErrorCode } from "./status-codes.js";

/** A classified error: a stable code plus a human-readable message. */
export interface TurnError {
  /** Stable code a host can branch on. */
  code: ErrorCode;
  /** Human-readable description; never contains credentials. */
  message: string;
}

/**
 * The single result of one `runTurn()` (SPEC T3). Exactly one is produced per
 * turn; `runTurn` never rejects.
 *
 * - `completed`: the agent reached a natural end (or a host-requested stop).
 * - `aborted`: the caller's signal fired.
 * - `failed`: the turn could not finish; `error.code` says why.
 */
export type TurnOutcome =
  | { kind: "completed" }
  | { kind: "aborted" }
  | { kind: "failed"; message: string; error: TurnError };

/** The `kind` of a {@link TurnOutcome}. */
export type TurnOutcomeKind = TurnOutcome["kind"];
