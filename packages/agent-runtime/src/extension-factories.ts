import { assertRuntimeTool } from "@turnkit/agent-core/internal";
import { ExtensionConfigError, ExtensionConfigErrorCode, assertOptionsObject } from "./extension-config-error.js";
import type { ExtensionAPI, PromptContribution, ReminderProvider, ToolContribution } from "./extension-api.js";
import {
  type ExtensionEventName,
  type ExtensionHookTable,
  EXTENSION_EVENT_NAMES,
  isExtensionEventName,
} from "./extension-events.js";
import { assertExtensionId } from "./extension-id.js";
import type { Extension } from "./extension.js";

/** Fields every factory takes. */
export interface ExtensionIdentity {
  /** Unique within a runtime; matches `EXTENSION_ID_PATTERN`. */
  readonly id: string;
  /** One line for diagnostics and listings; becomes the extension's `description`. */
  readonly description?: string;
}

/** One item or an ordered list. */
export type OneOrMany<T> = T | readonly T[];

/** Options of {@link createExtension}: any mix of declarative contributions plus an optional `init`. */
export interface CreateExtensionOptions<TParams = unknown> extends ExtensionIdentity {
  /** Static tools and per-turn tool factories. */
  readonly tools?: OneOrMany<ToolContribution>;
  /** Handlers by event name, each one handler or a list. */
  readonly hooks?: ExtensionHookTable;
  /** Parts of the system-prompt prefix, text or functions of the turn, registered in order. */
  readonly systemPrompt?: OneOrMany<PromptContribution>;
  /** Parts of the prefix of the user's message text, registered in order. */
  readonly userPromptPrefix?: OneOrMany<PromptContribution>;
  /**
   * Reminder providers, registered in order. A missing `provide` throws
   * here; an empty or repeated id, or a priority that is not finite, fails
   * the extension's init.
   */
  readonly reminders?: readonly ReminderProvider[];
  /** Runs after the declarative contributions are registered, inside the same init window. */
  readonly init?: (api: ExtensionAPI<TParams>) => void | Promise<void>;
}

/**
 * Builds an extension from declarative parts, saving the `init`
 * boilerplate. Registration order inside the extension: tools, system
 * prompt, user prompt prefix, reminders, hooks (in `hooks`' key order, each
 * list in order), then whatever `init` adds.
 *
 * Checks eagerly and throws: `ExtensionConfigError` `invalid_extension_id`
 * for a bad id; `TurnkitConfigError` `invalid_tool` for an invalid static
 * tool; `ExtensionConfigError` `extension_init`
 * for an unknown hook event, a non-function handler or `init`, or a
 * reminder without `provide`. The options are read once, here; later
 * changes to them have no effect.
 */
export function createExtension<TParams = unknown>(options: CreateExtensionOptions<TParams>): Extension<TParams> {
  assertOptionsObject(options, "createExtension");
  const { id, description } = options;
  assertExtensionId(id, "createExtension");
  const where = `createExtension("${id}")`;
  const tools = listOf(options.tools);
  const systemPrompt = listOf(options.systemPrompt);
  const userPromptPrefix = listOf(options.userPromptPrefix);
  const reminders = [...(options.reminders ?? [])];
  const hooks = hookEntries(options.hooks, where);
  const init = options.init;

  tools.forEach((tool, index) => {
    if (typeof tool !== "function") assertRuntimeTool(tool, `${where}: tools[${index}]`);
  });
  for (const [field, parts] of [
    ["systemPrompt", systemPrompt],
    ["userPromptPrefix", userPromptPrefix],
  ] as const) {
    parts.forEach((part, index) => {
      if (typeof part !== "string" && typeof part !== "function")
        configError(`${where}: ${field}[${index}] must be text or a function`);
    });
  }
  reminders.forEach((reminder, index) => {
    if (typeof reminder?.provide !== "function")
      configError(`${where}: reminders[${index}] has no provide(ctx) function`);
  });
  if (init !== undefined && typeof init !== "function") configError(`${where}: init must be a function`);

  return {
    id,
    ...(description !== undefined && { description }),
    async init(api: ExtensionAPI<TParams>) {
      for (const tool of tools) api.registerTool(tool);
      for (const part of systemPrompt) api.contributeSystemPrompt(part);
      for (const part of userPromptPrefix) api.contributeUserPromptPrefix(part);
      for (const reminder of reminders) api.registerReminderProvider(reminder);
      for (const [event, handler] of hooks) api.on(event, handler as never);
      if (init) await init(api);
    },
  };
}

