import { ErrorCode, type SessionStatusFailedPayload, type SessionStatusPayload } from "@turnkit/protocol";
import type { DurableTurnError } from "../errors.js";

/**
 * The terminal status of a turn whose execution diverged from its log (the
 * log refused its events with `log_conflict`): `failed`, with code
 * `internal` (a defect of the durable layer, not of the turn) and a message
 * naming the conflict (the seq and both events). What the execution's own
 * ending reported besides its status (usage, timing, steering handed back)
 * is kept, so no accepted steering message is lost.
 */
export function divergedEnding(ending: SessionStatusPayload, conflict: DurableTurnError): SessionStatusFailedPayload {
  const { status: _status, error: _error, ...report } = ending;
  return {
    ...report,
    status: "failed",
    error: {
      code: ErrorCode.Internal,
      message: `the turn's event log refused this execution's events (${conflict.code}): ${conflict.message}`,
    },
  };
}
