import type { ProtocolAnyMessage } from "./messages.js";
import type { ErrorCode } from "./status-codes.js";
import type { TurnReport } from "./turn-report.js";

/**
 * Which limit of the turn was reached (code `budget_exceeded`): the limit's
 * name as the host set it on `RunTurnInput.budget`, its value, and what the
 * turn had measured when it stopped (at least the limit).
 */
export interface BudgetExceededDetail {
  /** `maxSteps` (model requests of the loop), `maxOutputTokens` or `maxCost`. */
  limit: "maxSteps" | "maxOutputTokens" | "maxCost";
  /** The limit the host set. */
  max: number;
  /** The turn's measured steps, output tokens or cost when it stopped. */
  measured: number;
}

/** A classified error: a stable code plus a human-readable message. */
export interface TurnError {
  /** Stable code a host can branch on. */
  code: ErrorCode;
  /** Human-readable description; never contains credentials. */
  message: string;
  /** Present exactly when `code` is `budget_exceeded`: the limit and the measured value. */
  budget?: BudgetExceededDetail;
}

/**
 * What every {@link TurnOutcome} may carry besides its kind, and the
 * terminal `session.status` with it (the same messages, so a host that
 * reads only events gets them too); never a `running` status.
 */
export interface TurnOutcomeHandBack {
  /**
   * Messages the host handed to the turn (steering its poll returned,
   * messages an `onStepEndHook` queued) that were neither sent into the
   * transcript nor delivered to its history hooks, in hand-over order: the
   * turn stopped, failed or was aborted before it could take them. They
   * belong to the host again (run them in a later turn, or drop them on
   * purpose); the turn never loses them silently. Absent when there are
   * none.
   */
  undeliveredMessages?: ProtocolAnyMessage[];
}

/**
 * The single result of one `runTurn()`. Exactly one is produced per turn;
 * `runTurn` never rejects.
 *
 * - `completed`: the agent reached a natural end (or a host-requested stop).
 * - `aborted`: the caller's signal fired.
 * - `failed`: the turn could not finish; `error.code` says why.
 *
 * Any kind may hand messages back to the host (`undeliveredMessages`), and
 * every kind reports the turn's usage and timing (`TurnReport`).
 */
export type TurnOutcome = (
  | { kind: "completed" }
  | { kind: "aborted" }
  | { kind: "failed"; message: string; error: TurnError }
) &
  TurnOutcomeHandBack &
  TurnReport;

/** The `kind` of a {@link TurnOutcome}. */
export type TurnOutcomeKind = TurnOutcome["kind"];
