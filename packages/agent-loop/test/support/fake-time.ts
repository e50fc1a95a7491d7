import { vi } from "vitest";

/** Waits for `promise`, moving fake time to each next timer while it is pending. */
export type UntilSettled = <T>(promise: Promise<T>) => Promise<T>;

/**
 * Runs `body` on fake `setTimeout`, `clearTimeout` and `Date` (microtasks
 * and `setImmediate` stay real), so a test waits out the abort grace
 * without real time. `body` gets `until(promise)`, which lets the event
 * loop turn and fires the next timer, again and again, until the promise
 * has settled.
 */
export async function onFakeTime(body: (until: UntilSettled) => Promise<void>): Promise<void> {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    await body(until);
  } finally {
    vi.useRealTimers();
  }
}

async function until<T>(promise: Promise<T>): Promise<T> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let turn = 0; turn < 1000 && !settled; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!settled && vi.getTimerCount() > 0) await vi.advanceTimersToNextTimerAsync();
  }
  return promise;
}
