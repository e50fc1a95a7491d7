import type { PiTurnHooks } from "@turnkit/agent-core";
import type { ExtensionEventName } from "./extension-events.js";
import type { TurnContext } from "./turn-context.js";

/**
 * How an extension handler is turned into an agent-core hook:
 *
 * - `context`: `(event) => handler(event, ctx)`. Extra arguments the runner
 *   passes are dropped (`onHistoryChangedHook(change, { sessionId, turnId })`:
 *   the handler gets the assembled turn's `ctx`, which carries both ids).
 * - `tool-context`: `(event, signal) => handler(event, signal, ctx)`.
 *
 * Either way the adapted hook resolves a `null` result to `undefined` ("no
 * decision") and a synchronous throw becomes a rejection, which the runner
 * treats by the hook's own failure rule.
 */
export type HookAdapterKind = "context" | "tool-context";

/** One row of {@link HOOK_MAPPINGS}. */
export interface HookMapping {
  /** The `PiTurnHooks` field the adapted handlers go into. */
  readonly pi: keyof PiTurnHooks;
  /** The extension event (`api.on(event, ...)`) it comes from. */
  readonly event: ExtensionEventName;
  /** How each handler is wrapped into that hook (see {@link HookAdapterKind}). */
  readonly adapter: HookAdapterKind;
}

/**
 * Which extension event feeds which agent-core hook, in the order
 * the assembly fills them. `onToolExecutionStartHook` is deliberately not
 * mapped: hosts wire it directly (pass it in the host hooks of
 * `toRunTurnInput`). `turn_start` / `turn_end` are not runner hooks either:
 * they come out as `turnStartHandlers` / `turnEndHandlers`.
 */
export const HOOK_MAPPINGS = [
  { pi: "onLlmCallPreparedHook", event: "on_llm_call_prepared", adapter: "context" },
  { pi: "beforeLlmCallHook", event: "before_llm_call", adapter: "context" },
  { pi: "afterLlmCallHook", event: "after_llm_call", adapter: "context" },
  { pi: "beforeToolCallHook", event: "before_tool_call", adapter: "tool-context" },
  { pi: "afterToolCallHook", event: "after_tool_call", adapter: "tool-context" },
  { pi: "onHistoryChangedHook", event: "on_history_changed", adapter: "context" },
  { pi: "onStepEndHook", event: "on_step_end", adapter: "context" },
] as const satisfies readonly HookMapping[];

/** The extension events that become runner hooks. */
export type MappedHookEventName = (typeof HOOK_MAPPINGS)[number]["event"];

// Compile-time check: every event but turn_start / turn_end is mapped.
const everyHookEventMapped: Exclude<ExtensionEventName, MappedHookEventName | "turn_start" | "turn_end"> extends never
  ? true
  : never = true;
void everyHookEventMapped;

type AnyHandler = (...args: any[]) => unknown;
type AnyHook = (...args: any[]) => Promise<unknown>;

/** Adapts one handler by its mapping's adapter kind, binding `ctx`. Internal to the assembly. */
export function adaptHookHandler(adapter: HookAdapterKind, handler: AnyHandler, ctx: TurnContext): AnyHook {
  switch (adapter) {
    case "context":
      return async (event: unknown) => (await handler(event, ctx)) ?? undefined;
    case "tool-context":
      return async (event: unknown, signal: AbortSignal) => (await handler(event, signal, ctx)) ?? undefined;
    default: {
      const unknownAdapter: never = adapter;
      throw new Error(`unknown hook adapter ${String(unknownAdapter)}`);
    }
  }
}
