import type { ErrorCode } from "./status-codes.js";

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
