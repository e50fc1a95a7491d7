/**
 * `@turnkit/protocol`: the vocabulary a host consumes. Every public name is
 * listed here on purpose; `test/public-surface.test.ts` fails when one is
 * added or removed without updating its expected list.
 */

// Turn outcomes, statuses and error codes
export { ErrorCode, ERROR_CODES, isErrorCode } from "./status-codes.js";
export type {
  BudgetExceededDetail,
  TurnError,
  TurnOutcome,
  TurnOutcomeHandBack,
  TurnOutcomeKind,
} from "./turn-outcome.js";
export {
  TURN_STATUSES,
  TERMINAL_STATUSES,
  isTerminalStatus,
  type TurnStatus,
  type TerminalTurnStatus,
} from "./turn-status.js";
export { outcomeToStatus } from "./outcome-to-status.js";

// What a turn reports about itself: usage, timing, per-step reports, warnings
export type { SubAgentCallReport, TurnReport } from "./turn-report.js";
export type { TurnUsage } from "./turn-usage.js";
export type { ModelRequestTiming, ToolCallTiming, TurnTiming } from "./turn-timing.js";
export type { StepReport } from "./step-report.js";
export {
  RuntimeWarningCode,
  RUNTIME_WARNING_CODES,
  type RuntimeWarningPayload,
  type RetryWarning,
  type ImagesDroppedWarning,
  type OverflowRecoveryWarning,
  type HookAbandonedWarning,
  type LateToolUpdateWarning,
  type ExtensionDegradedWarning,
  type ModelFallbackWarning,
  type SteeringDroppedWarning,
} from "./runtime-warning.js";
export { validateRuntimeWarning, type RuntimeWarningValidation } from "./runtime-warning-guard.js";
export {
  TurnUsageSchema,
  ModelRequestTimingSchema,
  ToolCallTimingSchema,
  TurnTimingSchema,
  StepReportSchema,
  BudgetExceededDetailSchema,
} from "./observability-schemas.js";

// Runtime events: what a turn pushes to the host's event writer
export type {
  ToolCallStatus,
  StreamTextChunk,
  StreamThinkingChunk,
  StreamToolCallResult,
  StreamToolCallChunk,
  StreamFinishedChunk,
  StreamFailedChunk,
  StreamFinishChunk,
  StreamChunk,
  StreamChunkKind,
} from "./stream-chunk.js";
export {
  RUNTIME_EVENT_SCHEMA,
  RUNTIME_EVENT_TYPES,
  type RuntimeEventSchemaId,
  type StreamRespPayload,
  type SessionStatusOkPayload,
  type SessionStatusFailedPayload,
  type SessionStatusPayload,
  type TerminalSessionStatusPayload,
  type TraceLevel,
  type DebugTracePayload,
  type MessagePersistedReason,
  type MessagePersistedPayload,
  type RuntimeEventPayloadMap,
  type RuntimeEventType,
  type RuntimeEventEnvelope,
  type RuntimeEvent,
  type StreamRespEvent,
  type SessionStatusEvent,
  type DebugTraceEvent,
  type MessagePersistedEvent,
  type RuntimeWarningEvent,
  type TerminalStatusEvent,
} from "./runtime-event.js";
export type { EventOrigin, SubAgentStep } from "./event-origin.js";
export { createRuntimeEvent, type RuntimeEventInit } from "./create-runtime-event.js";
export type {
  ActionAnswer,
  ActionAnswerMap,
  ActionRequiredKind,
  ActionRequiredPayload,
  ElicitationAnswer,
  ElicitationRequiredPayload,
  ToolApprovalAnswer,
  ToolApprovalRequiredPayload,
} from "./action-required.js";
export { validateActionAnswer, type ActionAnswerValidation } from "./action-answer-guard.js";
export { validateActionRequired, type ActionRequiredValidation } from "./action-required-guard.js";

// Runtime events: schemas and guards for values received from outside
export {
  ErrorCodeSchema,
  TurnErrorSchema,
  ToolCallStatusSchema,
  StreamChunkSchema,
  StreamRespPayloadSchema,
  SessionStatusPayloadSchema,
  DebugTracePayloadSchema,
  MessagePersistedPayloadSchema,
  RuntimeWarningPayloadSchema,
  ActionRequiredPayloadSchema,
  ToolApprovalRequiredPayloadSchema,
  ElicitationRequiredPayloadSchema,
  ToolApprovalAnswerSchema,
  ElicitationAnswerSchema,
  EventOriginSchema,
  SubAgentCallReportSchema,
  RuntimeEventSchemas,
  RuntimeEventSchema,
  type TStreamChunk,
  type TRuntimeEventSchemas,
} from "./runtime-event-schema.js";
export {
  isRuntimeEvent,
  isRuntimeEventOfType,
  isTerminalEvent,
  validateRuntimeEvent,
  type RuntimeEventValidation,
} from "./runtime-event-guards.js";

// Messages and content blocks: a structural mirror of pi-ai's
export type {
  ProtocolTextContent,
  ProtocolThinkingContent,
  ProtocolImageContent,
  ProtocolMediaDescriptor,
  ProtocolToolCall,
  ProtocolUsage,
  ProtocolUsageCost,
  ProtocolStopReason,
  ProtocolDiagnosticError,
  ProtocolAssistantMessageDiagnostic,
} from "./content-blocks.js";
export { RAW_TOOL_ARGUMENTS_KEY } from "./content-blocks.js";
export {
  LLM_MESSAGE_ROLES,
  isProtocolLlmMessage,
  type ProtocolUserMessage,
  type ProtocolAssistantMessage,
  type ProtocolToolResultMessage,
  type ProtocolLlmMessage,
  type ProtocolCustomMessage,
  type ProtocolMessage,
  type ProtocolAnyMessage,
} from "./messages.js";
export {
  ProtocolTextContentSchema,
  ProtocolThinkingContentSchema,
  ProtocolImageContentSchema,
  ProtocolMediaDescriptorSchema,
  ProtocolToolCallSchema,
  ProtocolUsageSchema,
  ProtocolStopReasonSchema,
  ProtocolAssistantMessageDiagnosticSchema,
  ProtocolUserMessageSchema,
  ProtocolAssistantMessageSchema,
  ProtocolToolResultMessageSchema,
  ProtocolLlmMessageSchema,
  ProtocolCustomMessageSchema,
  ProtocolAnyMessageSchema,
  type TProtocolAssistantMessage,
  type TProtocolToolResultMessage,
  type TProtocolAnyMessage,
} from "./message-schemas.js";

// The loop's events: a structural mirror of the loop's AgentEvent, with schemas and guards
export type { ProtocolAssistantMessageEvent, ProtocolAssistantMessageEventType } from "./assistant-message-event.js";
export {
  PROTOCOL_AGENT_EVENT_TYPES,
  type ProtocolAgentEvent,
  type ProtocolAgentEventType,
  type ProtocolAgentEventListener,
} from "./agent-event.js";
export {
  ProtocolAssistantMessageEventSchema,
  ProtocolAgentEventSchemas,
  ProtocolAgentEventSchema,
  type TProtocolAssistantMessageEvent,
  type TProtocolAgentEventSchemas,
} from "./agent-event-schema.js";
export {
  isProtocolAgentEvent,
  validateProtocolAgentEvent,
  type ProtocolAgentEventValidation,
} from "./agent-event-guard.js";
