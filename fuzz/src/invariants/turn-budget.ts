/**
 * Invariant 22: a turn keeps to its step limit. With `budget.maxSteps` N,
 * the agent loop sends at most N model requests (its `main` family in the
 * outcome's timing; retries of one request are one request), and a turn
 * that stopped at the limit says so: a failure with code
 * `budget_exceeded` naming `maxSteps`.
 */
import type { TurnOutcome } from "@turnkit/protocol";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "22 a turn keeps to its step limit";

/** Throws when the turn sent more main requests than `maxSteps`, or named another limit when it failed on this one. */
export function checkStepLimit(outcome: TurnOutcome, maxSteps: number | undefined): void {
  if (maxSteps === undefined) return;
  const sent = outcome.timing?.requests.filter((request) => request.family === "main").length ?? 0;
  if (sent > maxSteps) throw new InvariantViolation(INVARIANT, `${sent} model requests with maxSteps ${maxSteps}`);
  const budget = outcome.kind === "failed" ? outcome.error.budget : undefined;
  if (budget?.limit === "maxSteps" && budget.max !== maxSteps)
    throw new InvariantViolation(INVARIANT, `the failure names maxSteps ${budget.max}, the turn's is ${maxSteps}`);
}
