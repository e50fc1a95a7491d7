import type { AgentMessage } from "@turnkit/agent-loop";
import { type ProtocolAnyMessage, type TurnOutcome, outcomeToStatus } from "@turnkit/protocol";
import { deliverHistory } from "./history-delivery.js";
import { decideOutcome } from "./turn-outcome.js";
import { recordMetric } from "./turn-metrics.js";
import type { RunningTurn } from "./turn-state.js";
import { reportOutcome } from "./turn-watching.js";

/**
 * Step 8 of a turn: delivers history not yet delivered, flushes messages
 * the bridge still holds, decides the outcome (handing back the host's
 * messages that were never delivered), settles the turn (from here on no
 * host code of it runs and nothing more is emitted), emits the one
 * terminal `session.status` and drains the event queue. Never rejects. A
 * writer that never returns holds up the queue; once the caller aborts, it
 * is given up on when the turn's shared abort grace is over and still
 * handed the terminal status. With `hookTimeoutMs`, the writer's pending
 * events are waited for before the outcome is decided, and a call of the
 * writer that takes longer fails the turn (`internal`) and is given up on
 * the same way.
 */
export async function finishTurn(turn: RunningTurn): Promise<TurnOutcome> {
  try {
    await deliverHistory(turn);
  } catch {
    // Recorded as the turn's failure by deliverHistory.
  }
  turn.bridge.flush();
  // With hookTimeoutMs the writer is bounded like any host code: one that has not answered in time fails the turn,
  // so its events are waited for before the outcome is decided.
  if (turn.input.hookTimeoutMs !== undefined) await turn.events.drain(turn.input.signal, turn.abortGrace.remainingMs());
  const outcome = withHandBack(decideOutcome(turn), takeUndelivered(turn));
  // A provider failure ends the turn without failTurn: the logger hears of it here.
  if (outcome.kind === "failed" && !turn.failure) {
    turn.defaults.logger.error(outcome.error.message, {
      code: outcome.error.code,
      sessionId: turn.input.sessionId,
      turnId: turn.input.turnId,
    });
  }
  turn.settled = true;
  const writerGraceMs = turn.abortGrace.remainingMs();
  turn.abortGrace.end();
  const reported = reportOutcome(turn, outcome);
  turn.events.push("session.status", outcomeToStatus(reported));
  if ((await turn.events.drain(turn.input.signal, writerGraceMs)) === "abandoned") turn.events.abandon();
  // A turn cancelled before it started never ran: it has no duration.
  if (turn.defaults.metrics && !turn.cancelledBeforeStart) {
    recordMetric(turn, "turn.duration_ms", turn.defaults.clock.now() - turn.startedAt, { outcome: outcome.kind });
  }
  return reported;
}

/** The host's messages the turn never delivered, in hand-over order; the Agent's queues are emptied. */
function takeUndelivered(turn: RunningTurn): AgentMessage[] {
  turn.agent.clearAllQueues();
  if (!turn.undelivered) return [];
  const undelivered = [...turn.undelivered];
  turn.undelivered.clear();
  return undelivered;
}

function withHandBack(outcome: TurnOutcome, undelivered: AgentMessage[]): TurnOutcome {
  return undelivered.length === 0 ? outcome : { ...outcome, undeliveredMessages: undelivered as ProtocolAnyMessage[] };
}
