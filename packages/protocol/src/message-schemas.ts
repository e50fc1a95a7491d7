import { Type } from "@sinclair/typebox";
import { LLM_MESSAGE_ROLES } from "./messages.js";

/*
 * TypeBox schemas of the mirrored content blocks and messages. Each one
 * validates exactly the shape of its TypeScript type (kept in sync by
 * test/schema-sync.test.ts). Objects allow additional properties: providers
 * and hosts may add fields, and a consumer must not reject them.
 */

/** Schema of {@link ProtocolTextContent}. */
export const ProtocolTextContentSchema = Type.Object({
  type: Type.Literal("text"),
  text: Type.String(),
  textSignature: Type.Optional(Type.String()),
});

/** Schema of {@link ProtocolThinkingContent}. */
export const ProtocolThinkingContentSchema = Type.Object({
  type: Type.Literal("thinking"),
  thinking: Type.String(),
  thinkingSignature: Type.Optional(Type.String()),
  redacted: Type.Optional(Type.Boolean()),
});

/** Schema of {@link ProtocolImageContent}. */
export const ProtocolImageContentSchema = Type.Object({
  type: Type.Literal("image"),
  data: Type.String(),
  mimeType: Type.String(),
  fileName: Type.Optional(Type.String()),
});

/** Schema of {@link ProtocolMediaDescriptor}. */
export const ProtocolMediaDescriptorSchema = Type.Object({
  type: Type.Literal("media"),
  mediaType: Type.String(),
  mimeType: Type.String(),
  bytes: Type.Integer({ minimum: 0 }),
  fileName: Type.Optional(Type.String()),
});

/** Schema of {@link ProtocolToolCall}. */
export const ProtocolToolCallSchema = Type.Object({
  type: Type.Literal("toolCall"),
  id: Type.String(),
  name: Type.String(),
  arguments: Type.Record(Type.String(), Type.Unknown()),
  thoughtSignature: Type.Optional(Type.String()),
});

/** Schema of {@link ProtocolUsage}. */
export const ProtocolUsageSchema = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  totalTokens: Type.Number(),
  cost: Type.Object({
    input: Type.Number(),
    output: Type.Number(),
    cacheRead: Type.Number(),
    cacheWrite: Type.Number(),
    total: Type.Number(),
  }),
});

/** Schema of {@link ProtocolStopReason}. */
export const ProtocolStopReasonSchema = Type.Union([
  Type.Literal("stop"),
  Type.Literal("length"),
  Type.Literal("toolUse"),
  Type.Literal("error"),
  Type.Literal("aborted"),
]);

/** Schema of {@link ProtocolAssistantMessageDiagnostic}. */
export const ProtocolAssistantMessageDiagnosticSchema = Type.Object({
  type: Type.String(),
  timestamp: Type.Number(),
  error: Type.Optional(
    Type.Object({
      name: Type.Optional(Type.String()),
      message: Type.String(),
      stack: Type.Optional(Type.String()),
      code: Type.Optional(Type.Union([Type.String(), Type.Number()])),
    }),
  ),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

/** Schema of {@link ProtocolUserMessage}. */
export const ProtocolUserMessageSchema = Type.Object({
  role: Type.Literal("user"),
  content: Type.Union([Type.String(), Type.Array(Type.Union([ProtocolTextContentSchema, ProtocolImageContentSchema]))]),
  timestamp: Type.Number(),
});

const assistantMessageSchema = Type.Object({
  role: Type.Literal("assistant"),
  content: Type.Array(Type.Union([ProtocolTextContentSchema, ProtocolThinkingContentSchema, ProtocolToolCallSchema])),
  api: Type.String(),
  provider: Type.String(),
  model: Type.String(),
  responseModel: Type.Optional(Type.String()),
  responseId: Type.Optional(Type.String()),
  diagnostics: Type.Optional(Type.Array(ProtocolAssistantMessageDiagnosticSchema)),
  usage: ProtocolUsageSchema,
  stopReason: ProtocolStopReasonSchema,
  errorMessage: Type.Optional(Type.String()),
  timestamp: Type.Number(),
});
type AssistantMessageSchemaShape = typeof assistantMessageSchema;
/** The TypeBox type of {@link ProtocolAssistantMessageSchema}, named so declarations reference it instead of repeating it. */
export interface TProtocolAssistantMessage extends AssistantMessageSchemaShape {}
/** Schema of {@link ProtocolAssistantMessage}. */
export const ProtocolAssistantMessageSchema: TProtocolAssistantMessage = assistantMessageSchema;

const toolResultMessageSchema = Type.Object({
  role: Type.Literal("toolResult"),
  toolCallId: Type.String(),
  toolName: Type.String(),
  content: Type.Array(Type.Union([ProtocolTextContentSchema, ProtocolImageContentSchema])),
  details: Type.Optional(Type.Unknown()),
  isError: Type.Boolean(),
  timestamp: Type.Number(),
});
type ToolResultMessageSchemaShape = typeof toolResultMessageSchema;
/** The TypeBox type of {@link ProtocolToolResultMessageSchema}, named so declarations reference it instead of repeating it. */
export interface TProtocolToolResultMessage extends ToolResultMessageSchemaShape {}
/** Schema of {@link ProtocolToolResultMessage} (with `unknown` details). */
export const ProtocolToolResultMessageSchema: TProtocolToolResultMessage = toolResultMessageSchema;

/** Schema of {@link ProtocolLlmMessage}. */
export const ProtocolLlmMessageSchema = Type.Union([
  ProtocolUserMessageSchema,
  ProtocolAssistantMessageSchema,
  ProtocolToolResultMessageSchema,
]);

/**
 * Schema of {@link ProtocolCustomMessage}: an object whose `role` is a
 * non-empty string other than the provider roles. So a malformed provider
 * message (say, an assistant message without `usage`) is rejected rather
 * than accepted as a custom one.
 */
export const ProtocolCustomMessageSchema = Type.Object({
  role: Type.String({ pattern: `^(?!(?:${LLM_MESSAGE_ROLES.join("|")})$).+$` }),
});

const anyMessageSchema = Type.Union([ProtocolLlmMessageSchema, ProtocolCustomMessageSchema]);
type AnyMessageSchemaShape = typeof anyMessageSchema;
/** The TypeBox type of {@link ProtocolAnyMessageSchema}, named so declarations reference it instead of repeating it. */
export interface TProtocolAnyMessage extends AnyMessageSchemaShape {}
/** Schema of {@link ProtocolAnyMessage}: a valid provider message or a custom message. */
export const ProtocolAnyMessageSchema: TProtocolAnyMessage = anyMessageSchema;
