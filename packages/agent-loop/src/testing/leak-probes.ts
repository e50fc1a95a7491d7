/**
 * What a run may leave behind on the process, measured: listeners on an
 * abort signal and real timers started and never cleared. Node only (uses
 * `node:events`).
 */
import { getEventListeners } from "node:events";
import { describeValue, isUnreadable } from "../message-checks.js";

/**
 * Abort listeners currently registered on `signal` (Node's own count;
 * nothing is wrapped). Throws a `TypeError` naming the argument when
 * `signal` is no `AbortSignal`.
 */
export function abortListenerCount(signal: AbortSignal): number {
  if (isUnreadable(signal) || !(signal instanceof AbortSignal)) {
    throw new TypeError(`abortListenerCount: signal must be an AbortSignal, got ${describeValue(signal)}`);
  }
  return getEventListeners(signal, "abort").length;
}

/** Real timers started while a {@link probeRealTimers} probe was installed. */
export interface RealTimerProbe {
  /** Timers started during the probe that neither fired nor were cleared. */
  pending(): number;
  /** Puts the original `setTimeout` / `clearTimeout` back (only if nobody replaced them since). */
  restore(): void;
}

/** Timers the test runner itself starts while a probe is installed (reporting, RPC): not the run's. */
const RUNNER_FRAMES = /[\\/](vitest|@vitest|tinypool|birpc)[\\/]/;

/**
 * Timers of Node's own `fetch` (undici): its connect and keep-alive timers
 * belong to the connection pool, whose idle sockets outlive any run by
 * design. (A request a run leaves in flight is for the test's server to see.)
 */
const FETCH_POOL_FRAME = /node:internal\/deps\/undici/;

/**
 * Wraps `globalThis.setTimeout` / `clearTimeout` to count the real timers the
 * code under test starts (code looks them up at call time, so the loop's
 * abort-grace timers are seen). Only timers started while the probe is
 * installed count, and not those started directly by vitest's own machinery.
 * Call `restore()` when done, also when the test fails.
 */
export function probeRealTimers(): RealTimerProbe {
  const originalSet = globalThis.setTimeout;
  const originalClear = globalThis.clearTimeout;
  const live = new Set<unknown>();
  const wrappedSet = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = originalSet(
      (...callArgs: unknown[]) => {
        live.delete(handle);
        fn(...callArgs);
      },
      ms,
      ...args,
    );
    // Only the direct caller decides: a run's own timer has the test runner further down its (async) stack.
    const stack = new Error().stack ?? "";
    const caller = stack.split("\n")[2] ?? "";
    if (!RUNNER_FRAMES.test(caller) && !FETCH_POOL_FRAME.test(stack)) live.add(handle);
    return handle;
  }) as typeof setTimeout;
  const wrappedClear = ((handle: Parameters<typeof clearTimeout>[0]) => {
    live.delete(handle);
    originalClear(handle);
  }) as typeof clearTimeout;
  globalThis.setTimeout = wrappedSet;
  globalThis.clearTimeout = wrappedClear;
  return {
    pending: () => live.size,
    restore: () => {
      if (globalThis.setTimeout === wrappedSet) globalThis.setTimeout = originalSet;
      if (globalThis.clearTimeout === wrappedClear) globalThis.clearTimeout = originalClear;
    },
  };
}
