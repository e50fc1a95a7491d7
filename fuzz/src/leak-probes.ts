/**
 * Measures what a run leaves behind (SPEC X2, issue 8 invariant 6):
 * listeners on an abort signal, real timers started during the run and not
 * cleared, and unhandled promise rejections.
 */
import { getEventListeners } from "node:events";

/** Abort listeners currently registered on `signal` (node's own count, no wrapping). */
export function abortListenerCount(signal: AbortSignal): number {
  return getEventListeners(signal, "abort").length;
}

let unhandled: unknown[] | undefined;

/**
 * Starts counting unhandled rejections process-wide (once; later calls reuse
 * the counter). Returns a reader of everything seen so far.
 */
export function unhandledRejections(): { readonly seen: readonly unknown[] } {
  if (!unhandled) {
    const seen: unknown[] = [];
    unhandled = seen;
    process.on("unhandledRejection", (reason) => {
      seen.push(reason);
    });
  }
  const seen = unhandled;
  return {
    get seen() {
      return seen;
    },
  };
}

/** Real timers started while a {@link RealTimerProbe} was installed. */
export interface RealTimerProbe {
  /** Timers started during the probe that neither fired nor were cleared. */
  pending(): number;
  /** Puts the original `setTimeout` / `clearTimeout` back. */
  restore(): void;
}

/** Timers the test runner itself starts while a probe is installed (reporting, RPC): not the run's. */
const RUNNER_FRAMES = /[\\/](vitest|@vitest|tinypool|birpc)[\\/]/;

/**
 * Wraps `setTimeout` / `clearTimeout` to count real timers the code under
 * test starts (the loop's abort-grace timers use real time). Only timers
 * started while installed are counted, and not those the test runner starts.
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
    const caller = (new Error().stack ?? "").split("\n")[2] ?? "";
    if (!RUNNER_FRAMES.test(caller)) live.add(handle);
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
