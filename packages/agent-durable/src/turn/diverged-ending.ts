import { ErrorCode, type SessionStatusFailedPayload, type SessionStatusPayload } from "@turnkit/protocol";
import type { DurableTurnError } from "../errors.js";

/**
 * The terminal status of a turn whose execution diverged from its log (the
 * log refused its events with `log_conflict`): `failed`, with code
 * `internal` (a defect of the durable layer, not of the turn) and a message
 * naming the conflict (the seq and both events), and the execution's own
 * error when it failed too (a `buildTurn` that threw on a recovery, say).
 * What the execution's own ending reported besides its status (usage,
 * timing, steering handed back) is kept, so no accepted steering message is
 * lost.
 */
export function divergedEnding(ending: SessionStatusPayload, conflict: DurableTurnError): SessionStatusFailedPayload {
  const { status, error, ...report } = ending;
  const own = status === "failed" && error ? `; this execution failed as well (${error.code}): ${error.message}` : "";
  return {
    ...report,
    status: "failed",
    error: {
      code: ErrorCode.Internal,
      message: `the turn's event log refused this execution's events (${conflict.code}): ${conflict.message}${own}`,
    },
  };
}
