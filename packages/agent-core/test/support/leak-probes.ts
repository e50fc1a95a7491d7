/**
 * Measures what a turn might leave behind on the process: listeners on the
 * caller's abort signal and live Node timers.
 */
import { getEventListeners } from "node:events";

/** Number of `abort` listeners on a signal (node's own accounting, no wrapping needed). */
export function abortListenerCount(signal: AbortSignal): number {
  return getEventListeners(signal, "abort").length;
}

/**
 * Counts real Node timers created while it is installed and not yet fired or
 * cleared. Wraps `globalThis.setTimeout`/`clearTimeout` (code looks them up at
 * call time, so the loop's grace timers are seen too). `restore()` puts the
 * originals back.
 */
export function trackTimers(): { pending(): number; restore(): void } {
  const originalSet = globalThis.setTimeout;
  const originalClear = globalThis.clearTimeout;
  const live = new Set<unknown>();
  globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = originalSet(
      (...callArgs: unknown[]) => {
        live.delete(handle);
        fn(...callArgs);
      },
      ms,
      ...args,
    );
    live.add(handle);
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    live.delete(handle);
    originalClear(handle);
  }) as typeof clearTimeout;
  return {
    pending: () => live.size,
    restore: () => {
      globalThis.setTimeout = originalSet;
      globalThis.clearTimeout = originalClear;
    },
  };
}
