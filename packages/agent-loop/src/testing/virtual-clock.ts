import { readArgumentFields } from "../argument-checks.js";
import { describeValue } from "../message-checks.js";
import { MAX_RUN_ALL_TIMERS } from "./scripted-defaults.js";
import type { TimerClock } from "./timer-clock.js";

/**
 * A clock whose time moves only when a test says so. Implements
 * {@link TimerClock} (the shape of agent-core's `Clock`).
 */
export interface VirtualClock extends TimerClock {
  /**
   * Moves time forward by `ms`, firing every timer due by then in time order
   * (ties in scheduling order), including timers those timers schedule.
   * Before each timer and at the end it lets pending promise chains run, so
   * async code woken by a timer reaches its next timer or its end. A timer
   * that throws rejects the returned promise; later timers stay pending.
   */
  advance(ms: number): Promise<void>;
  /**
   * Fires timers until none is pending, moving time to each one. Throws after
   * 10,000 timers (something keeps re-arming itself), naming the count.
   */
  runAll(): Promise<void>;
  /** Number of timers scheduled and neither fired nor cleared. */
  pendingCount(): number;
  /** Due time of the earliest timer neither fired nor cleared, or `undefined` when none is pending. */
  nextDueAt(): number | undefined;
  /** Every delay passed to `setTimeout` so far, as given, in scheduling order (cleared timers included). */
  scheduledDelays(): readonly number[];
}

/** Options of {@link createVirtualClock}. */
export interface VirtualClockOptions {
  /** Time of `now()` at creation. Default 0. */
  start?: number;
  /**
   * Let the clock advance itself: once the event loop has run a macrotask
   * after a timer was scheduled, time jumps to that timer and it fires
   * (with every earlier one), unless it was cleared. Backoff waits and
   * delays then take no real time and still happen in order. Default false:
   * time moves only through `advance` and `runAll`.
   */
  autoAdvance?: boolean;
}

interface VirtualTimer {
  id: number;
  dueAt: number;
  fn: () => void;
}

// Captured at load so fake-timer libraries installed later cannot freeze the flush.
const realSetImmediate: ((fn: () => void) => unknown) | undefined = globalThis.setImmediate;

/**
 * Lets queued microtasks and promise chains run. A macrotask turn (`setImmediate`)
 * runs only after the microtask queue is empty, however long its chains are.
 */
async function flushPromiseChains(): Promise<void> {
  if (realSetImmediate) {
    await new Promise<void>((resolve) => realSetImmediate(resolve));
    return;
  }
  for (let turn = 0; turn < 100; turn += 1) await Promise.resolve();
}

/**
 * Creates a virtual clock (at `options` or at time `start`). `setTimeout`
 * returns a numeric handle; a negative or non-finite delay counts as 0.
 * Nothing runs until `advance` or `runAll` is awaited, unless the clock
 * advances itself (`autoAdvance`). Throws a `TypeError` for a start that is
 * no finite number, or options that are neither a number nor an object; its
 * `setTimeout` throws a `TypeError` for an `fn` that is no function, as
 * Node's does, instead of failing when the timer fires.
 */
export function createVirtualClock(options: number | VirtualClockOptions = {}): VirtualClock {
  if (typeof options !== "number" && (typeof options !== "object" || options === null)) {
    throw new TypeError(`createVirtualClock: expected a start time or an options object, got ${String(options)}`);
  }
  // Each option read once; an object no code can read (a revoked proxy) or an option whose read throws is said in words.
  const { start = 0, autoAdvance = false } = (
    typeof options === "number"
      ? { start: options }
      : readArgumentFields(options, "createVirtualClock", "options", ["start", "autoAdvance"])
  ) as VirtualClockOptions;
  if (!Number.isFinite(start))
    throw new TypeError(`createVirtualClock: start must be a finite number, got ${String(start)}`);
  let now = start;
  let nextId = 1;
  const timers = new Map<number, VirtualTimer>();
  const scheduledDelays: number[] = [];

  const earliestDue = (limit: number): VirtualTimer | undefined => {
    let earliest: VirtualTimer | undefined;
    for (const timer of timers.values()) {
      if (timer.dueAt > limit) continue;
      if (!earliest || timer.dueAt < earliest.dueAt || (timer.dueAt === earliest.dueAt && timer.id < earliest.id))
        earliest = timer;
    }
    return earliest;
  };

  const fire = (timer: VirtualTimer) => {
    timers.delete(timer.id);
    now = Math.max(now, timer.dueAt);
    timer.fn();
  };

  return {
    now: () => now,
    setTimeout(fn, ms) {
      if (typeof fn !== "function")
        throw new TypeError(`VirtualClock.setTimeout: fn must be a function, got ${describeValue(fn)}`);
      const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
      const id = nextId;
      nextId += 1;
      const timer: VirtualTimer = { id, dueAt: now + delay, fn };
      timers.set(id, timer);
      scheduledDelays.push(ms);
      if (autoAdvance) scheduleAutoAdvance(() => fireDueBy(timer));
      return id;
    },
    clearTimeout(handle) {
      if (typeof handle === "number") timers.delete(handle);
    },
    async advance(ms) {
      if (!(ms >= 0)) throw new RangeError(`advance(): ms must be >= 0, got ${ms}`);
      const target = now + ms;
      await flushPromiseChains();
      for (let timer = earliestDue(target); timer; timer = earliestDue(target)) {
        fire(timer);
        await flushPromiseChains();
      }
      now = target;
      await flushPromiseChains();
    },
    async runAll() {
      await flushPromiseChains();
      for (let fired = 0; timers.size > 0; fired += 1) {
        if (fired >= MAX_RUN_ALL_TIMERS) {
          throw new Error(
            `runAll(): fired ${MAX_RUN_ALL_TIMERS} timers and ${timers.size} are still pending; a timer probably re-arms itself forever. Use advance(ms) instead.`,
          );
        }
        const timer = earliestDue(Number.POSITIVE_INFINITY);
        if (timer) fire(timer);
        await flushPromiseChains();
      }
    },
    pendingCount: () => timers.size,
    nextDueAt: () => earliestDue(Number.POSITIVE_INFINITY)?.dueAt,
    scheduledDelays: () => scheduledDelays,
  };

  /** The self-advancing step: fires `timer` and every timer due before it, unless it is gone already. */
  function fireDueBy(timer: VirtualTimer): void {
    if (!timers.has(timer.id)) return;
    for (let due = earliestDue(timer.dueAt); due; due = earliestDue(timer.dueAt)) fire(due);
    now = Math.max(now, timer.dueAt);
  }
}

/** Runs `step` after the current macrotask, with real time (the self-advancing clock's only real scheduling). */
function scheduleAutoAdvance(step: () => void): void {
  if (realSetImmediate) realSetImmediate(step);
  else void Promise.resolve().then(step);
}
