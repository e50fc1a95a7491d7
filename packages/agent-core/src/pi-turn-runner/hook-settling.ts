import { ABANDONED, ABORT_GRACE_MS, settleOrAbandon } from "@turnkit/agent-loop";
import type { TurnState } from "./turn-state.js";

/**
 * Awaits what a hook returned, but once `signal` fired gives up after the
 * loop's grace period and answers `ABANDONED`: the loop awaits these hooks
 * without a bound, so a hook that ignores the abort would otherwise hold
 * the turn open forever. A value that is not a promise is returned as is.
 */
export function settleHook<T>(result: T | Promise<T>, signal: AbortSignal | undefined): T | Promise<T | typeof ABANDONED> {
  if (!result || typeof (result as Promise<T>).then !== "function") return result as T;
  return settleOrAbandon(Promise.resolve(result), signal, ABORT_GRACE_MS);
}

/** Thrown when a hook was given up on after an abort; the loop then records an aborted response. */
export class HookAbandonedError extends Error {
  constructor(hookName: string) {
    super(`${hookName} did not return after the turn was aborted`);
    this.name = "HookAbandonedError";
  }
}

/**
 * Awaits a host callback of the input (steering poll, close, stop checks),
 * bounded like hooks: after an abort it gives up after the grace period and
 * answers `fallback`. Uses the running Agent's signal, else the caller's
 * (at idle, between runs).
 */
export async function settleHostCallback<T>(turn: TurnState, result: T | Promise<T>, fallback: T): Promise<T> {
  const settled = await settleHook(result, turn.agent?.signal ?? turn.input.signal);
  return settled === ABANDONED ? fallback : settled;
}
