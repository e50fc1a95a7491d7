import { ConfigErrorCode, TurnkitConfigError } from "@turnkit/agent-core";
import { assertRuntimeTool } from "@turnkit/agent-core/internal";
import { ExtensionConfigError, ExtensionConfigErrorCode } from "./extension-config-error.js";
import { DEFAULT_REMINDER_PRIORITY } from "./defaults.js";
import type {
  DisposeHandler,
  ExtensionAPI,
  PromptContribution,
  ReminderProvider,
  ToolContribution,
  WarningProvider,
} from "./extension-api.js";
import {
  type ExtensionEventHandlers,
  type ExtensionEventName,
  EXTENSION_EVENT_NAMES,
  isExtensionEventName,
} from "./extension-events.js";
import { ExtensionContributionError } from "./extension-contribution-error.js";
import { type Extension, assertExtension } from "./extension.js";
import { KeptTools } from "./kept-tools.js";

/** A reminder provider as registered, with its priority resolved. */
export interface RegisteredReminderProvider {
  /** The provider's id; non-empty and unique within its extension. */
  readonly id: string;
  /** The given priority, or `DEFAULT_REMINDER_PRIORITY`; always finite. */
  readonly priority: number;
  /** Calls the registered provider's `provide` with `this` the object that was registered; same contract. */
  readonly provide: ReminderProvider["provide"];
}

/** The handlers one extension registered, per event, in registration order. */
export type RegisteredHandlers = { readonly [E in ExtensionEventName]: readonly ExtensionEventHandlers[E][] };

/**
 * Everything one extension contributed during its init, in registration
 * order. Frozen once the init window closed.
 */
export interface ExtensionContributions {
  /** The extension's id. */
  readonly extensionId: string;
  /** The extension's `description`, or `undefined` when it has none. */
  readonly description: string | undefined;
  /** Static tools (validated, names unique within the extension) and tool factories. */
  readonly tools: readonly ToolContribution[];
  /** Parts of the system-prompt prefix. */
  readonly systemPrompt: readonly PromptContribution[];
  /** Parts of the user-prompt prefix. */
  readonly userPromptPrefix: readonly PromptContribution[];
  /** Reminder providers, ids unique within the extension. */
  readonly reminders: readonly RegisteredReminderProvider[];
  /** Per-turn warning providers. */
  readonly warnings: readonly WarningProvider[];
  /** Handlers per event; every event has a list, empty when nothing subscribed. */
  readonly handlers: RegisteredHandlers;
  /** Handlers registered with `api.onDispose`, in registration order. */
  readonly disposeHandlers: readonly DisposeHandler[];
}

/** Options of {@link Registry.initialize}. */
export interface RegistryOptions {
  /** Per-extension parameters, `params[id]` becoming that extension's `api.params`. */
  readonly params?: Readonly<Record<string, unknown>>;
}

/**
 * Runs each extension's `init(api)` and keeps what it contributed.
 *
 * Inits run one at a time, in the given order, each awaited before the next
 * starts, so init windows never overlap and contributions keep extension
 * order. Each extension gets its own {@link ExtensionAPI}, open only while
 * its own init runs; a call afterwards, or from another extension's init
 * through a captured reference, throws `ExtensionConfigError`
 * (`extension_init`) naming the extension, the method and (if any) the
 * extension whose init was running.
 *
 * Holds no enabled state: which extensions join a turn is the runtime's
 * business (`createAgentRuntime`).
 */
export class Registry {
  private constructor(
    private readonly byId: ReadonlyMap<string, ExtensionContributions>,
    /** Which tools each extension's assembled turns kept; `assembleTurnFromRegistry` records, `api.keptTools` reads. */
    readonly keptTools: KeptTools,
  ) {}

