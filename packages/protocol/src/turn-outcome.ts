import type { ProtocolAnyMessage } from "./messages.js";
import type { TurnError } from "./turn-error.js";
import type { TurnReport } from "./turn-report.js";

export type { BudgetExceededDetail, TurnError } from "./turn-error.js";

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
