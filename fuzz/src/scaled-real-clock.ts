/**
 * A clock for generated runs in real time: the testing kit's virtual-clock
 * interface over Node's own timers, sped up by a scale (virtual milliseconds
 * per real millisecond) and with a seeded extra delay of up to two real
 * milliseconds on about half of its timers. Timers that the virtual clock
 * fires in an exact order here race each other, a provider's events and
 * the host's answers the way they do on a loaded machine. A timer never
 * fires before its virtual due time.
 */
import type { VirtualClock } from "@turnkit/agent-loop/testing";

/** Captured at load: the leak probes wrap the globals during runs. */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

/** How a {@link createScaledRealClock} runs. */
export interface ScaledRealClockOptions {
  /** Virtual milliseconds per real millisecond (at least 1). */
  scale: number;
  /** Seeds which timers get an extra real delay, and how long. */
  jitterSeed: number;
}

interface RealTimer {
  dueAt: number;
  handle: ReturnType<typeof setTimeout>;
}

/** Creates a clock at virtual time 0 that moves with real time; see the module. */
export function createScaledRealClock({ scale, jitterSeed }: ScaledRealClockOptions): VirtualClock {
  const origin = performance.now();
  let state = jitterSeed >>> 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pending = new Map<number, RealTimer>();
  const delays: number[] = [];
  let ids = 0;
  let latest = 0;
  const now = () => {
    latest = Math.max(latest, (performance.now() - origin) * scale);
    return latest;
  };
  const arm = (id: number, fn: () => void, realMs: number) => {
    const fire = () => {
      const timer = pending.get(id);
      if (!timer) return;
      // Node may wake a timer a fraction of a millisecond early: wait out the rest of its virtual delay.
      const early = timer.dueAt - now();
      if (early > 0) return arm(id, fn, early / scale + 0.1);
      pending.delete(id);
      fn();
    };
    const timer = pending.get(id);
    if (timer) timer.handle = realSetTimeout(fire, realMs);
  };
  const nextDueAt = () => {
    let earliest: number | undefined;
    for (const { dueAt } of pending.values()) if (earliest === undefined || dueAt < earliest) earliest = dueAt;
    return earliest;
  };
  const sleep = (realMs: number) => new Promise<void>((resolve) => realSetTimeout(resolve, realMs));
  return {
    now,
    setTimeout(fn, ms) {
      delays.push(ms);
      const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
      const id = ++ids;
      pending.set(id, { dueAt: now() + delay, handle: undefined as never });
      arm(id, fn, delay / scale + (random() < 0.5 ? 0 : random() * 2));
      return id;
    },
    clearTimeout(handle) {
      const timer = pending.get(handle as number);
      if (!timer) return;
      realClearTimeout(timer.handle);
      pending.delete(handle as number);
    },
    advance: (ms) => sleep(Math.max(0, ms) / scale),
    async runAll() {
      while (pending.size > 0) await sleep(1);
    },
    pendingCount: () => pending.size,
    nextDueAt,
    scheduledDelays: () => delays,
  };
}
