/**
 * The time source the scripted model uses for `eventDelayMs`. Structurally the
 * same as agent-core's `Clock`, so one virtual clock can drive both the fake
 * model and the code under test.
 */
export interface TimerClock {
  /** Milliseconds since an arbitrary origin; never decreases. */
  now(): number;
  /** Schedules `fn` after `ms`; the returned handle is passed to `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer scheduled by this clock; unknown handles are ignored. */
  clearTimeout(handle: unknown): void;
}

/**
 * Real time: `Date.now()` and Node timers. Timers are not `unref`ed: a script
 * awaiting a delayed scripted stream keeps the process alive until it ends.
 */
export const realTimerClock: TimerClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
