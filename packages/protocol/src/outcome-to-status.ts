import type { TerminalSessionStatusPayload } from "./runtime-event.js";
import type { TurnError, TurnOutcome, TurnOutcomeHandBack } from "./turn-outcome.js";
import type { TurnReport } from "./turn-report.js";
import { readingUntrusted, shownField } from "./unreadable-values.js";

/**
 * The terminal `session.status` payload that reports `outcome`:
 * `completed` → `{ status: "completed" }`, `aborted` → `{ status: "aborted" }`,
 * `failed` → `{ status: "failed", error }` with a copy of the outcome's
 * classified error (and its `budget`, when a limit was reached). The
 * outcome's `usage` and `timing`, and the messages it hands back
 * (`undeliveredMessages`, a new array of the same messages), are carried
 * over when present. Pure; never throws for a valid outcome, and throws a
 * `TypeError` naming what it got for anything else (`null`, an unknown
 * `kind`).
 */
export function outcomeToStatus(outcome: TurnOutcome): TerminalSessionStatusPayload {
  if (readingUntrusted(() => (outcome?.kind, false), true))
    throw new TypeError("outcomeToStatus: the outcome could not be read (a revoked proxy or a getter that throws)");
  switch (outcome?.kind) {
    case "completed":
      return { status: "completed", ...reportOf(outcome), ...handBackOf(outcome) };
    case "aborted":
      return { status: "aborted", ...reportOf(outcome), ...handBackOf(outcome) };
    case "failed":
      return { status: "failed", error: copyError(outcome.error), ...reportOf(outcome), ...handBackOf(outcome) };
    default: {
      const unreachable: never = outcome;
      throw new TypeError(
        `outcomeToStatus: expected a turn outcome of kind completed, aborted or failed, got ${shown(unreachable)}`,
      );
    }
  }
}

function copyError(error: TurnError): TurnError {
  const copy: TurnError = { code: error.code, message: error.message };
  if (error.budget) copy.budget = { ...error.budget };
  return copy;
}

/** The outcome's report fields that are present (absent ones stay absent, so `{ status }` compares equal). */
function reportOf(outcome: TurnReport): TurnReport {
  const report: TurnReport = {};
  if (outcome.usage !== undefined) report.usage = outcome.usage;
  if (outcome.timing !== undefined) report.timing = outcome.timing;
  if (outcome.subAgentCalls !== undefined) report.subAgentCalls = outcome.subAgentCalls;
  return report;
}

/** The messages the outcome hands back, in a new array; none: no field. */
function handBackOf(outcome: TurnOutcomeHandBack): TurnOutcomeHandBack {
  return outcome.undeliveredMessages === undefined ? {} : { undeliveredMessages: [...outcome.undeliveredMessages] };
}

/** An unexpected outcome in an error message: `null`, a type, or the `kind` it had. */
function shown(value: unknown): string {
  if (typeof value !== "object" || value === null) return value === null ? "null" : typeof value;
  return `kind ${shownField((value as { kind?: unknown }).kind)}`;
}
