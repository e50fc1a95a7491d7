/**
 * Time as the call stack sees it: every delay and timeout goes through a
 * `Clock`, so tests drive time with a virtual clock instead of sleeping.
 * `setTimeout` must return a handle whose timers never keep the process alive
 * (real timers are `unref`ed).
 */
export interface Clock {
  /** Milliseconds since an arbitrary origin; monotonic within a process. */
  now(): number;
  /** Schedules `fn` after `ms`; the returned handle is passed to `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer scheduled by this clock; unknown handles are ignored. */
  clearTimeout(handle: unknown): void;
}

/** The real clock: `performance.now()` and `unref`ed Node timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** A source of uniform random numbers in [0, 1), injectable for deterministic jitter. */
export type RandomSource = () => number;

/**
 * Resolves after `ms` on `clock`, or rejects with the signal's reason as soon
 * as `signal` fires. The timer and the abort listener are removed either way.
 */
export function sleep(ms: number, clock: Clock, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error("aborted"));
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal?.reason ?? new Error("aborted"));
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
