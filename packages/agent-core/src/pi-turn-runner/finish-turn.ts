import { ABORT_GRACE_MS } from "@turnkit/agent-loop";
import type { TurnOutcome } from "@turnkit/protocol";
import { deliverHistory } from "./history-delivery.js";
import { decideOutcome } from "./turn-outcome.js";
import { recordMetric } from "./turn-metrics.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * Step 8 of a turn: delivers history not yet delivered, flushes messages
 * the bridge still holds, decides the outcome, emits the one terminal
 * `session.status` and drains the event queue. Never rejects. A writer that
 * never returns holds up the queue; once the caller aborts, it is given up
 * on after the grace period and still handed the terminal status.
 */
export async function finishTurn(turn: RunningTurn): Promise<TurnOutcome> {
  try {
    await deliverHistory(turn);
  } catch {
    // Recorded as the turn's failure by deliverHistory.
  }
  turn.bridge.flush();
  const outcome = decideOutcome(turn);
  turn.events.push("session.status", outcome.kind === "failed" ? { status: "failed", error: outcome.error } : { status: outcome.kind });
  if ((await turn.events.drain(turn.input.signal, ABORT_GRACE_MS)) === "abandoned") turn.events.abandon();
  // A turn cancelled before it started never ran: it has no duration.
  if (!turn.cancelledBeforeStart) {
    recordMetric(turn, "turn.duration_ms", turn.defaults.clock.now() - turn.startedAt, { outcome: outcome.kind });
  }
  return outcome;
}
