export { createAgentRuntime, type AgentRuntime, type AgentRuntimeOptions, type EnabledScope } from "./agent-runtime.js";
export { assembleTurnFromRegistry } from "./assemble-turn.js";
export type { AssembledReminder, AssembledTurn, AssemblyDiagnostic, ExtensionContributionSummary } from "./assembled-turn.js";
export { DEFAULT_REMINDER_PRIORITY, MAX_EXTENSION_ID_LENGTH, PROMPT_PART_SEPARATOR, SYSTEM_REMINDER_TAG } from "./defaults.js";
export type { DisposeHandler, ExtensionAPI, PromptContribution, ReminderProvider, ToolContribution, ToolFactory } from "./extension-api.js";
export { EXTENSION_CONTRIBUTION_FAILED, ExtensionContributionError, type ContributionKind } from "./extension-contribution-error.js";
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
export { assertExtension, type Extension } from "./extension.js";
export { HOOK_MAPPINGS, type HookAdapterKind, type HookMapping, type MappedHookEventName } from "./hook-mappings.js";
export { Registry, type ExtensionContributions, type RegisteredHandlers, type RegisteredReminderProvider, type RegistryOptions } from "./registry.js";
export { resolveExtensions, type ResolveExtensionsOptions } from "./resolve-extensions.js";
export { wrapSystemReminder } from "./system-reminder.js";
export { toRunTurnInput, type HookOrder, type HostTurnInputs, type ToRunTurnInputOptions } from "./to-run-turn-input.js";
export type { TurnContext, TurnEndEvent } from "./turn-context.js";
