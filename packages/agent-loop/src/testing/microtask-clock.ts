/** A clock that counts microtask ticks (see {@link createMicrotaskClock}). */
export interface MicrotaskClock {
  /** Ticks counted since the clock was made. */
  now(): number;
  /** Stops counting; `now()` keeps its last value. */
  stop(): void;
}

/** The most ticks a clock counts, so a run that never ends cannot keep the event loop from its timers forever. */
const MAX_TICKS = 20_000;

/**
 * A clock that counts one per microtask tick, from a chain of microtasks
 * started now. Stamping each event with `now()` when a listener sees it
 * pins the tick at which events, tool results and aborts reach the host:
 * exact as long as the run uses microtasks only (no timers), because the
 * chain then advances exactly once per round of the microtask queue. It
 * stops by itself after 20,000 ticks; call `stop()` when the run ends.
 */
export function createMicrotaskClock(): MicrotaskClock {
  let ticks = 0;
  let stopped = false;
  const tick = () => {
    if (stopped || ticks > MAX_TICKS) return;
    ticks++;
    queueMicrotask(tick);
  };
  queueMicrotask(tick);
  return { now: () => ticks, stop: () => void (stopped = true) };
}
