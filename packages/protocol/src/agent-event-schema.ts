import { Type, type TLiteral, type TObject, type TProperties } from "@sinclair/typebox";
import {
  ProtocolAnyMessageSchema,
  ProtocolAssistantMessageSchema,
  ProtocolToolCallSchema,
  ProtocolToolResultMessageSchema,
} from "./message-schemas.js";
import type { ProtocolAgentEventType } from "./agent-event.js";

function variant<TType extends string, TProps extends TProperties>(type: TType, properties: TProps) {
  return Type.Object({ type: Type.Literal(type), ...properties }) as TObject<{ type: TLiteral<TType> } & TProps>;
}

const PartialMessage = ProtocolAssistantMessageSchema;
const ContentIndex = Type.Integer({ minimum: 0 });

const assistantMessageEventSchema = Type.Union([
  variant("start", { partial: PartialMessage }),
  variant("text_start", { contentIndex: ContentIndex, partial: PartialMessage }),
  variant("text_delta", { contentIndex: ContentIndex, delta: Type.String(), partial: PartialMessage }),
  variant("text_end", { contentIndex: ContentIndex, content: Type.String(), partial: PartialMessage }),
  variant("thinking_start", { contentIndex: ContentIndex, partial: PartialMessage }),
  variant("thinking_delta", { contentIndex: ContentIndex, delta: Type.String(), partial: PartialMessage }),
  variant("thinking_end", { contentIndex: ContentIndex, content: Type.String(), partial: PartialMessage }),
  variant("toolcall_start", { contentIndex: ContentIndex, partial: PartialMessage }),
  variant("toolcall_delta", { contentIndex: ContentIndex, delta: Type.String(), partial: PartialMessage }),
  variant("toolcall_end", { contentIndex: ContentIndex, toolCall: ProtocolToolCallSchema, partial: PartialMessage }),
  variant("done", {
    reason: Type.Union([Type.Literal("stop"), Type.Literal("length"), Type.Literal("toolUse")]),
    message: ProtocolAssistantMessageSchema,
  }),
  variant("error", {
    reason: Type.Union([Type.Literal("aborted"), Type.Literal("error")]),
    error: ProtocolAssistantMessageSchema,
  }),
]);
type AssistantMessageEventSchemaShape = typeof assistantMessageEventSchema;
/** The TypeBox type of {@link ProtocolAssistantMessageEventSchema}, named so declarations reference it instead of repeating it. */
export interface TProtocolAssistantMessageEvent extends AssistantMessageEventSchemaShape {}
/** Schema of {@link ProtocolAssistantMessageEvent}. */
export const ProtocolAssistantMessageEventSchema: TProtocolAssistantMessageEvent = assistantMessageEventSchema;

const ToolExecution = { toolCallId: Type.String(), toolName: Type.String() };

const agentEventSchemas = {
  agent_start: variant("agent_start", {}),
  agent_end: variant("agent_end", { messages: Type.Array(ProtocolAnyMessageSchema) }),
  turn_start: variant("turn_start", {}),
  turn_end: variant("turn_end", {
    message: ProtocolAnyMessageSchema,
    toolResults: Type.Array(ProtocolToolResultMessageSchema),
  }),
  message_start: variant("message_start", { message: ProtocolAnyMessageSchema }),
  message_update: variant("message_update", {
    message: ProtocolAnyMessageSchema,
    assistantMessageEvent: ProtocolAssistantMessageEventSchema,
  }),
  message_end: variant("message_end", { message: ProtocolAnyMessageSchema }),
  tool_execution_start: variant("tool_execution_start", { ...ToolExecution, args: Type.Unknown() }),
  tool_execution_update: variant("tool_execution_update", {
    ...ToolExecution,
    args: Type.Unknown(),
    partialResult: Type.Unknown(),
  }),
  tool_execution_end: variant("tool_execution_end", {
    ...ToolExecution,
    result: Type.Unknown(),
    isError: Type.Boolean(),
  }),
} satisfies Record<ProtocolAgentEventType, TObject>;
type AgentEventSchemasShape = typeof agentEventSchemas;
/** The type of {@link ProtocolAgentEventSchemas}, named so declarations reference it instead of repeating it. */
export interface TProtocolAgentEventSchemas extends AgentEventSchemasShape {}
/**
 * Schema of each {@link ProtocolAgentEvent} variant, by `type`, with custom
 * messages allowed (`ProtocolAgentEvent<ProtocolCustomMessage>`).
 */
export const ProtocolAgentEventSchemas: TProtocolAgentEventSchemas = agentEventSchemas;

/** Schema of {@link ProtocolAgentEvent} with custom messages allowed: the union of {@link ProtocolAgentEventSchemas}. */
export const ProtocolAgentEventSchema = Type.Union([
  ProtocolAgentEventSchemas.agent_start,
  ProtocolAgentEventSchemas.agent_end,
  ProtocolAgentEventSchemas.turn_start,
  ProtocolAgentEventSchemas.turn_end,
  ProtocolAgentEventSchemas.message_start,
  ProtocolAgentEventSchemas.message_update,
  ProtocolAgentEventSchemas.message_end,
  ProtocolAgentEventSchemas.tool_execution_start,
  ProtocolAgentEventSchemas.tool_execution_update,
  ProtocolAgentEventSchemas.tool_execution_end,
]);
