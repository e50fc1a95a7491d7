import { Type, type TLiteral, type TObject, type TSchema } from "@sinclair/typebox";
import {
  ProtocolAnyMessageSchema,
  ProtocolMediaDescriptorSchema,
  ProtocolTextContentSchema,
  ProtocolUsageSchema,
} from "./message-schemas.js";
import {
  BudgetExceededDetailSchema,
  StepReportSchema,
  TurnTimingSchema,
  TurnUsageSchema,
} from "./observability-schemas.js";
import { RUNTIME_EVENT_SCHEMA, type RuntimeEventType } from "./runtime-event.js";
import { ERROR_CODES } from "./status-codes.js";

/*
 * TypeBox schemas of the runtime event envelope and its payloads. Each one
 * validates exactly the shape of its TypeScript type (kept in sync by
 * test/schema-sync.test.ts). Objects allow additional properties so that
 * additive protocol changes do not break older consumers.
 */

const NonEmptyString = Type.String({ minLength: 1 });

/** Schema of an {@link ErrorCode}: one of the known codes. */
export const ErrorCodeSchema = Type.Union(ERROR_CODES.map((code) => Type.Literal(code)));

/** Schema of a {@link TurnError}. */
export const TurnErrorSchema = Type.Object({
  code: ErrorCodeSchema,
  message: Type.String(),
  budget: Type.Optional(BudgetExceededDetailSchema),
});

/** Schema of a {@link SubAgentCallReport}; its `subAgentCalls` nest the same shape. */
export const SubAgentCallReportSchema = Type.Recursive(
  (This) =>
    Type.Object({
      toolCallId: NonEmptyString,
      agent: NonEmptyString,
      turnId: NonEmptyString,
      outcome: Type.Union([Type.Literal("completed"), Type.Literal("aborted"), Type.Literal("failed")]),
      error: Type.Optional(TurnErrorSchema),
      usage: Type.Optional(TurnUsageSchema),
      timing: Type.Optional(TurnTimingSchema),
      subAgentCalls: Type.Optional(Type.Array(This)),
    }),
  { $id: "SubAgentCallReport" },
);

/** Schema of a {@link ToolCallStatus}. */
export const ToolCallStatusSchema = Type.Union([
  Type.Literal("preparing"),
  Type.Literal("started"),
  Type.Literal("finished"),
  Type.Literal("failed"),
]);

const streamChunkSchema = Type.Union([
  Type.Object({ kind: Type.Literal("text"), delta: Type.String() }),
  Type.Object({ kind: Type.Literal("thinking"), delta: Type.String() }),
  Type.Object({
    kind: Type.Literal("tool_call"),
    toolCallId: NonEmptyString,
    toolName: Type.String(),
    status: ToolCallStatusSchema,
    arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    result: Type.Optional(
      Type.Object({
        content: Type.Array(Type.Union([ProtocolTextContentSchema, ProtocolMediaDescriptorSchema])),
        isError: Type.Boolean(),
        details: Type.Optional(Type.Unknown()),
      }),
    ),
    durationMs: Type.Optional(Type.Number({ minimum: 0 })),
  }),
  Type.Object({
    kind: Type.Literal("finish"),
    reason: Type.Union([
      Type.Literal("stop"),
      Type.Literal("length"),
      Type.Literal("toolUse"),
      Type.Literal("aborted"),
    ]),
    usage: Type.Optional(ProtocolUsageSchema),
    step: Type.Optional(StepReportSchema),
    error: Type.Optional(Type.Undefined()),
  }),
  Type.Object({
    kind: Type.Literal("finish"),
    reason: Type.Literal("error"),
    usage: Type.Optional(ProtocolUsageSchema),
    step: Type.Optional(StepReportSchema),
    error: TurnErrorSchema,
  }),
]);
type StreamChunkSchemaShape = typeof streamChunkSchema;
/** The TypeBox type of {@link StreamChunkSchema}, named so declarations reference it instead of repeating it. */
export interface TStreamChunk extends StreamChunkSchemaShape {}
/** Schema of a {@link StreamChunk}, a union on `kind`. */
export const StreamChunkSchema: TStreamChunk = streamChunkSchema;

