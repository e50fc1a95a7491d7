/*
 * The shape of the agent events the testing helpers read (`describeEvent`,
 * `traceOf`, `assertEventGrammar`): checked before reading, so a malformed
 * event is reported as a `TypeError` naming it instead of failing inside
 * the helper.
 */
import { describeValue, isList, isRecord } from "../message-checks.js";
import type { AgentEvent } from "../types.js";

/** Every type of {@link AgentEvent}. */
const AGENT_EVENT_TYPES: ReadonlySet<string> = new Set<AgentEvent["type"]>([
  "agent_start",
  "agent_end",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
]);

/** What is wrong with a message an event carries (`undefined`: nothing): an object with a string role; an assistant one has a content list. */
function eventMessageProblem(message: unknown): string | undefined {
  if (!isRecord(message) || typeof message.role !== "string")
    return ` must be a message object with a role, got ${describeValue(message)}`;
  if (message.role === "assistant" && !(isList(message.content) && message.content.every(isRecord)))
    return `.content must be an array of content blocks, got ${describeValue(message.content)}`;
  return undefined;
}

/**
 * What is wrong with one agent event (`undefined`: nothing), as a path from
 * the event (`.message must be ...`): an object with a known `type` and the
 * fields the grammar reads for it (the message of message and turn events,
 * `turn_end.toolResults`, `agent_end.messages`, the tool call id of tool
 * events).
 */
export function agentEventProblem(event: unknown): string | undefined {
  if (!isRecord(event)) return ` must be an agent event object with a type, got ${describeValue(event)}`;
  if (typeof event.type !== "string" || !AGENT_EVENT_TYPES.has(event.type))
    return `.type must be the type of an agent event (${[...AGENT_EVENT_TYPES].join(", ")}), got ${describeValue(event.type)}`;
  switch (event.type) {
    case "message_start":
    case "message_update":
    case "message_end":
    case "turn_end": {
      const problem = eventMessageProblem(event.message);
      if (problem) return `.message${problem}`;
      if (event.type !== "turn_end") return undefined;
      if (!isList(event.toolResults) || !event.toolResults.every(isRecord))
        return `.toolResults must be an array of tool-result messages, got ${describeValue(event.toolResults)}`;
      return undefined;
    }
    case "agent_end":
      return isList(event.messages)
        ? undefined
        : `.messages must be an array of messages, got ${describeValue(event.messages)}`;
    case "tool_execution_start":
    case "tool_execution_update":
    case "tool_execution_end":
      return typeof event.toolCallId === "string"
        ? undefined
        : `.toolCallId must be a string, got ${describeValue(event.toolCallId)}`;
    default:
      return undefined;
  }
}

/** Throws a `TypeError` naming `where` and the first malformed event (`where: events[2].message must be ...`) of `events`. */
export function assertAgentEvents(events: readonly unknown[], where: string): void {
  events.forEach((event, index) => {
    const problem = agentEventProblem(event);
    if (problem) throw new TypeError(`${where}: events[${index}]${problem}`);
  });
}
