import type { TerminalSessionStatusPayload } from "./runtime-event.js";
import type { TurnOutcome } from "./turn-outcome.js";

/**
 * The terminal `session.status` payload that reports `outcome`:
 * `completed` → `{ status: "completed" }`, `aborted` → `{ status: "aborted" }`,
 * `failed` → `{ status: "failed", error }` with a copy of the outcome's
 * classified error. Pure; never throws for a valid outcome.
 */
export function outcomeToStatus(outcome: TurnOutcome): TerminalSessionStatusPayload {
  switch (outcome.kind) {
    case "completed":
      return { status: "completed" };
    case "aborted":
      return { status: "aborted" };
    case "failed":
      return { status: "failed", error: { code: outcome.error.code, message: outcome.error.message } };
    default: {
      const unreachable: never = outcome;
      throw new TypeError(`Unknown turn outcome kind: ${JSON.stringify((unreachable as { kind?: unknown }).kind)}`);
    }
  }
}
