import type { ProtocolAssistantMessageEvent } from "./assistant-message-event.js";
import type { ProtocolCustomMessage, ProtocolMessage, ProtocolToolResultMessage } from "./messages.js";

/**
 * One event of a loop run: structural mirror of the loop's `AgentEvent`, so
 * a host can type its listener without depending on `@turnkit/agent-loop`.
 *
 * `TCustom` stands for the loop's `CustomAgentMessages` (never by default).
 * With matching custom messages the two unions are assignable both ways
 * (enforced by `conformance/test/protocol-mirror.test.ts`).
 *
 * Grammar: `agent_start` first and `agent_end` last, once each;
 * `turn_start`/`turn_end` balanced (a "turn" here is one step: one assistant
 * response and its tool calls); every `message_start` closed by one
 * `message_end`; every `tool_execution_start` closed by one
 * `tool_execution_end`.
 */
export type ProtocolAgentEvent<TCustom extends ProtocolCustomMessage = never> =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: ProtocolMessage<TCustom>[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: ProtocolMessage<TCustom>; toolResults: ProtocolToolResultMessage[] }
  | { type: "message_start"; message: ProtocolMessage<TCustom> }
  | { type: "message_update"; message: ProtocolMessage<TCustom>; assistantMessageEvent: ProtocolAssistantMessageEvent }
  | { type: "message_end"; message: ProtocolMessage<TCustom> }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; args: unknown; partialResult: unknown }
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: unknown; isError: boolean };

/** The `type` of a {@link ProtocolAgentEvent}. */
export type ProtocolAgentEventType = ProtocolAgentEvent["type"];

// A Record forces every event type to be listed (the compiler names a missing one).
const AGENT_EVENT_TYPE_ORDER = {
  agent_start: 0,
  agent_end: 1,
  turn_start: 2,
  turn_end: 3,
  message_start: 4,
  message_update: 5,
  message_end: 6,
  tool_execution_start: 7,
  tool_execution_update: 8,
  tool_execution_end: 9,
} satisfies Record<ProtocolAgentEventType, number>;

/** Every {@link ProtocolAgentEventType}, each once, in declaration order. */
export const PROTOCOL_AGENT_EVENT_TYPES: readonly ProtocolAgentEventType[] = Object.freeze(
  Object.keys(AGENT_EVENT_TYPE_ORDER) as ProtocolAgentEventType[],
);

/**
 * A listener for loop events, shaped like the loop's subscriber: the loop
 * awaits it before going on, and `signal` (when given) fires on abort. It is
 * assignable to the loop's `AgentEventSink`.
 */
export type ProtocolAgentEventListener<TCustom extends ProtocolCustomMessage = never> = (
  event: ProtocolAgentEvent<TCustom>,
  signal?: AbortSignal,
) => void | Promise<void>;
