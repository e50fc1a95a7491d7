import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import type { AgentEvent, AgentMessage } from "../../src/index.js";

/**
 * Checks the event grammar every run must follow, whatever happened in it:
 *
 * - `agent_start` is the first event and `agent_end` the last, once each;
 * - `turn_start` / `turn_end` alternate and are balanced;
 * - every `message_start` is closed by one `message_end` before another
 *   message opens; `message_update` only inside an open assistant message;
 * - an assistant message and tool executions happen inside a turn;
 * - every `tool_execution_start` is closed by one `tool_execution_end`, each
 *   id once; `tool_execution_update` only while its call is open;
 * - `turn_end.toolResults` are exactly the tool-result messages ended since
 *   the turn started, in that order;
 * - a completed assistant message with tool calls (not `error`/`aborted`)
 *   has one tool result per call by its `turn_end` (SPEC L5, X5);
 * - `agent_end.messages` are exactly the `message_end` messages of the run,
 *   in order (the transcript a host builds from `message_end` is the run's
 *   result).
 *
 * Throws an `Error` naming the first violation and its event index, so a
 * failing scenario says what broke rather than which field differed.
 */
export function assertEventGrammar(events: readonly AgentEvent[]): void {
  const fail = (index: number, what: string): never => {
    const window = events
      .slice(Math.max(0, index - 3), index + 2)
      .map((event, offset) => `  #${Math.max(0, index - 3) + offset} ${describeEvent(event)}`)
      .join("\n");
    throw new Error(`Event grammar violated at #${index}: ${what}\n${window}`);
  };

  if (events.length === 0) throw new Error("Event grammar violated: no events");
  let turnOpen = false;
  let openMessage: AgentMessage | undefined;
  const openCalls = new Set<string>();
  const seenCalls = new Set<string>();
  const endedMessages: AgentMessage[] = [];
  let turnToolResults: ToolResultMessage[] = [];
  let turnAssistant: AssistantMessage | undefined;
  let agentEnded = false;

  events.forEach((event, index) => {
    if (agentEnded) fail(index, "event after agent_end");
    if (index === 0 && event.type !== "agent_start") fail(index, "first event is not agent_start");
    switch (event.type) {
      case "agent_start":
        if (index !== 0) fail(index, "agent_start is not first");
        break;
      case "agent_end":
        if (index !== events.length - 1) fail(index, "agent_end is not last");
        if (turnOpen) fail(index, "agent_end while a turn is open");
        if (openMessage) fail(index, "agent_end while a message is open");
        if (openCalls.size > 0) fail(index, `agent_end while tool calls are open: ${[...openCalls].join(", ")}`);
        if (event.messages.length !== endedMessages.length || event.messages.some((message, at) => message !== endedMessages[at])) {
          fail(index, `agent_end.messages (${event.messages.length}) differ from the message_end messages (${endedMessages.length})`);
        }
        agentEnded = true;
        break;
      case "turn_start":
        if (turnOpen) fail(index, "turn_start inside a turn");
        turnOpen = true;
        turnToolResults = [];
        turnAssistant = undefined;
        break;
      case "turn_end": {
        if (!turnOpen) fail(index, "turn_end without turn_start");
        if (openMessage) fail(index, "turn_end while a message is open");
        if (openCalls.size > 0) fail(index, "turn_end while tool calls are open");
        if (event.toolResults.length !== turnToolResults.length || event.toolResults.some((result, at) => result !== turnToolResults[at])) {
          fail(index, "turn_end.toolResults differ from the tool results ended in this turn");
        }
        if (turnAssistant && event.message !== turnAssistant) fail(index, "turn_end.message is not the turn's assistant message");
        const message = event.message;
        if (message.role === "assistant" && message.stopReason !== "error" && message.stopReason !== "aborted") {
          const answered = new Set(event.toolResults.map((result) => result.toolCallId));
          for (const block of message.content) {
            if (block.type === "toolCall" && !answered.has(block.id)) fail(index, `tool call ${block.id} has no result at turn_end`);
          }
        }
        turnOpen = false;
        break;
      }
      case "message_start":
        if (openMessage) fail(index, "message_start while another message is open");
        if (event.message.role === "assistant" && !turnOpen) fail(index, "assistant message outside a turn");
        openMessage = event.message;
        break;
      case "message_update":
        if (!openMessage) fail(index, "message_update without an open message");
        if (openMessage?.role !== "assistant") fail(index, "message_update of a non-assistant message");
        break;
      case "message_end":
        if (!openMessage) fail(index, "message_end without message_start");
        if (openMessage && openMessage.role !== "assistant" && openMessage !== event.message) {
          fail(index, "message_end closes a different message than message_start opened");
        }
        if (event.message.role === "assistant") {
          if (!turnOpen) fail(index, "assistant message_end outside a turn");
          turnAssistant = event.message;
        }
        if (event.message.role === "toolResult") turnToolResults.push(event.message);
        endedMessages.push(event.message);
        openMessage = undefined;
        break;
      case "tool_execution_start":
        if (!turnOpen) fail(index, "tool_execution_start outside a turn");
        if (seenCalls.has(event.toolCallId)) fail(index, `tool call ${event.toolCallId} started twice`);
        seenCalls.add(event.toolCallId);
        openCalls.add(event.toolCallId);
        break;
      case "tool_execution_update":
        if (!openCalls.has(event.toolCallId)) fail(index, `tool_execution_update of call ${event.toolCallId}, which is not running`);
        break;
      case "tool_execution_end":
        if (!openCalls.has(event.toolCallId)) fail(index, `tool_execution_end of call ${event.toolCallId}, which is not running`);
        openCalls.delete(event.toolCallId);
        break;
      default: {
        const unknown: never = event;
        fail(index, `unknown event ${JSON.stringify(unknown)}`);
      }
    }
  });
  if (!agentEnded) fail(events.length - 1, "the run has no agent_end");
}

/** One line per event, for readable sequence assertions: `message_end:assistant:toolUse`, `tool_execution_end:call_1:error`. */
export function describeEvent(event: AgentEvent): string {
  switch (event.type) {
    case "message_start":
    case "message_update":
      // A partial's stop reason means nothing yet.
      return `${event.type}:${event.message.role === "assistant" ? "assistant" : describeMessage(event.message)}`;
    case "message_end":
      return `${event.type}:${describeMessage(event.message)}`;
    case "turn_end":
      return `turn_end:${event.toolResults.length}`;
    case "tool_execution_start":
    case "tool_execution_update":
      return `${event.type}:${event.toolCallId}`;
    case "tool_execution_end":
      return `tool_execution_end:${event.toolCallId}${event.isError ? ":error" : ""}`;
    case "agent_start":
    case "agent_end":
    case "turn_start":
      return event.type;
    default: {
      const unknown: never = event;
      return String(unknown);
    }
  }
}

function describeMessage(message: AgentMessage): string {
  switch (message.role) {
    case "assistant":
      return `assistant:${message.stopReason}`;
    case "toolResult":
      return `toolResult:${message.toolCallId}${message.isError ? ":error" : ""}`;
    default:
      return message.role;
  }
}

/**
 * The run as compact lines without `message_update` and
 * `tool_execution_update` (their number depends on chunking): the shape a
 * scenario asserts.
 */
export function traceOf(events: readonly AgentEvent[]): string[] {
  return events.filter((event) => event.type !== "message_update" && event.type !== "tool_execution_update").map(describeEvent);
}
