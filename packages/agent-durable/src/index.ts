export { DurableTurnWorker, type DurableTurnWorkerOptions } from "./durable-turn-worker.js";
export { DurableTurnClient, type DurableTurnsConnection, type DurableTurnStatus } from "./durable-turn-client.js";
export type { FollowOptions } from "./reading/follow-log.js";
export { DurableTurnError, DurableTurnErrorCode } from "./errors.js";
export { type DurableTurnRequest, type DurableTurnRef, type TurnAddress, turnRef } from "./turn/turn-request.js";
export type { BuildDurableTurn, DurableTurnSetup } from "./turn/durable-turn-setup.js";
export {
  durableTool,
  idempotencyKeyOf,
  type DurableRuntimeTool,
  type DurableToolExecutionContext,
  type ToolReplayPolicy,
} from "./steps/durable-tool.js";
export type { SteerAnswer, SteerRefusal } from "./store/steering-inbox.js";
export type { SessionPage, SessionSummary, SessionTurn, SessionTurnState } from "./store/session-catalog.js";
export { INTERRUPTED_TOOL_RESULT_TEXT } from "./steps/tool-call-step.js";
export { CANCELLED_TOOL_RESULT_TEXT } from "./store/cancelled-turn.js";
export type { DurableTurnHooks, DurableBeforeToolCallHook, DurableBeforeToolCallDecision } from "./steps/hook-steps.js";
export { approvalRequestId, type ApprovalDecision } from "./steps/approval-wait.js";
export {
  DEFAULT_APP_NAME,
  DEFAULT_APP_VERSION,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_QUEUE_NAME,
  DEFAULT_QUEUE_POLLING_INTERVAL_MS,
  DEFAULT_SCHEMA,
  DEFAULT_WORKER_CONCURRENCY,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_WORKER_LEASE_MS,
  MAX_SEQ,
} from "./defaults.js";
