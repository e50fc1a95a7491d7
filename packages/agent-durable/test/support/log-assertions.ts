import type { AgentMessage } from "@turnkit/agent-loop";
import { isTerminalEvent, type RuntimeEvent } from "@turnkit/protocol";
import { expect } from "vitest";

/** What every durable turn's log must satisfy: seq 1..n with no gap or repeat, unique ids, one terminal status and it is last. */
export function assertLogInvariants(events: RuntimeEvent[]): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
  expect(events.filter(isTerminalEvent)).toEqual([events.at(-1)]);
  expect(events[0]).toMatchObject({ type: "session.status", payload: { status: "running" } });
}

/** The text streamed under one message id. */
export function messageText(events: RuntimeEvent[], messageId: string): string {
  return events
    .flatMap((e) =>
      e.type === "stream.resp" && e.payload.messageId === messageId && e.payload.chunk.kind === "text"
        ? [e.payload.chunk.delta]
        : [],
    )
    .join("");
}

/** The `durable.resume` traces: where an execution continued after an interrupted step. */
export function resumeTraces(events: RuntimeEvent[]): RuntimeEvent<"debug.trace">[] {
  return events.filter(
    (e): e is RuntimeEvent<"debug.trace"> => e.type === "debug.trace" && e.payload.phase === "durable.resume",
  );
}

/** The text of the last message that finished (the turn's answer). */
export function finalText(events: RuntimeEvent[]): string {
  const finished = events.filter((e) => e.type === "stream.resp" && e.payload.chunk.kind === "finish").at(-1);
  return finished?.type === "stream.resp" ? messageText(events, finished.payload.messageId) : "";
}

/** The statuses of every tool-call chunk, in log order. */
export function toolStatuses(events: RuntimeEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === "stream.resp" && e.payload.chunk.kind === "tool_call" ? [e.payload.chunk.status] : [],
  );
}

/** The text of each user message among `messages` (an outcome's hand-back, a history), in order. */
export function userTexts(messages: readonly unknown[]): string[] {
  return messages.flatMap((m) => {
    const message = m as AgentMessage;
    if (message.role !== "user") return [];
    return typeof message.content === "string"
      ? [message.content]
      : [message.content.map((block) => (block.type === "text" ? block.text : "")).join("")];
  });
}
