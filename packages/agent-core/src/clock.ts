import { onAbort } from "@turnkit/agent-loop/internal";

/**
 * Time as the call stack sees it: every delay and timeout goes through a
 * `Clock`, so tests drive time with a virtual clock instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since an arbitrary origin; monotonic within a process. */
  now(): number;
  /**
   * Schedules `fn` after `ms`; the returned handle is passed to
   * `clearTimeout`. A watchdog timer (the default) never keeps the process
   * alive; `keepAlive: true` marks a wait that is the work in progress (a
   * retry backoff), which must keep a CLI host running until it ends.
   */
  setTimeout(fn: () => void, ms: number, options?: { keepAlive?: boolean }): unknown;
  /** Cancels a timer scheduled by this clock; unknown handles are ignored. */
  clearTimeout(handle: unknown): void;
}

/** The longest delay a Node timer keeps (about 24.8 days); Node fires a longer one, and `Infinity`, after 1 ms. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * The real clock: `performance.now()` and Node timers, `unref`ed unless
 * `keepAlive`. A delay longer than a Node timer can hold (`Infinity`
 * included) waits that longest delay, about 24.8 days, instead of firing at
 * once; a negative or `NaN` delay fires at once.
 */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout(fn, ms, options) {
    const handle = setTimeout(fn, Math.min(Math.max(ms, 0) || 0, MAX_TIMER_DELAY_MS));
    if (!options?.keepAlive) handle.unref?.();
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
 * The wait keeps the process alive (it is work in progress, not a watchdog).
 */
export function sleep(ms: number, clock: Clock, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error("aborted"));
      return;
    }
    let stopListening: (() => void) | undefined;
    const handle = clock.setTimeout(
      () => {
        stopListening?.();
        resolve();
      },
      ms,
      { keepAlive: true },
    );
    if (signal)
      stopListening = onAbort(signal, () => {
        clock.clearTimeout(handle);
        reject(signal.reason ?? new Error("aborted"));
      });
  });
}
