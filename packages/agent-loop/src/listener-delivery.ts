import type { AgentListener } from "./agent-options.js";
import type { ListenerGrace } from "./listener-grace.js";
import type { AgentEvent } from "./types.js";

function isThenable(value: unknown): value is PromiseLike<void> {
  return typeof value === "object" && value !== null && typeof (value as PromiseLike<void>).then === "function";
}

/**
 * Calls `listeners` with `event` in order, each awaited before the next.
 * Returns a promise only when a listener returned one, so synchronous
 * listeners cost no microtask per streamed delta. A listener's throw or
 * rejection propagates (the run fails). Once `signal` has fired, a listener
 * that has not settled within the abort grace (`grace`) is given up on for
 * this event only: the listeners after it still receive the event, in order.
 */
export function deliverToListeners(
  listeners: readonly AgentListener[],
  event: AgentEvent,
  signal: AbortSignal,
  grace: ListenerGrace,
): Promise<void> | void {
  for (let index = 0; index < listeners.length; index++) {
    const result = listeners[index]!(event, signal);
    if (isThenable(result)) return awaitRemainingListeners(result, event, signal, grace, listeners, index + 1);
  }
}

async function awaitRemainingListeners(
  pending: PromiseLike<void>,
  event: AgentEvent,
  signal: AbortSignal,
  grace: ListenerGrace,
  listeners: readonly AgentListener[],
  from: number,
): Promise<void> {
  await grace.wait(pending);
  for (let index = from; index < listeners.length; index++) {
    const result = listeners[index]!(event, signal);
    if (isThenable(result)) await grace.wait(result);
  }
}
