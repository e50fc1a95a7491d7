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
  hookArray,
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
export {
  composeStreamFn,
  withCacheRetention,
  withFetch,
  withHeaders,
  withHostMaxOutputTokens,
  withMaxTokens,
  withRequestTimeout,
  type StreamFnOptionsWithFetch,
} from "./call-stack/option-layers.js";
export {
  resolveStreamTimeouts,
  withStreamTimeouts,
  type StreamTimeoutOptions,
  type StreamTimeouts,
} from "./call-stack/stream-timeouts.js";
export { LlmTimeoutError, type LlmTimeoutKind } from "./call-stack/stream-errors.js";
export {
  resolveLlmRetryPolicy,
  withLlmRetry,
  type LlmRetryDependencies,
  type LlmRetryPolicy,
} from "./call-stack/llm-retry.js";
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
// Agent events to runtime events, for hosts that drive their own loop.
export { EventBridge, type BridgeOutput, type MessageIdAllocator } from "./event-bridge/event-bridge.js";
export type { EventWriter } from "./event-bridge/serial-event-queue.js";

// ---------------------------------------------------------------- messages/
// What a turn adds to a transcript, and what a request sends of it.
export {
  MIN_IMAGE_DIMENSION_PX,
  projectAgentMessagesForModel,
  type ProjectMessagesOptions,
} from "./messages/project-messages.js";
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
  assertRuntimeTool,
  assertRuntimeToolDef,
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
  boundToolDef,
  toRuntimeTool,
  type BoundToolClass,
  type BoundToolInstance,
} from "./tools/bind-tool.js";
export { BUILTIN_FALLBACK_TOOL_NAMES, newTools, type NewToolsOptions } from "./tools/new-tools.js";
export {
  BUILTIN_TOOL_NAMES,
  createBuiltinTools,
  type BuiltinToolName,
  type BuiltinToolsOptions,
} from "./tools/builtin/builtin-tools.js";
export { resolveWorkspacePath, type WorkspacePath } from "./tools/builtin/workspace-path.js";

// ---------------------------------------------------------------- bash-env.ts
// The environment the built-in `bash` tool's commands get.
export {
  BASH_ENV_SCRUB_DENYLIST,
  DEFAULT_BASH_ENV_BOUNDARY_NAMES,
  DEFAULT_BASH_ENV_BOUNDARY_PREFIXES,
  createBashEnvSpawnHook,
  resolveBashEnvSanitizeMode,
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
  type PromptReadScope,
  type PromptSnapshotSource,
} from "./prompt-read.js";

// ---------------------------------------------------------------- errors.ts, clock.ts
export { ConfigErrorCode, TurnkitConfigError, TurnkitError } from "./errors.js";
export { assertKnownKeys, type AssertKnownKeysOptions } from "./known-keys.js";
export { sleep, systemClock, type Clock, type RandomSource } from "./clock.js";

// ---------------------------------------------------------------- defaults.ts
// Every default a user can observe, as a named constant.
export {
  AFTER_LLM_HOOK_MAX_RETRIES,
  AGENT_TOOL_EXECUTION,
  BASH_DEFAULT_TIMEOUT_MS,
  BASH_ENV_SANITIZE_ENV,
  BASH_ENV_SANITIZE_MODE,
  BASH_ENV_SANITIZE_MODE_IN_CI,
  BASH_KILL_GRACE_MS,
  BASH_MAX_OUTPUT_BYTES,
  BASH_MAX_TIMEOUT_MS,
  FOLLOW_UP_MODE,
  GLOB_DEFAULT_MAX_RESULTS,
  GREP_DEFAULT_MAX_MATCHES,
  GREP_MAX_FILE_BYTES,
  LLM_FIRST_EVENT_TIMEOUT_ENV,
  LLM_FIRST_EVENT_TIMEOUT_MS,
  LLM_REQUEST_TIMEOUT_MS,
  LLM_RETRY_BASE_DELAY_MS,
  LLM_RETRY_MAX_DELAY_MS,
  LLM_RETRY_MAX_ELAPSED_MS,
  LLM_RETRY_MAX_RETRIES,
  LLM_STREAM_IDLE_TIMEOUT_ENV,
  LLM_STREAM_IDLE_TIMEOUT_MS,
  MAX_IMAGES_PER_REQUEST,
  MAX_LINE_CHARS,
  PROMPT_READ_REGISTRY_CAPACITY,
  READ_MAX_BYTES,
  READ_MAX_IMAGE_BYTES,
  READ_MAX_LINES,
  RUNTIME_TOOL_EXECUTION_MODE,
  STEERING_MODE,
  WALK_SKIPPED_DIRECTORIES,
} from "./defaults.js";
