import { settleOrAbandon } from "./abort-grace.js";
import type { AgentListener } from "./agent-options.js";
import type { AgentEvent } from "./types.js";

/**
 * Calls `listeners` with `event` in order, each awaited before the next. A
 * listener's throw or rejection propagates (the run fails). Once `signal`
 * has fired, a listener that has not settled within the abort grace is
 * given up on for this event only: the listeners after it still receive
 * the event, in order.
 */
export async function deliverToListeners(
  listeners: readonly AgentListener[],
  event: AgentEvent,
  signal: AbortSignal,
): Promise<void> {
  for (const listener of listeners) {
    const result = listener(event, signal);
    if (isThenable(result)) await settleOrAbandon(result, signal);
  }
}

function isThenable(value: unknown): value is PromiseLike<void> {
  return typeof (value as PromiseLike<void> | null | undefined)?.then === "function";
}