  /**
   * Initialises `extensions` in order and resolves to the registry.
   * Rejects with `ExtensionConfigError` (`extension_init`) at the first init
   * that throws or rejects, naming that extension, with the original error
   * as `cause`; later extensions are not initialised, and the dispose
   * handlers of those already initialised (the failing one included) run
   * before the rejection. Rejects with `invalid_extension_id` for a
   * malformed extension or a repeated id, before any init runs.
   */
  static async initialize(extensions: readonly Extension[], options: RegistryOptions = {}): Promise<Registry> {
    const seen = new Set<string>();
    extensions.forEach((extension, index) => {
      assertExtension(extension, `extensions[${index}]`);
      if (seen.has(extension.id)) {
        throw new ExtensionConfigError(
          ExtensionConfigErrorCode.InvalidExtensionId,
          `Registry: extension id "${extension.id}" appears more than once`,
        );
      }
      seen.add(extension.id);
    });
    const window: InitWindow = { current: undefined };
    const keptTools = new KeptTools();
    const byId = new Map<string, ExtensionContributions>();
    const disposers: (() => Promise<void>)[] = [];
    for (const extension of extensions) {
      const params =
        options.params !== undefined && Object.hasOwn(options.params, extension.id)
          ? options.params[extension.id]
          : undefined;
      try {
        byId.set(extension.id, await initialiseOne(extension, params, window, disposers, keptTools));
      } catch (error) {
        // Nothing an extension started may outlive a runtime that was never built.
        for (const dispose of disposers.reverse()) await dispose().catch(() => {});
        throw error;
      }
    }
    return new Registry(byId, keptTools);
  }

  /**
   * Runs every dispose handler once, in reverse extension order (and reverse
   * registration order within one), each awaited before the next. A second
   * call returns the first call's promise. Every handler runs even when one
   * fails; then the promise rejects with `ExtensionContributionError`
   * (`dispose`) for the first failure in run order, original error as `cause`.
   */
  dispose(): Promise<void> {
    this.disposed ??= disposeAll([...this.byId.values()].reverse());
    return this.disposed;
  }

  private disposed: Promise<void> | undefined;

  /** The initialised extensions' ids, in order. */
  get ids(): readonly string[] {
    return [...this.byId.keys()];
  }

  /** What extension `id` contributed, or `undefined` for an id this registry does not hold. */
  contributionsOf(id: string): ExtensionContributions | undefined {
    return this.byId.get(id);
  }
}

/** Which extension's init is running, shared by one registry's APIs. */
interface InitWindow {
  current: string | undefined;
}

async function disposeAll(extensions: readonly ExtensionContributions[]): Promise<void> {
  let failure: ExtensionContributionError | undefined;
  for (const extension of extensions) {
    for (const handler of [...extension.disposeHandlers].reverse()) {
      try {
        await handler();
      } catch (error) {
        const id = extension.extensionId;
        failure ??= new ExtensionContributionError(
          id,
          "dispose",
          `extension "${id}": dispose handler failed: ${errorText(error)}`,
          { cause: error },
        );
      }
    }
  }
  if (failure) throw failure;
}

/**
 * `disposers` collects, across extensions and in registration order, the
 * handlers that must run if a later init fails.
 */
