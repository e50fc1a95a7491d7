/**
 * `@turnkit/agent-core`: one agent run as one runtime turn (`PiTurnRunner`),
 * and the pieces a host composes itself. Every public name is listed here;
 * what is not listed (the turn's state, its event queue, the history cursor,
 * hook plumbing) is internal and may change at any time.
 */

// ---------------------------------------------------------------- pi-turn-runner/
// The runner, its options, the turn input and the hooks a turn runs.
export { PiTurnRunner } from "./pi-turn-runner/pi-turn-runner.js";
export type { PiTurnRunnerOptions, TurnLogger, TurnMetricsSink } from "./pi-turn-runner/runner-options.js";
export type { RunTurnInput, SteeringBoundary, TurnInputMessage } from "./pi-turn-runner/run-turn-input.js";
export type { TurnBudget } from "./turn-watch/turn-budget.js";
export { TRACER_NAME, type TurnTelemetryOptions } from "./turn-watch/turn-tracing.js";
export {
  type AfterLlmCallDecision,
  type AfterLlmCallEvent,
  type AfterLlmCallHook,
  type AfterToolCallEvent,
  type AfterToolCallHook,
  type AfterToolCallPatch,
  type BeforeLlmCallDecision,
  type BeforeLlmCallEvent,
  type BeforeLlmCallHook,
  type BeforeToolCallDecision,
  type BeforeToolCallHook,
  type HiddenContextInput,
  type HistoryChange,
  type HookList,
  type HookTurnContext,
  type LlmCallPreparedEvent,
  type LlmCallReason,
  type OnHistoryChangedHook,
  type OnLlmCallPreparedHook,
  type OnStepEndHook,
  type OnToolExecutionStartHook,
  type PiTurnHooks,
  type StepEndEvent,
  type ToolCallHookEvent,
} from "./pi-turn-runner/turn-hooks.js";

// ---------------------------------------------------------------- call-stack/
// The stream function a request goes through, wrapper by wrapper, for hosts
// that compose their own: options, timeouts, transport retry, overflow
// recovery, and the one place that classifies errors.
export type { AnyModel, StreamFn, StreamFnOptions } from "./call-stack/stream-fn.js";
export { createFailureMessage } from "./call-stack/stream-fn.js";
export type {
  LlmConfig,
  LlmRetryExhaustedReason,
  LlmRetryNotification,
  LlmRetryObserver,
  LlmRetryOptions,
} from "./call-stack/llm-config.js";
export type { LlmFallbackModel, LlmFallbackOptions, ModelFallbackTrigger } from "./call-stack/model-fallback.js";
export { composeStreamFn } from "./call-stack/option-layers.js";
export { withStreamTimeouts, type StreamTimeoutOptions } from "./call-stack/stream-timeouts.js";
export { LlmTimeoutError, type LlmTimeoutKind } from "./call-stack/stream-errors.js";
export { withLlmRetry, type LlmRetryDependencies } from "./call-stack/llm-retry.js";
export {
  createOverflowRecoveryState,
  withOverflowRecovery,
  type OverflowRecover,
  type OverflowRecoveryOptions,
  type OverflowRecoveryRequest,
  type OverflowRecoveryState,
} from "./call-stack/overflow-recovery.js";
export { classifyError, getAttachedClassifiedError, type ClassifiedError } from "./call-stack/classify-error.js";

// ---------------------------------------------------------------- event-bridge/
// What the runner writes a turn's events to, and the bridge from the loop's events to a turn's, for a host
// that drives its own loop.
export type { EventWriter } from "./event-bridge/serial-event-queue.js";
export { EventBridge, type BridgeOutput, type MessageIdAllocator } from "./event-bridge/event-bridge.js";

// ---------------------------------------------------------------- messages/
// What a turn adds to a transcript, and what a request sends of it.
export { projectAgentMessagesForModel, type ProjectMessagesOptions } from "./messages/project-messages.js";
export {
  DROPPED_RESPONSE_FIELD,
  createHiddenMessage,
  createUserMessage,
  isDroppedResponse,
  type HiddenContextMessage,
  type HostOnlyMessage,
  type TurnUserMessage,
  type UserMessageHostFields,
} from "./messages/turn-messages.js";

// ---------------------------------------------------------------- tools/
// The tool contract, its helpers, and the built-in tools.
export {
  type RuntimeTool,
  type RuntimeToolDef,
  type RuntimeToolImpl,
  type RuntimeToolResult,
  type RuntimeToolUpdateCallback,
  type ToolExecutionContext,
} from "./tools/runtime-tool.js";
export { defineRuntimeTool, type DefineRuntimeToolOptions } from "./tools/define-runtime-tool.js";
export {
  bindTool,
  toRuntimeTool,
  type BoundToolClass,
  type BoundToolInstance,
} from "./tools/bind-tool.js";
export {
  BUILTIN_TOOL_NAMES,
  createBuiltinTools,
  type BuiltinToolName,
  type BuiltinToolsOptions,
} from "./tools/builtin/builtin-tools.js";

// ---------------------------------------------------------------- action-requests.ts
// How code in a turn asks the host for what only a person can give (`ctx.askHost`, `RunTurnInput.answerActionRequest`).
export type {
  ActionRequest,
  ActionRequestAnswerer,
  ActionRequestOutcome,
  AskHost,
  AskHostOptions,
} from "./action-requests.js";

// ---------------------------------------------------------------- sub-agents/
// An agent offered to a turn as a tool, run as a child turn of the calling turn.
export {
  defineSubAgent,
  isSubAgentTool,
  SubAgentTaskParameters,
  type SubAgentCall,
  type SubAgentCallRunner,
  type SubAgentDefinition,
  type SubAgentResultDetails,
  type SubAgentTool,
} from "./sub-agents/define-sub-agent.js";

// ---------------------------------------------------------------- bash-env.ts
// How the built-in `bash` tool's commands get their environment (`PiTurnRunnerOptions.bashEnv`), and the same
// sanitising for a host's own tools that spawn processes.
export {
  createBashEnvSpawnHook,
  sanitizeBashEnv,
  type BashEnvSanitizeMode,
  type BashEnvSpawnHook,
  type BashEnvSpawnHookOptions,
  type SanitizeBashEnvOptions,
  type SanitizedBashEnv,
} from "./bash-env.js";

// ---------------------------------------------------------------- prompt-read.ts
// Which turns may read the prompt a turn was started with.
export {
  BoundedInternalTurnPromptReadRegistry,
  PromptReadErrorCode,
  type PromptReadResult,
  PromptReadScope,
  type PromptSnapshotSource,
} from "./prompt-read.js";

// ---------------------------------------------------------------- errors.ts, clock.ts
export { ConfigErrorCode, TurnkitConfigError, TurnkitError } from "./errors.js";
export type { Clock, RandomSource } from "./clock.js";

// ---------------------------------------------------------------- defaults.ts
// Every default a user can observe, in one frozen object.
export { TURN_DEFAULTS } from "./defaults.js";
