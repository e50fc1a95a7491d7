/**
 * Invariant 4: `seq` strictly increases, and every history message is
 * delivered once, in order: the caller's history is never sent back, a
 * delta never repeats a message the host already stored, dropped responses
 * are never delivered, one `message.persisted` follows each accepted change
 * (or is among the events announced as dropped), once a change was refused
 * no later one is accepted (the hook that refused it would see a gap),
 * and every tool call the host saw resolved has its result in the history.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import { DROPPED_RESPONSE_FIELD } from "@turnkit/agent-core";
import type { RuntimeEvent } from "@turnkit/protocol";
import type { TurnRunObservation } from "../observe-turn.js";
import { droppedOfType } from "./event-numbering.js";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "4 seq increasing, history delivered once in order";

/** Checks and returns the host's store after applying every offered change to the history. */
export function checkHistoryDelivery(observation: TurnRunObservation): AgentMessage[] {
  const fail = (detail: string): never => {
    throw new InvariantViolation(INVARIANT, detail);
  };
  let previousSeq = -Infinity;
  for (const event of observation.events) {
    if (!(event.seq > previousSeq)) fail(`seq ${event.seq} (${event.type}) after seq ${previousSeq}`);
    previousSeq = event.seq;
  }

  const history = new Set<AgentMessage>(observation.history);
  let store: AgentMessage[] = [...observation.history];
  const deltaMessages: AgentMessage[] = [];
  observation.offered.forEach(({ change }, changeIndex) => {
    if (change.reason === "replaceMessages") {
      store = [...change.messages];
      return;
    }
    if (change.messages.length === 0) fail(`change #${changeIndex} is an empty messageDelta`);
    const stored = new Set(store);
    for (const message of change.messages) {
      if (history.has(message)) fail(`change #${changeIndex} sends back a message of the caller's history`);
      if (stored.has(message)) fail(`change #${changeIndex} delivers a ${message.role} message the host already has`);
      if ((message as unknown as Record<string, unknown>)[DROPPED_RESPONSE_FIELD] !== undefined) {
        fail(`change #${changeIndex} delivers a response a hook dropped`);
      }
      stored.add(message);
      deltaMessages.push(message);
    }
    store.push(...change.messages);
  });

  // One result per call: a model may reuse a call id in a later response, so an id may have as many results as calls.
  const toolResultIds = new Map<string, number>();
  const toolCallIds = new Map<string, number>();
  for (const message of deltaMessages) {
    if (message.role === "toolResult")
      toolResultIds.set(message.toolCallId, (toolResultIds.get(message.toolCallId) ?? 0) + 1);
    if (message.role === "assistant")
      for (const block of message.content)
        if (block.type === "toolCall") toolCallIds.set(block.id, (toolCallIds.get(block.id) ?? 0) + 1);
  }
  for (const [id, count] of toolResultIds)
    if (count > Math.max(1, toolCallIds.get(id) ?? 0))
      fail(`${count} tool results delivered for ${id}, called ${toolCallIds.get(id) ?? 0} times`);

  const persisted = observation.events.filter(
    (event): event is RuntimeEvent<"message.persisted"> => event.type === "message.persisted",
  );
  const accepted = observation.offered.filter((offer) => offer.accepted);
  // A chain that refused a change (a hook threw or was given up on) is never handed a later one: no gap in a store.
  const refused = observation.offered.findIndex((offer) => !offer.accepted);
  if (refused >= 0 && observation.offered.slice(refused).some((offer) => offer.accepted))
    fail(`change #${refused} was refused, yet a later change reached the whole hook chain (its store has a gap)`);
  // A writer given up on never received the last ones; the runner's notice counts them.
  const dropped = droppedOfType(observation.events, "message.persisted");
  if (persisted.length + dropped !== accepted.length)
    fail(
      `${persisted.length} message.persisted events (and ${dropped} announced as dropped) for ${accepted.length} accepted history changes`,
    );
  persisted.forEach((event, index) => {
    const change = accepted[index]!.change;
    if (event.payload.reason !== change.reason || event.payload.messages.length !== change.messages.length) {
      fail(
        `message.persisted #${index} (${event.payload.reason}, ${event.payload.messages.length}) does not match change (${change.reason}, ${change.messages.length})`,
      );
    }
  });

  for (const event of observation.events) {
    if (event.type !== "stream.resp" || event.payload.chunk.kind !== "tool_call") continue;
    const chunk = event.payload.chunk;
    if ((chunk.status === "finished" || chunk.status === "failed") && !toolResultIds.has(chunk.toolCallId)) {
      fail(
        `the host saw tool call ${chunk.toolCallId} ${chunk.status} (seq ${event.seq}) but its result never reached the history`,
      );
    }
  }
  return store;
}
