import { settleOrAbandon } from "./abort-grace.js";
import type { AgentListener } from "./agent-options.js";
import type { AgentEvent } from "./types.js";

/**
 * Hands `event` to `listeners` in order, each awaited before the next; once
 * `signal` has fired, a listener result that has not settled within the
 * abort grace is given up on for this event only. The set is read as it
 * goes: a listener added while the event is handed out gets it too, one
 * removed before its turn does not. Returns a promise only once a listener
 * answered with one: while every listener answers at once, an event costs
 * no promise. A listener's throw propagates (thrown, or as the rejection of
 * the promise returned).
 */
export function deliverToListeners(
  listeners: ReadonlySet<AgentListener>,
  event: AgentEvent,
  signal: AbortSignal,
): Promise<void> | void {
  const rest = listeners.values();
  for (let next = rest.next(); !next.done; next = rest.next()) {
    const result = next.value(event, signal);
    if (isPromiseLike(result)) return deliverAfter(result, rest, event, signal);
  }
}

/** The rest of {@link deliverToListeners} once a listener answered with `pending`: it, then the listeners `rest` still has. */
async function deliverAfter(
  pending: PromiseLike<void>,
  rest: Iterator<AgentListener>,
  event: AgentEvent,
  signal: AbortSignal,
): Promise<void> {
  await settleOrAbandon(pending, signal);
  for (let next = rest.next(); !next.done; next = rest.next()) {
    const result = next.value(event, signal);
    if (isPromiseLike(result)) await settleOrAbandon(result, signal);
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<void> {
  return typeof (value as PromiseLike<void> | null | undefined)?.then === "function";
}
