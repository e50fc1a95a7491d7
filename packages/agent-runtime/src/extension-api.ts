import type { RuntimeTool } from "@turnkit/agent-core";
import type { ExtensionEventHandlers, ExtensionEventName, MaybePromise } from "./extension-events.js";
import type { TurnContext } from "./turn-context.js";

/**
 * Builds an extension's tools for one turn. Called once per `assembleTurn`
 * in which the extension is enabled, concurrently with the other
 * contributions. Return one tool, a list, or nothing (`undefined`, `null`,
 * `[]`) to contribute none this turn. A throw or rejection fails the
 * assembly (`ExtensionContributionError`); an invalid tool fails it with
 * `invalid_tool`.
 */
export type ToolFactory = (ctx: TurnContext) => MaybePromise<RuntimeTool | readonly RuntimeTool[] | null | undefined>;

/** A static tool, bound to every turn, or a {@link ToolFactory}. */
export type ToolContribution = RuntimeTool | ToolFactory;

/**
 * A prompt part: fixed text, or a function of the turn returning text. Parts
 * are trimmed; empty results (`""`, whitespace, `undefined`, `null`) are
 * skipped. A throw or rejection fails the assembly.
 */
export type PromptContribution = string | ((ctx: TurnContext) => MaybePromise<string | null | undefined>);

/**
 * Produces one reminder per turn. `provide` returns the reminder's text, or
 * nothing (`undefined`, `null`, blank) to stay silent this turn. The runtime
 * wraps the text in exactly one `<system-reminder>` block. A throw or
 * rejection fails the assembly.
 */
export interface ReminderProvider {
  /** Names the provider in diagnostics; unique within its extension. */
  id: string;
  /**
   * Sort key: reminders are ordered by ascending priority (lower first);
   * ties keep extension order, then registration order. Default
   * `DEFAULT_REMINDER_PRIORITY` (100). Must be a finite number.
   */
  priority?: number;
  /**
   * Called once per `assembleTurn` in which its extension is enabled,
   * concurrently with the other contributions, with the turn's frozen `ctx`
   * and `this` the provider object. Returns the reminder text, or
   * `undefined`, `null` or blank text for no reminder this turn. A throw, a
   * rejection or a result that is not a string fails the assembly with
   * `ExtensionContributionError` (`reminder`).
   */
  provide(ctx: TurnContext): MaybePromise<string | null | undefined>;
}

/**
 * What an extension says it cannot provide to one turn: `message` for a
 * person, and the tools concerned (missing, or whose calls will fail). The
 * runtime makes it a `runtime.warning` with code `extension_degraded` naming
 * the extension, emitted when the turn starts.
 */
export interface TurnWarning {
  /** In words, for a person: what is missing and why. */
  message: string;
  /** Names of the extension's tools this turn lacks or whose calls will fail; none when not known. */
  tools?: readonly string[];
}

/**
 * Reports, once per `assembleTurn` in which its extension is enabled
 * (concurrently with the other contributions, with the turn's frozen
 * `ctx`), what the extension cannot provide to this turn: a warning, a
 * list, or nothing (`undefined`, `null`, `[]`). A throw, a rejection or a
 * value that is not a warning fails the assembly with
 * `ExtensionContributionError` (`warning`).
 */
export type WarningProvider = (
  ctx: TurnContext,
) => MaybePromise<TurnWarning | readonly TurnWarning[] | null | undefined>;

/**
 * What an extension's `init(api)` receives: its one way to contribute to
 * turns. Each extension gets its own `ExtensionAPI`.
 *
 * The init window: every method works only while that extension's own
 * `init` runs (until the promise it returns settles). A call afterwards, or
 * from another extension's init through a captured reference, throws
 * `ExtensionConfigError` (`extension_init`) naming the extension and the
 * method. Contributions are therefore fixed once the runtime is built;
 * per-turn behaviour goes into factories and handlers, which receive the
 * turn's {@link TurnContext}.
 *
 * Contributions keep their registration order; across extensions the
 * runtime's (resolved) extension order applies.
 */
export interface ExtensionAPI<TParams = unknown> {
  /** The id of the extension this API belongs to. */
  readonly extensionId: string;
  /** This extension's parameters from the profile (`profile.params[id]`), or `undefined`. Readable at any time. */
  readonly params: TParams | undefined;
  /**
   * The names of this extension's tools that a turn kept: those of the turn
   * assembled with `ctx` (the frozen `ctx` its factories and hooks receive)
   * or, without `ctx`, of the latest turn assembled with this extension.
   * A tool another extension's tool displaced (a name clash that appeared
   * mid-session) is missing from it, so a hook can tell a name that is this
   * extension's tool from one that is another's. `undefined` when no such
   * turn was assembled (a `ctx` the runtime did not hand out, or before the
   * first assembly). A tool a host tool displaces in `toRunTurnInput` is
   * taken out once that has run. Callable at any time.
   */
  keptTools(ctx?: TurnContext): ReadonlySet<string> | undefined;
  /**
   * Adds a tool to every turn, or a factory building tools per turn. Static
   * tools are validated at once (`invalid_tool`); a static tool name given
   * twice by this extension throws `duplicate_tool`. Clashes between
   * extensions are detected per turn, in `assembleTurn`.
   */
  registerTool(tool: ToolContribution): void;
  /** Adds a part to the system-prompt prefix. */
  contributeSystemPrompt(part: PromptContribution): void;
  /** Adds a part to the prefix of the user's message text. */
  contributeUserPromptPrefix(part: PromptContribution): void;
  /** Adds a reminder provider. Throws if the id is empty or already used by this extension, or the priority is not finite. */
  registerReminderProvider(provider: ReminderProvider): void;
  /**
   * Adds a provider of per-turn warnings (an MCP server that is down, so its
   * tools are missing or fail). Throws if `provider` is not a function.
   */
  registerWarningProvider(provider: WarningProvider): void;
  /** Subscribes `handler` to `event`; an unknown event name or a non-function handler throws. */
  on<E extends ExtensionEventName>(event: E, handler: ExtensionEventHandlers[E]): void;
  /**
   * Registers a handler that releases what the extension holds (a child
   * process, a socket). It runs once, when the host calls
   * `runtime.dispose()`, or when a later extension's init fails and the
   * runtime is never built. A non-function throws `extension_init`.
   */
  onDispose(handler: DisposeHandler): void;
}

/**
 * Releases an extension's resources. Awaited; a throw or rejection is
 * reported by `runtime.dispose()` after every other handler has run.
 */
export type DisposeHandler = () => MaybePromise<void>;
