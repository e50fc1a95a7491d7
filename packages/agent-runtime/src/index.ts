/**
 * `@turnkit/agent-runtime`: extensions resolved, initialised and assembled
 * into each turn's `RunTurnInput`. Every public name is listed here on
 * purpose; `test/public-surface.test.ts` fails when one is added or removed
 * without updating its expected list.
 */

// The runtime a host holds
export { createAgentRuntime, type AgentRuntime, type AgentRuntimeOptions, type EnabledScope } from "./agent-runtime.js";
export {
  toRunTurnInput,
  type HookOrder,
  type HostTurnInputs,
  type ToRunTurnInputOptions,
} from "./to-run-turn-input.js";
export type { TurnContext, TurnEndEvent } from "./turn-context.js";

// Writing extensions
export { assertExtension, type Extension } from "./extension.js";
export type {
  DisposeHandler,
  ExtensionAPI,
  PromptContribution,
  ReminderProvider,
  ToolContribution,
  ToolFactory,
  TurnWarning,
  WarningProvider,
} from "./extension-api.js";
export {
  createExtension,
  createHookExtension,
  createPromptExtension,
  createReminderExtension,
  createToolExtension,
  type CreateExtensionOptions,
  type CreateHookExtensionOptions,
  type CreatePromptExtensionOptions,
  type CreateReminderExtensionOptions,
  type CreateToolExtensionOptions,
  type ExtensionIdentity,
  type OneOrMany,
} from "./extension-factories.js";
export { createSubAgentExtension, type CreateSubAgentExtensionOptions } from "./sub-agent-extension.js";
export { EXTENSION_ID_PATTERN, assertExtensionId, isValidExtensionId } from "./extension-id.js";
export type { ExtensionProfile } from "./extension-profile.js";

// The event vocabulary: extension events and the turn hooks they map to
export {
  EXTENSION_EVENT_NAMES,
  isExtensionEventName,
  type BoundTurnEndHandler,
  type BoundTurnStartHandler,
  type ExtensionEventHandlerList,
  type ExtensionEventHandlers,
  type ExtensionEventName,
  type ExtensionHookTable,
  type MaybePromise,
} from "./extension-events.js";
export { HOOK_MAPPINGS, type HookAdapterKind, type HookMapping, type MappedHookEventName } from "./hook-mappings.js";
export { wrapSystemReminder } from "./system-reminder.js";

// The steps of createAgentRuntime, for hosts that compose their own
export { resolveExtensions, type ResolveExtensionsOptions } from "./resolve-extensions.js";
export {
  Registry,
  type ExtensionContributions,
  type RegisteredHandlers,
  type RegisteredReminderProvider,
  type RegistryOptions,
} from "./registry.js";
export { assembleTurnFromRegistry } from "./assemble-turn.js";
export { ToolsInUse } from "./tools-in-use.js";
export type { KeptTools } from "./kept-tools.js";
export type { LeftOutTool } from "./tool-clashes.js";
export type {
  AssembledReminder,
  AssembledTurn,
  AssemblyDiagnostic,
  ExtensionContributionSummary,
} from "./assembled-turn.js";

// Compaction: a model summary of older history before it outgrows the context window
export { createCompactionExtension } from "./compaction/compaction-extension.js";
export type { CompactionNotice, CompactionOptions } from "./compaction/compaction-options.js";
export type { CompactionReason, CompactionRecord } from "./compaction/compaction-record.js";
export { findCompactionCut, type CompactionCut, type FindCompactionCutOptions } from "./compaction/compaction-cut.js";
export {
  estimateContextTokens,
  estimateMessageTokens,
  type ContextTokenEstimate,
} from "./compaction/token-estimate.js";

// Errors and defaults
export { ExtensionConfigError, ExtensionConfigErrorCode } from "./extension-config-error.js";
export {
  EXTENSION_CONTRIBUTION_FAILED,
  ExtensionContributionError,
  type ContributionKind,
} from "./extension-contribution-error.js";
export {
  COMPACTION_KEEP_RECENT_TOKENS,
  COMPACTION_RECORD_KIND,
  COMPACTION_RESERVE_TOKENS,
  COMPACTION_SUMMARY_CHAIN_MAX_TOKENS,
  COMPACTION_SUMMARY_INPUT_SHARE,
  COMPACTION_SUMMARY_MAX_TOKENS,
  COMPACTION_SUMMARY_SOURCE,
  COMPACTION_SUMMARY_SYSTEM_PROMPT,
  COMPACTION_TOOL_RESULT_MAX_CHARS,
  DEFAULT_COMPACTION_PROMPT,
  DEFAULT_REMINDER_PRIORITY,
  ESTIMATE_CHARS_PER_TOKEN,
  ESTIMATE_IMAGE_TOKENS,
  MAX_EXTENSION_ID_LENGTH,
  PROMPT_PART_SEPARATOR,
  SYSTEM_REMINDER_TAG,
} from "./defaults.js";
