/**
 * `@turnkit/agent-core/internal`: building blocks the project's own
 * packages (the runtime, the durable and MCP layers, the fuzz, the
 * examples and the bench) share with the runner. Not part of the public
 * API: a name here may change or go in any release. Hosts import
 * `@turnkit/agent-core`.
 */

// Hook lists and input checks
export { hookArray } from "./pi-turn-runner/turn-hooks.js";
export { assertKnownKeys, type AssertKnownKeysOptions } from "./known-keys.js";
export { inputMessageProblem, messageProblem, saysNothing } from "./messages/content-checks.js";
export { sentImageType } from "./messages/image-limits.js";

// Time
export { sleep, systemClock } from "./clock.js";

// The call stack's single-option layers and resolved settings
export {
  withCacheRetention,
  withFetch,
  withHeaders,
  withHostMaxOutputTokens,
  withMaxTokens,
  withRequestTimeout,
  type StreamFnOptionsWithFetch,
} from "./call-stack/option-layers.js";
export { resolveStreamTimeouts, type StreamTimeouts } from "./call-stack/stream-timeouts.js";
export { resolveLlmRetryPolicy, type LlmRetryPolicy } from "./call-stack/llm-retry.js";
export {
  DEFAULT_MODEL_FALLBACK_TRIGGERS,
  fallbackTriggerOf,
  resolveModelFallback,
  withModelFallback,
  type ModelFallbackLayer,
  type ModelFallbackNotice,
  type ResolvedModelFallback,
} from "./call-stack/model-fallback.js";

// Agent events to runtime events, for code that drives its own loop
export { EventBridge, type BridgeOutput, type MessageIdAllocator } from "./event-bridge/event-bridge.js";

// The tool table
export { assertRuntimeTool, assertRuntimeToolDef } from "./tools/runtime-tool.js";
export { boundToolDef } from "./tools/bind-tool.js";
export { BUILTIN_FALLBACK_TOOL_NAMES, newTools, type NewToolsOptions } from "./tools/new-tools.js";
export { resolveWorkspacePath, type WorkspacePath } from "./tools/builtin/workspace-path.js";

// Asking the host from a tool call, for a layer that keeps the wait elsewhere (the durable layer)
export {
  callIdOccurrences,
  requestIdScope,
  toolCallAskHost,
  waitForActionAnswer,
  type ActionRequestTurn,
  type ActionRequestWait,
} from "./action-requests.js";

// The built-in bash tool's environment
export {
  BASH_ENV_SCRUB_DENYLIST,
  DEFAULT_BASH_ENV_BOUNDARY_NAMES,
  DEFAULT_BASH_ENV_BOUNDARY_PREFIXES,
  createBashEnvSpawnHook,
  resolveBashEnvSanitizeMode,
  sanitizeBashEnv,
  type BashEnvSpawnHook,
  type SanitizeBashEnvOptions,
  type SanitizedBashEnv,
} from "./bash-env.js";
