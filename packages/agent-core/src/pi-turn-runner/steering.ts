import type { AgentMessage } from "@turnkit/agent-loop";
import { createUserMessage } from "../messages/turn-messages.js";
import { settleHostCallback } from "./hook-settling.js";
import type { SteeringBoundary, TurnInputMessage } from "./run-turn-input.js";
import type { RunningTurn } from "./turn-state.js";

/** How many times the runner polls again after `tryBeginClose` refused without new work. */
export const MAX_CLOSE_ATTEMPTS = 64;

/**
 * Polls the host's `getSteeringMessages` once and queues what arrived on the
 * Agent, in arrival order; messages sharing a batch id go in together (by
 * `steerBatch`). Returns how many messages arrived (0 without a poll).
 */
export async function pollSteering(turn: RunningTurn, boundary: SteeringBoundary): Promise<number> {
  const poll = turn.input.getSteeringMessages;
  if (!poll) return 0;
  const received: TurnInputMessage[] = (await settleHostCallback(turn, poll({ boundary }), [])) ?? [];
  // Groups in arrival order (a batch sits where its first message arrived), so a message
  // without a batch id is never moved ahead of a batch that came before it.
  const groups: { batched: boolean; messages: AgentMessage[] }[] = [];
  const batches = new Map<string, AgentMessage[]>();
  for (const item of received) {
    const message = createUserMessage(item.text, { images: item.images, batchId: item.batchId });
    const batch = item.batchId === undefined ? undefined : batches.get(item.batchId);
    if (batch) {
      batch.push(message);
      continue;
    }
    const group = { batched: item.batchId !== undefined, messages: [message] };
    if (item.batchId !== undefined) batches.set(item.batchId, group.messages);
    groups.push(group);
  }
  for (const group of groups) {
    if (group.batched) turn.agent.steerBatch(group.messages);
    else turn.agent.steer(group.messages[0]!);
  }
  if (received.length > 0) turn.bridge.trace("steering", "info", "steering received", { boundary, count: received.length });
  return received.length;
}

/**
 * Asks the host's `tryBeginClose` to close intake; on `true` the turn is
 * closed (no more steering is taken). `false` means new work won the race.
 * Only called when the input has a `tryBeginClose`.
 */
export async function tryBeginClose(turn: RunningTurn, lastAssistantMessage: AgentMessage | undefined): Promise<boolean> {
  const close = turn.input.tryBeginClose!;
  const closed = (await settleHostCallback(turn, close({ lastAssistantMessage }), false)) === true;
  if (closed) turn.closed = true;
  return closed;
}