/** Options of {@link createToolExtension}. */
export interface CreateToolExtensionOptions extends ExtensionIdentity {
  /** Static tools and/or per-turn tool factories. */
  readonly tools: OneOrMany<ToolContribution>;
}

/** An extension that only contributes tools (a tool pack). Throws like {@link createExtension}. */
export function createToolExtension(options: CreateToolExtensionOptions): Extension {
  assertOptionsObject(options, "createToolExtension");
  return createExtension({ id: options?.id, description: options?.description, tools: options?.tools });
}

/** Options of {@link createHookExtension}. */
export interface CreateHookExtensionOptions extends ExtensionIdentity {
  /** Handlers by event name (`before_tool_call`, `on_step_end`, `turn_end`, ...), each one handler or a list. */
  readonly hooks: ExtensionHookTable;
}

/** An extension that only handles events (a permission check, a compaction hook, a logger). Throws like {@link createExtension}. */
export function createHookExtension(options: CreateHookExtensionOptions): Extension {
  assertOptionsObject(options, "createHookExtension");
  return createExtension({ id: options?.id, description: options?.description, hooks: options?.hooks });
}

/** Options of {@link createPromptExtension}; at least one of the two prompt fields. */
export interface CreatePromptExtensionOptions extends ExtensionIdentity {
  /** Parts of the system-prompt prefix, text or functions of the turn, registered in order. */
  readonly systemPrompt?: OneOrMany<PromptContribution>;
  /** Parts of the prefix of the user's message text, registered in order. */
  readonly userPromptPrefix?: OneOrMany<PromptContribution>;
}

/**
 * An extension that only adds prompt text: to the system-prompt prefix, the
 * user-prompt prefix, or both. Throws `extension_init` when given neither;
 * otherwise like {@link createExtension}.
 */
export function createPromptExtension(options: CreatePromptExtensionOptions): Extension {
  assertOptionsObject(options, "createPromptExtension");
  if (options?.systemPrompt === undefined && options?.userPromptPrefix === undefined) {
    assertExtensionId(options?.id, "createPromptExtension");
    configError(`createPromptExtension("${options.id}"): give systemPrompt, userPromptPrefix or both`);
  }
  return createExtension({
    id: options.id,
    description: options.description,
    systemPrompt: options.systemPrompt,
    userPromptPrefix: options.userPromptPrefix,
  });
}

/** Options of {@link createReminderExtension}. */
export interface CreateReminderExtensionOptions extends ExtensionIdentity {
  /** See `ReminderProvider.priority`; default `DEFAULT_REMINDER_PRIORITY`. */
  readonly priority?: number;
  /**
   * The reminder's text for each turn; the contract of
   * `ReminderProvider.provide`. Missing throws here. It is not called with
   * the options object as `this`: pass an arrow or a bound function.
   */
  readonly provide: ReminderProvider["provide"];
}

/**
 * An extension with one reminder provider, whose provider id is the
 * extension id. Throws like {@link createExtension}.
 */
export function createReminderExtension(options: CreateReminderExtensionOptions): Extension {
  assertOptionsObject(options, "createReminderExtension");
  const reminder: ReminderProvider = { id: options?.id, provide: options?.provide };
  if (options?.priority !== undefined) reminder.priority = options.priority;
  return createExtension({ id: options?.id, description: options?.description, reminders: [reminder] });
}

function listOf<T>(value: OneOrMany<T> | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}

function hookEntries(hooks: ExtensionHookTable | undefined, where: string): [ExtensionEventName, unknown][] {
  if (hooks === undefined) return [];
  if (typeof hooks !== "object" || hooks === null) configError(`${where}: hooks must be an object keyed by event name`);
  const entries: [ExtensionEventName, unknown][] = [];
  for (const [event, value] of Object.entries(hooks)) {
    if (!isExtensionEventName(event))
      configError(`${where}: unknown hook event "${event}"; known events: ${EXTENSION_EVENT_NAMES.join(", ")}`);
    for (const handler of listOf(value as OneOrMany<unknown>)) {
      if (typeof handler !== "function") configError(`${where}: the handler for "${event}" must be a function`);
      entries.push([event, handler]);
    }
  }
  return entries;
}

function configError(message: string): never {
  throw new ExtensionConfigError(ExtensionConfigErrorCode.ExtensionInit, message);
}
