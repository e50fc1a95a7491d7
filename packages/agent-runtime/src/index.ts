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
export type {
  AssembledReminder,
  AssembledTurn,
  AssemblyDiagnostic,
  ExtensionContributionSummary,
} from "./assembled-turn.js";

// Errors and defaults
export { ExtensionConfigError, ExtensionConfigErrorCode } from "./extension-config-error.js";
export {
  EXTENSION_CONTRIBUTION_FAILED,
  ExtensionContributionError,
  type ContributionKind,
} from "./extension-contribution-error.js";
export {
  DEFAULT_REMINDER_PRIORITY,
  MAX_EXTENSION_ID_LENGTH,
  PROMPT_PART_SEPARATOR,
  SYSTEM_REMINDER_TAG,
} from "./defaults.js";