/** Schema of a {@link StreamRespPayload}. */
export const StreamRespPayloadSchema = Type.Object({
  messageId: NonEmptyString,
  chunkIndex: Type.Integer({ minimum: 0 }),
  chunk: StreamChunkSchema,
});

/** Schema of a {@link SessionStatusPayload}: `error` present exactly when `status` is `failed`. */
export const SessionStatusPayloadSchema = Type.Union([
  Type.Object({
    status: Type.Union([Type.Literal("running"), Type.Literal("completed"), Type.Literal("aborted")]),
    error: Type.Optional(Type.Undefined()),
    usage: Type.Optional(TurnUsageSchema),
    timing: Type.Optional(TurnTimingSchema),
    subAgentCalls: Type.Optional(Type.Array(SubAgentCallReportSchema)),
    undeliveredMessages: Type.Optional(Type.Array(ProtocolAnyMessageSchema)),
  }),
  Type.Object({
    status: Type.Literal("failed"),
    error: TurnErrorSchema,
    usage: Type.Optional(TurnUsageSchema),
    timing: Type.Optional(TurnTimingSchema),
    subAgentCalls: Type.Optional(Type.Array(SubAgentCallReportSchema)),
    undeliveredMessages: Type.Optional(Type.Array(ProtocolAnyMessageSchema)),
  }),
]);

const Family = Type.Union([Type.Literal("main"), Type.Literal("auxiliary")]);

/** Schema of a {@link RuntimeWarningPayload}, a union on `code`. */
export const RuntimeWarningPayloadSchema = Type.Union([
  Type.Object({
    code: Type.Union([Type.Literal("retry_wait"), Type.Literal("timeout_retried")]),
    message: Type.String(),
    family: Family,
    attempt: Type.Integer({ minimum: 1 }),
    delayMs: Type.Number({ minimum: 0 }),
    error: TurnErrorSchema,
  }),
  Type.Object({ code: Type.Literal("images_dropped"), message: Type.String(), count: Type.Integer({ minimum: 1 }) }),
  Type.Object({ code: Type.Literal("overflow_recovery"), message: Type.String() }),
  Type.Object({ code: Type.Literal("hook_abandoned"), message: Type.String(), hook: Type.String() }),
  Type.Object({
    code: Type.Literal("late_tool_update"),
    message: Type.String(),
    toolCallId: NonEmptyString,
    toolName: Type.String(),
  }),
  Type.Object({
    code: Type.Literal("model_fallback"),
    message: Type.String(),
    family: Family,
    from: Type.String(),
    to: Type.String(),
    trigger: Type.String(),
    error: TurnErrorSchema,
  }),
  Type.Object({
    code: Type.Literal("extension_degraded"),
    message: Type.String(),
    extensionId: NonEmptyString,
    tools: Type.Array(Type.String()),
  }),
  Type.Object({
    code: Type.Literal("steering_dropped"),
    message: Type.String(),
    count: Type.Integer({ minimum: 1 }),
    source: Type.Union([Type.Literal("getSteeringMessages"), Type.Literal("enqueue")]),
  }),
]);

