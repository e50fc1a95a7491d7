import type { Clock } from "../../src/clock.js";

/**
 * A clock whose time moves only when the test says so (`advance`), or, with
 * `autoAdvance`, jumps straight to each timer as soon as the event loop is
 * idle enough to run a macrotask: backoff waits then take no real time while
 * still happening in order.
 */
export interface VirtualClock extends Clock {
  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void;
  /** Every delay ever scheduled, in scheduling order. */
  readonly scheduled: readonly number[];
  /** Timers scheduled and neither fired nor cleared. */
  readonly pendingCount: number;
}

interface Timer {
  id: number;
  due: number;
  fn: () => void;
}

export function createVirtualClock(options: { autoAdvance?: boolean; start?: number } = {}): VirtualClock {
  let now = options.start ?? 0;
  let nextId = 1;
  const timers = new Map<number, Timer>();
  const scheduled: number[] = [];

  const fireDue = (until: number) => {
    for (;;) {
      const next = [...timers.values()].filter((t) => t.due <= until).sort((a, b) => a.due - b.due || a.id - b.id)[0];
      if (!next) break;
      timers.delete(next.id);
      now = Math.max(now, next.due);
      next.fn();
    }
    now = Math.max(now, until);
  };

  const clock: VirtualClock = {
    now: () => now,
    setTimeout(fn, ms) {
      const timer: Timer = { id: nextId++, due: now + Math.max(0, ms), fn };
      timers.set(timer.id, timer);
      scheduled.push(ms);
      if (options.autoAdvance) {
        setImmediate(() => {
          if (timers.has(timer.id)) fireDue(timer.due);
        });
      }
      return timer.id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      fireDue(now + ms);
    },
    get scheduled() {
      return scheduled;
    },
    get pendingCount() {
      return timers.size;
    },
  };
  return clock;
}
