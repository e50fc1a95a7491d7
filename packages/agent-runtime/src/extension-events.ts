import type {
  AfterLlmCallDecision,
  AfterLlmCallEvent,
  AfterToolCallEvent,
  AfterToolCallPatch,
  BeforeLlmCallDecision,
  BeforeLlmCallEvent,
  BeforeToolCallDecision,
  HistoryChange,
  LlmCallPreparedEvent,
  StepEndEvent,
  ToolCallHookEvent,
} from "@turnkit/agent-core";
import type { TurnContext, TurnEndEvent } from "./turn-context.js";

/** A value or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * The handler of each event an extension can subscribe to with `api.on`.
 * The seven hook events are the `PiTurnHooks` of agent-core with the
 * assembled turn's `ctx` as an extra last argument (see `HOOK_MAPPINGS`);
 * `turn_start` and `turn_end` are not hooks of the runner: the host calls
 * them around `runTurn` (`AssembledTurn.turnStartHandlers` /
 * `turnEndHandlers`).
 *
 * Decision handlers may return `null` or `undefined` for "no decision";
 * the runtime passes both on as `undefined`. Failure semantics are the
 * runner's: decisions about what is sent fail closed, observers'
 * errors are ignored, step-end errors are reported.
 */
export interface ExtensionEventHandlers {
  /** Observe the final request (no credentials). Errors are ignored. */
  on_llm_call_prepared: (event: LlmCallPreparedEvent, ctx: TurnContext) => MaybePromise<void>;
  /** Before each model request; may rewrite, answer, skip or abort it. A throw fails the turn. */
  before_llm_call: (
    event: BeforeLlmCallEvent,
    ctx: TurnContext,
  ) => MaybePromise<BeforeLlmCallDecision | null | undefined>;
  /** At each completed response; may replace its text, retry or fail. A throw fails the turn. */
  after_llm_call: (event: AfterLlmCallEvent, ctx: TurnContext) => MaybePromise<AfterLlmCallDecision | null | undefined>;
  /** Before each admitted tool call; the first `block` wins. A throw blocks the call. */
  before_tool_call: (
    event: ToolCallHookEvent,
    signal: AbortSignal,
    ctx: TurnContext,
  ) => MaybePromise<BeforeToolCallDecision>;
  /** After each executed tool call; patches merge in order. A throw turns the result into an error. */
  after_tool_call: (
    event: AfterToolCallEvent,
    signal: AbortSignal,
    ctx: TurnContext,
  ) => MaybePromise<AfterToolCallPatch | null | undefined>;
  /** New history to persist. A throw fails the turn. */
  on_history_changed: (change: HistoryChange, ctx: TurnContext) => MaybePromise<void>;
  /** After each step (loop `turn_end`). A throw is reported; the turn goes on. */
  on_step_end: (event: StepEndEvent, ctx: TurnContext) => MaybePromise<void>;
  /** Called by the host before `runTurn`. */
  turn_start: (ctx: TurnContext) => MaybePromise<void>;
  /** Called by the host after `runTurn` resolved, with its outcome. */
  turn_end: (event: TurnEndEvent, ctx: TurnContext) => MaybePromise<void>;
}

/** The name of an event an extension can subscribe to. */
export type ExtensionEventName = keyof ExtensionEventHandlers;

/** Every {@link ExtensionEventName}, in the order the hooks of a turn first fire. */
export const EXTENSION_EVENT_NAMES = [
  "turn_start",
  "before_llm_call",
  "on_llm_call_prepared",
  "after_llm_call",
  "before_tool_call",
  "after_tool_call",
  "on_history_changed",
  "on_step_end",
  "turn_end",
] as const satisfies readonly ExtensionEventName[];

// Compile-time check: the list above names every event of ExtensionEventHandlers.
const everyEventListed: Exclude<ExtensionEventName, (typeof EXTENSION_EVENT_NAMES)[number]> extends never
  ? true
  : never = true;
void everyEventListed;

/** True when `name` is one of {@link EXTENSION_EVENT_NAMES}. */
export function isExtensionEventName(name: unknown): name is ExtensionEventName {
  return typeof name === "string" && (EXTENSION_EVENT_NAMES as readonly string[]).includes(name);
}

/** One handler or an ordered list of handlers for event `E` (used by the declarative factories). */
export type ExtensionEventHandlerList<E extends ExtensionEventName> =
  | ExtensionEventHandlers[E]
  | readonly ExtensionEventHandlers[E][];

/** Declarative handlers keyed by event name, as `createHookExtension` and `createExtension` take them. */
export type ExtensionHookTable = { readonly [E in ExtensionEventName]?: ExtensionEventHandlerList<E> };

/** A `turn_start` handler with the turn's ctx already bound; the host calls it before `runTurn`. */
export type BoundTurnStartHandler = () => Promise<void>;

/** A `turn_end` handler with the turn's ctx already bound; the host calls it after `runTurn` resolved. */
export type BoundTurnEndHandler = (event: TurnEndEvent) => Promise<void>;
