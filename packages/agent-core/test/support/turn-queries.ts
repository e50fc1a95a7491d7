/**
 * Small queries the runner scenarios assert on: what a recorded request
 * sent, what a message says, how the stream resolved tool calls and how the
 * turn ended.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import type { RecordedRequest } from "@turnkit/agent-loop/testing";
import type { RuntimeEvent, StreamToolCallChunk } from "@turnkit/protocol";

/** The user-visible text of every user message of a recorded request, one entry per message. */
export function userTexts(request: RecordedRequest): string[] {
  return request.context.messages
    .filter((message) => message.role === "user")
    .map((message) =>
      typeof message.content === "string"
        ? message.content
        : message.content.map((block) => (block.type === "text" ? block.text : `[image]`)).join("|"),
    );
}

/** Roles of the messages of a recorded request. */
export function requestRoles(request: RecordedRequest): string[] {
  return request.context.messages.map((message) => message.role);
}

/** The text of an agent message (text blocks joined), or "" . */
export function messageText(message: AgentMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block: { type: string; text?: string }) => (block.type === "text" ? block.text : "")).join("");
}

/** The final tool-call chunks (status finished/failed) of the stream, in emission order. */
export function resolvedToolChunks(events: readonly RuntimeEvent[]): StreamToolCallChunk[] {
  return events.flatMap((event) =>
    event.type === "stream.resp" &&
    event.payload.chunk.kind === "tool_call" &&
    (event.payload.chunk.status === "finished" || event.payload.chunk.status === "failed")
      ? [event.payload.chunk]
      : [],
  );
}

/** The terminal `session.status` payload. */
export function terminalStatus(events: readonly RuntimeEvent[]) {
  const last = events[events.length - 1];
  if (!last || last.type !== "session.status") throw new Error("last event is not a session.status");
  return last.payload;
}
