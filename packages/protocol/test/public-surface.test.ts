/**
 * The public surface of `@turnkit/protocol`: every value and type
 * its entry exports. A name added, removed or retyped fails this test until
 * the lists below and the README say so, so the API changes only on purpose.
 */
import { describePublicSurface } from "../../../scripts/public-surface-test.js";

describePublicSurface({
  specifier: "@turnkit/protocol",
  entry: new URL("../src/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  values: [
    "BudgetExceededDetailSchema", "ModelRequestTimingSchema", "RUNTIME_WARNING_CODES", "RuntimeWarningCode",
    "RuntimeWarningPayloadSchema", "StepReportSchema", "ToolCallTimingSchema", "TurnTimingSchema", "TurnUsageSchema",
    "DebugTracePayloadSchema", "ERROR_CODES", "ErrorCode", "ErrorCodeSchema", "LLM_MESSAGE_ROLES",
    "MessagePersistedPayloadSchema", "PROTOCOL_AGENT_EVENT_TYPES", "ProtocolAgentEventSchema",
    "ProtocolAgentEventSchemas", "ProtocolAnyMessageSchema", "ProtocolAssistantMessageDiagnosticSchema",
    "ProtocolAssistantMessageEventSchema", "ProtocolAssistantMessageSchema", "ProtocolCustomMessageSchema",
    "ProtocolImageContentSchema", "ProtocolLlmMessageSchema", "ProtocolMediaDescriptorSchema", "ProtocolStopReasonSchema",
    "ProtocolTextContentSchema", "ProtocolThinkingContentSchema", "ProtocolToolCallSchema",
    "ProtocolToolResultMessageSchema", "ProtocolUsageSchema", "ProtocolUserMessageSchema", "RUNTIME_EVENT_SCHEMA",
    "RUNTIME_EVENT_TYPES", "RuntimeEventSchema", "RuntimeEventSchemas", "SessionStatusPayloadSchema",
    "StreamChunkSchema", "StreamRespPayloadSchema", "TERMINAL_STATUSES", "TURN_STATUSES", "ToolCallStatusSchema",
    "TurnErrorSchema", "createRuntimeEvent", "isErrorCode", "isProtocolAgentEvent", "isProtocolLlmMessage",
    "isRuntimeEvent", "isRuntimeEventOfType", "isTerminalEvent", "isTerminalStatus", "outcomeToStatus",
    "validateProtocolAgentEvent", "validateRuntimeEvent",
  ],
  types: [
    "BudgetExceededDetail", "HookAbandonedWarning", "ImagesDroppedWarning", "LateToolUpdateWarning",
    "ModelRequestTiming", "OverflowRecoveryWarning", "RetryWarning", "RuntimeWarningCode", "RuntimeWarningEvent",
    "RuntimeWarningPayload", "StepReport", "ToolCallTiming", "TurnReport", "TurnTiming", "TurnUsage",
    "DebugTraceEvent", "DebugTracePayload", "ErrorCode", "MessagePersistedEvent", "MessagePersistedPayload",
    "MessagePersistedReason", "ProtocolAgentEvent", "ProtocolAgentEventListener", "ProtocolAgentEventType",
    "ProtocolAgentEventValidation", "ProtocolAnyMessage", "ProtocolAssistantMessage",
    "ProtocolAssistantMessageDiagnostic", "ProtocolAssistantMessageEvent", "ProtocolAssistantMessageEventType",
    "ProtocolCustomMessage", "ProtocolDiagnosticError", "ProtocolImageContent", "ProtocolLlmMessage", "ProtocolMediaDescriptor",
    "ProtocolMessage", "ProtocolStopReason", "ProtocolTextContent", "ProtocolThinkingContent", "ProtocolToolCall",
    "ProtocolToolResultMessage", "ProtocolUsage", "ProtocolUsageCost", "ProtocolUserMessage", "RuntimeEvent",
    "RuntimeEventEnvelope", "RuntimeEventInit", "RuntimeEventPayloadMap", "RuntimeEventSchemaId",
    "RuntimeEventType", "RuntimeEventValidation", "SessionStatusEvent", "SessionStatusFailedPayload",
    "SessionStatusOkPayload", "SessionStatusPayload", "StreamChunk", "StreamChunkKind", "StreamFailedChunk",
    "StreamFinishChunk", "StreamFinishedChunk", "StreamRespEvent", "StreamRespPayload", "StreamTextChunk",
    "StreamThinkingChunk", "StreamToolCallChunk", "StreamToolCallResult", "TProtocolAgentEventSchemas",
    "TProtocolAnyMessage", "TProtocolAssistantMessage", "TProtocolAssistantMessageEvent",
    "TProtocolToolResultMessage", "TRuntimeEventSchemas", "TStreamChunk", "TerminalSessionStatusPayload",
    "TerminalStatusEvent", "TerminalTurnStatus", "ToolCallStatus", "TraceLevel", "TurnError", "TurnOutcome",
    "TurnOutcomeHandBack", "TurnOutcomeKind", "TurnStatus",
  ],
});
