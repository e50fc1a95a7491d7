/**
 * The public surface of `@turnkit/agent-runtime`: every value and type
 * its entry exports. A name added, removed or retyped fails this test until
 * the lists below and the README say so, so the API changes only on purpose.
 */
import { describePublicSurface } from "../../../scripts/public-surface-test.js";

describePublicSurface({
  specifier: "@turnkit/agent-runtime",
  entry: new URL("../src/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  readmeAlsoMentions: ["Promise", "RunTurnInput"],
  values: [
    "DEFAULT_REMINDER_PRIORITY", "EXTENSION_CONTRIBUTION_FAILED", "EXTENSION_EVENT_NAMES", "EXTENSION_ID_PATTERN",
    "ExtensionConfigError", "ExtensionConfigErrorCode", "ExtensionContributionError", "HOOK_MAPPINGS", "MAX_EXTENSION_ID_LENGTH", "PROMPT_PART_SEPARATOR", "Registry",
    "SYSTEM_REMINDER_TAG", "assembleTurnFromRegistry", "assertExtension", "assertExtensionId", "createAgentRuntime",
    "createExtension", "createHookExtension", "createPromptExtension", "createReminderExtension",
    "createToolExtension", "isExtensionEventName", "isValidExtensionId", "resolveExtensions", "toRunTurnInput",
    "wrapSystemReminder",
  ],
  types: [
    "AgentRuntime", "AgentRuntimeOptions", "AssembledReminder", "AssembledTurn", "AssemblyDiagnostic",
    "BoundTurnEndHandler", "BoundTurnStartHandler", "ContributionKind", "CreateExtensionOptions",
    "CreateHookExtensionOptions", "CreatePromptExtensionOptions", "CreateReminderExtensionOptions",
    "CreateToolExtensionOptions", "DisposeHandler", "EnabledScope", "Extension", "ExtensionAPI",
    "ExtensionConfigError", "ExtensionConfigErrorCode", "ExtensionContributionError", "ExtensionContributionSummary",
    "ExtensionContributions",
    "ExtensionEventHandlerList", "ExtensionEventHandlers", "ExtensionEventName", "ExtensionHookTable",
    "ExtensionIdentity", "ExtensionProfile", "HookAdapterKind", "HookMapping", "HookOrder", "HostTurnInputs",
    "MappedHookEventName", "MaybePromise", "OneOrMany", "PromptContribution", "RegisteredHandlers",
    "RegisteredReminderProvider", "Registry", "RegistryOptions", "ReminderProvider", "ResolveExtensionsOptions",
    "ToRunTurnInputOptions", "ToolContribution", "ToolFactory", "TurnContext", "TurnEndEvent",
  ],
});