/** Schema of a {@link DebugTracePayload}. */
export const DebugTracePayloadSchema = Type.Object({
  phase: Type.String(),
  level: Type.Union([Type.Literal("debug"), Type.Literal("info"), Type.Literal("warn"), Type.Literal("error")]),
  message: Type.String(),
  attrs: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

/**
 * Schema of a {@link MessagePersistedPayload}. It cannot express that
 * `messageIds` is index-aligned with `messages`; `isRuntimeEvent` checks that
 * as well.
 */
export const MessagePersistedPayloadSchema = Type.Object({
  reason: Type.Union([Type.Literal("messageDelta"), Type.Literal("replaceMessages")]),
  messages: Type.Array(ProtocolAnyMessageSchema),
  messageIds: Type.Optional(Type.Array(NonEmptyString)),
});

/** Schema of a {@link ToolApprovalRequiredPayload}: a tool call waiting for a person's approval. */
export const ToolApprovalRequiredPayloadSchema = Type.Object({
  requestId: NonEmptyString,
  kind: Type.Literal("tool_approval"),
  toolCallId: NonEmptyString,
  toolName: Type.String(),
  arguments: Type.Record(Type.String(), Type.Unknown()),
  messageId: Type.Optional(NonEmptyString),
  reason: Type.Optional(Type.String()),
  timeoutMs: Type.Optional(Type.Number({ minimum: 0 })),
});

/** Schema of an {@link ElicitationRequiredPayload}: a question for a person, with the schema of its answer. */
export const ElicitationRequiredPayloadSchema = Type.Object({
  requestId: NonEmptyString,
  kind: Type.Literal("elicitation"),
  message: Type.String(),
  requestedSchema: Type.Record(Type.String(), Type.Unknown()),
  serverName: Type.String(),
  toolCallId: Type.Optional(NonEmptyString),
  messageId: Type.Optional(NonEmptyString),
  timeoutMs: Type.Optional(Type.Number({ minimum: 0 })),
});

/** Schema of an {@link ActionRequiredPayload}: one of the kinds. */
export const ActionRequiredPayloadSchema = Type.Union([
  ToolApprovalRequiredPayloadSchema,
  ElicitationRequiredPayloadSchema,
]);

/** Schema of a {@link ToolApprovalAnswer}. */
export const ToolApprovalAnswerSchema = Type.Union([
  Type.Object({ approved: Type.Literal(true) }),
  Type.Object({ approved: Type.Literal(false), reason: Type.Optional(Type.String()) }),
]);

/** Schema of an {@link ElicitationAnswer}: `accept` with flat content, `decline` or `cancel`. */
export const ElicitationAnswerSchema = Type.Union([
  Type.Object({
    action: Type.Literal("accept"),
    content: Type.Record(
      Type.String(),
      Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Type.String())]),
    ),
  }),
  Type.Object({ action: Type.Literal("decline") }),
  Type.Object({ action: Type.Literal("cancel") }),
]);

/** Schema of an {@link EventOrigin}. */
export const EventOriginSchema = Type.Object({
  toolCallId: NonEmptyString,
  path: Type.Array(Type.Object({ toolCallId: NonEmptyString, agent: NonEmptyString }), { minItems: 1 }),
  turnId: NonEmptyString,
  seq: Type.Integer({ minimum: 0 }),
});

function envelope<TType extends RuntimeEventType, TPayload extends TSchema>(type: TType, payload: TPayload) {
  return Type.Object({
    schema: Type.Literal(RUNTIME_EVENT_SCHEMA),
    eventId: NonEmptyString,
    sessionId: NonEmptyString,
    turnId: NonEmptyString,
    seq: Type.Integer({ minimum: 0 }),
    type: Type.Literal(type) as TLiteral<TType>,
    payload,
    origin: Type.Optional(EventOriginSchema),
  });
}

const runtimeEventSchemas = {
  "stream.resp": envelope("stream.resp", StreamRespPayloadSchema),
  "session.status": envelope("session.status", SessionStatusPayloadSchema),
  "debug.trace": envelope("debug.trace", DebugTracePayloadSchema),
  "message.persisted": envelope("message.persisted", MessagePersistedPayloadSchema),
  "action.required": envelope("action.required", ActionRequiredPayloadSchema),
  "runtime.warning": envelope("runtime.warning", RuntimeWarningPayloadSchema),
} satisfies Record<RuntimeEventType, TObject>;
type RuntimeEventSchemasShape = typeof runtimeEventSchemas;
/** The type of {@link RuntimeEventSchemas}, named so declarations reference it instead of repeating it. */
export interface TRuntimeEventSchemas extends RuntimeEventSchemasShape {}
/** Schema of each {@link RuntimeEvent} member, by `type`. */
export const RuntimeEventSchemas: TRuntimeEventSchemas = runtimeEventSchemas;

/** Schema of a {@link RuntimeEvent}: the union of {@link RuntimeEventSchemas}. */
export const RuntimeEventSchema = Type.Union([
  RuntimeEventSchemas["stream.resp"],
  RuntimeEventSchemas["session.status"],
  RuntimeEventSchemas["debug.trace"],
  RuntimeEventSchemas["message.persisted"],
  RuntimeEventSchemas["action.required"],
  RuntimeEventSchemas["runtime.warning"],
]);
