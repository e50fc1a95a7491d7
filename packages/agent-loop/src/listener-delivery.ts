import { settleOrAbandon } from "./abort-grace.js";
import type { AgentListener } from "./agent-options.js";
import type { AgentEvent } from "./types.js";

/**
 * Hands `event` to `listeners` in order, each awaited before the next; once
 * `signal` has fired, a listener result that has not settled within the
 * abort grace is given up on for this event only. Returns a promise only
 * once a listener answered with one: while every listener answers at once,
 * an event costs no promise. A listener's throw propagates (thrown, or as
 * the rejection of the promise returned).
 */
export function deliverToListeners(
  listeners: readonly AgentListener[],
  event: AgentEvent,
  signal: AbortSignal,
): Promise<void> | void {
  for (let index = 0; index < listeners.length; index++) {
    const result = listeners[index]!(event, signal);
    if (isPromiseLike(result)) return deliverAfter(result, listeners, index + 1, event, signal);
  }
}

/** The rest of {@link deliverToListeners} once a listener answered with `pending`: it, then the listeners from `from` on. */
async function deliverAfter(
  pending: PromiseLike<void>,
  listeners: readonly AgentListener[],
  from: number,
  event: AgentEvent,
  signal: AbortSignal,
): Promise<void> {
  await settleOrAbandon(pending, signal);
  for (let index = from; index < listeners.length; index++) {
    const result = listeners[index]!(event, signal);
    if (isPromiseLike(result)) await settleOrAbandon(result, signal);
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<void> {
  return typeof (value as PromiseLike<void> | null | undefined)?.then === "function";
}
