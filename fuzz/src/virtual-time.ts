/**
 * Virtual time for generated runs: a driver that moves the testing kit's
 * virtual clock from timer to timer (`nextDueAt`) until a run settles.
 * Nothing sleeps in real time except the last resort after an abort (the
 * loop's real-time abort grace for work that ignores the signal).
 */
import type { VirtualClock } from "@turnkit/agent-loop/testing";

/** Captured at load: the leak probes wrap the globals during runs. */
const realSetTimeout = globalThis.setTimeout;
const realSetImmediate = globalThis.setImmediate;

/**
 * After a run settled: cancels the host's own timers on `clock`, then lets
 * late tool updates and stray rejections surface (they do within a few
 * macrotasks), so the leak checks see everything the run left behind.
 */
export async function letStragglersSurface(clock: VirtualClock, hostTimers: readonly unknown[] = []): Promise<void> {
  for (const handle of hostTimers) clock.clearTimeout(handle);
  for (let turn = 0; turn < 3; turn++) await macrotask();
}

/** One macrotask turn: every queued microtask and promise chain has run. */
export function macrotask(): Promise<void> {
  return new Promise((resolve) => realSetImmediate(resolve));
}

/**
 * The pauses between timers of a paced drive (see `TurnScenario.pacing`),
 * from a seeded generator (mulberry32): one microtask tick, up to twenty,
 * or a macrotask. The stall check after them still waits macrotasks, so a
 * run with work left is never taken for a hang.
 */
function pausesFrom(seed: number): () => Promise<void> {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return async () => {
    const draw = next();
    if (draw >= 0.5) return macrotask();
    const ticks = draw < 0.3 ? 1 : 1 + Math.floor(next() * 20);
    for (let tick = 0; tick < ticks; tick++) await Promise.resolve();
  };
}

function realSleep(ms: number): Promise<void> {
  return new Promise((resolve) => realSetTimeout(resolve, ms));
}

/** What happened while driving a run. */
export interface DriveReport {
  /** The run stalled (nothing scheduled, not settled) and was aborted by the driver. */
  watchdogAborted: boolean;
  /** Virtual time when the run settled. */
  endedAt: number;
}

/** Thrown when a run does not settle even after an abort: an ending promise was broken. */
export class RunNeverSettledError extends Error {
  constructor(detail: string) {
    super(`The run never settled: ${detail}`);
    this.name = "RunNeverSettledError";
  }
}

/** Real time granted after the watchdog abort (the loop's abort grace is 250 ms). */
const REAL_WAIT_AFTER_ABORT_MS = 3_000;
/** More timer steps than any generated scenario needs: a timer that re-arms forever. */
const MAX_TIMER_STEPS = 20_000;

/**
 * Moves `clock` from timer to timer until `run` settles. When nothing is
 * scheduled and the run still has not settled (a hang), calls `abort` once
 * (the watchdog); after that only real time can help, so it waits in small
 * real steps, and throws {@link RunNeverSettledError} if the run still does
 * not settle. A run that waits on real I/O (a socket) gets `quietMs` of real
 * time with nothing scheduled before that counts as a hang. Never rejects
 * for the run's own outcome.
 */
export async function driveUntilSettled(
  run: Promise<unknown>,
  clock: VirtualClock,
  abort: () => void,
  pacing?: number,
  quietMs = 0,
): Promise<DriveReport> {
  const pause = pacing === undefined ? macrotask : pausesFrom(pacing);
  let settled = false;
  void run.then(
    () => (settled = true),
    () => (settled = true),
  );
  let watchdogAborted = false;
  let realWaitedMs = 0;
  let quietForMs = 0;
  for (let steps = 0; !settled; steps++) {
    if (steps > MAX_TIMER_STEPS)
      throw new RunNeverSettledError(`${MAX_TIMER_STEPS} timer steps (a timer keeps re-arming itself)`);
    await pause();
    if (settled) break;
    const due = clock.nextDueAt();
    if (due !== undefined) {
      quietForMs = 0;
      await clock.advance(Math.max(0, due - clock.now()));
      continue;
    }
    await macrotask();
    if (settled || clock.nextDueAt() !== undefined) continue;
    if (!watchdogAborted && quietForMs < quietMs) {
      await realSleep(5);
      quietForMs += 5;
      steps--;
      continue;
    }
    if (!watchdogAborted) {
      watchdogAborted = true;
      abort();
      continue;
    }
    if (realWaitedMs >= REAL_WAIT_AFTER_ABORT_MS) {
      throw new RunNeverSettledError(
        `still pending ${REAL_WAIT_AFTER_ABORT_MS} ms (real time) after the abort, with no timer scheduled`,
      );
    }
    await realSleep(5);
    realWaitedMs += 5;
  }
  return { watchdogAborted, endedAt: clock.now() };
}
