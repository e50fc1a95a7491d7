import type { TerminalSessionStatusPayload, TurnOutcome } from "@turnkit/protocol";

/**
 * The outcome a terminal `session.status` reports: the same fields, as
 * `outcomeToStatus` made them (its inverse), so an outcome read back from a
 * log equals the one the turn stored.
 */
export function outcomeOfStatus(payload: TerminalSessionStatusPayload): TurnOutcome {
  if (payload.status === "failed") {
    const { status: _failed, error, ...rest } = payload;
    return { kind: "failed", message: error.message, error, ...rest };
  }
  const { status, error: _none, ...rest } = payload;
  return { kind: status, ...rest };
}