async function initialiseOne(
  extension: Extension,
  params: unknown,
  window: InitWindow,
  disposers: (() => Promise<void>)[],
  keptTools: KeptTools,
): Promise<ExtensionContributions> {
  const id = extension.id;
  let open = true;
  const tools: ToolContribution[] = [];
  const staticToolNames = new Set<string>();
  const systemPrompt: PromptContribution[] = [];
  const userPromptPrefix: PromptContribution[] = [];
  const reminders: RegisteredReminderProvider[] = [];
  const warnings: WarningProvider[] = [];
  const disposeHandlers: DisposeHandler[] = [];
  const handlers = Object.fromEntries(EXTENSION_EVENT_NAMES.map((event) => [event, [] as unknown[]])) as unknown as {
    [E in ExtensionEventName]: ExtensionEventHandlers[E][];
  };

  const guard = (method: string): void => {
    if (open && window.current === id) return;
    const during =
      window.current === undefined ? "" : ` (it was called during the init of extension "${window.current}")`;
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.ExtensionInit,
      `extension "${id}": api.${method}() was called outside its init window${during}; an ExtensionAPI works only while its own extension's init runs`,
    );
  };
  const fail = (method: string, problem: string): never => {
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.ExtensionInit,
      `extension "${id}": api.${method}(): ${problem}`,
    );
  };

  const api: ExtensionAPI = {
    extensionId: id,
    params,
    keptTools: (ctx) => keptTools.of(id, ctx),
    registerTool(tool) {
      guard("registerTool");
      if (typeof tool === "function") {
        tools.push(tool);
        return;
      }
      assertRuntimeTool(tool, `extension "${id}": api.registerTool()`);
      if (staticToolNames.has(tool.def.name)) {
        throw new TurnkitConfigError(
          ConfigErrorCode.DuplicateTool,
          `extension "${id}" registers tool "${tool.def.name}" twice`,
        );
      }
      staticToolNames.add(tool.def.name);
      tools.push(tool);
    },
    contributeSystemPrompt(part) {
      guard("contributeSystemPrompt");
      if (typeof part !== "string" && typeof part !== "function")
        fail("contributeSystemPrompt", `expected text or a function, got ${typeof part}`);
      systemPrompt.push(part);
    },
    contributeUserPromptPrefix(part) {
      guard("contributeUserPromptPrefix");
      if (typeof part !== "string" && typeof part !== "function")
        fail("contributeUserPromptPrefix", `expected text or a function, got ${typeof part}`);
      userPromptPrefix.push(part);
    },
    registerReminderProvider(provider) {
      guard("registerReminderProvider");
      if (typeof provider !== "object" || provider === null)
        return fail("registerReminderProvider", "expected { id, priority?, provide(ctx) }");
      const { id: providerId, priority = DEFAULT_REMINDER_PRIORITY, provide } = provider;
      if (typeof providerId !== "string" || providerId.length === 0)
        fail("registerReminderProvider", "the provider needs a non-empty id");
      if (typeof provide !== "function")
        fail("registerReminderProvider", `provider "${providerId}" has no provide(ctx) function`);
      if (typeof priority !== "number" || !Number.isFinite(priority))
        fail("registerReminderProvider", `provider "${providerId}" has a priority that is not a finite number`);
      if (reminders.some((existing) => existing.id === providerId))
        fail(
          "registerReminderProvider",
          `reminder provider id "${providerId}" is already registered by this extension`,
        );
      reminders.push({ id: providerId, priority, provide: (ctx) => provide.call(provider, ctx) });
    },
    registerWarningProvider(provider) {
      guard("registerWarningProvider");
      if (typeof provider !== "function")
        fail("registerWarningProvider", `expected a function (ctx) => warnings, got ${typeof provider}`);
      warnings.push(provider);
    },
    on(event, handler) {
      guard("on");
      if (!isExtensionEventName(event))
        fail("on", `unknown event ${JSON.stringify(event)}; known events: ${EXTENSION_EVENT_NAMES.join(", ")}`);
      if (typeof handler !== "function") fail("on", `the handler for "${event}" must be a function`);
      (handlers[event] as unknown[]).push(handler);
    },
    onDispose(handler) {
      guard("onDispose");
      if (typeof handler !== "function")
        fail("onDispose", `the dispose handler must be a function, got ${typeof handler}`);
      const once = onceHandler(handler);
      disposeHandlers.push(once);
      disposers.push(once);
    },
  };

  window.current = id;
  try {
    await extension.init(api);
  } catch (error) {
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.ExtensionInit,
      `extension "${id}" failed to initialise: ${errorText(error)}`,
      { cause: error },
    );
  } finally {
    open = false;
    window.current = undefined;
  }

  for (const event of EXTENSION_EVENT_NAMES) Object.freeze(handlers[event]);
  return Object.freeze({
    extensionId: id,
    description: extension.description,
    tools: Object.freeze(tools),
    systemPrompt: Object.freeze(systemPrompt),
    userPromptPrefix: Object.freeze(userPromptPrefix),
    reminders: Object.freeze(reminders),
    warnings: Object.freeze(warnings),
    handlers: Object.freeze(handlers),
    disposeHandlers: Object.freeze(disposeHandlers),
  });
}

/** The handler, run at most once however often it is called (async throws become rejections). */
function onceHandler(handler: DisposeHandler): () => Promise<void> {
  let run: Promise<void> | undefined;
  return () => (run ??= Promise.resolve().then(() => handler()));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
