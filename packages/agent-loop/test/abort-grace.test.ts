import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ABANDONED, AbortGrace, settleOrAbandon } from "../src/abort-grace.js";

const GRACE_MS = 50;

/** Whether `promise` has settled, and with what, once pending jobs ran. */
async function state<T>(promise: Promise<T>): Promise<{ settled: false } | { settled: true; value: T }> {
  let outcome: { settled: false } | { settled: true; value: T } = { settled: false };
  void promise.then((value) => (outcome = { settled: true, value }));
  await vi.advanceTimersByTimeAsync(0);
  return outcome;
}

describe("AbortGrace", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("runs out graceMs after begin: the waiter is called and ranOut resolves, whether asked for before or after", async () => {
    const grace = new AbortGrace(undefined, GRACE_MS);
    const early = grace.ranOut;
    const waiter = vi.fn();
    grace.whenRunOut(waiter);
    grace.begin();
    await vi.advanceTimersByTimeAsync(GRACE_MS - 1);
    expect(waiter).not.toHaveBeenCalled();
    expect(await state(early)).toEqual({ settled: false });
    await vi.advanceTimersByTimeAsync(1);
    expect(waiter).toHaveBeenCalledTimes(1);
    expect(await state(early)).toEqual({ settled: true, value: ABANDONED });
    expect(await state(grace.ranOut)).toEqual({ settled: true, value: ABANDONED });
    const late = vi.fn();
    grace.whenRunOut(late);
    expect(late).toHaveBeenCalledTimes(1);
  });

  it("never runs out once ended, and a waiter that stopped waiting is not called", async () => {
    const ended = new AbortGrace(undefined, GRACE_MS);
    ended.begin();
    ended.end();
    const stopped = new AbortGrace(undefined, GRACE_MS);
    const waiter = vi.fn();
    stopped.whenRunOut(waiter);
    stopped.stopWaiting(waiter);
    stopped.begin();
    await vi.advanceTimersByTimeAsync(GRACE_MS * 2);
    expect(await state(ended.ranOut)).toEqual({ settled: false });
    expect(waiter).not.toHaveBeenCalled();
  });

  it("begins when its signal fires (at once when it had fired), and ending it removes its listener", async () => {
    const controller = new AbortController();
    const grace = new AbortGrace(controller.signal, GRACE_MS);
    const ranOut = grace.ranOut;
    await vi.advanceTimersByTimeAsync(GRACE_MS * 2);
    expect(await state(ranOut)).toEqual({ settled: false });
    controller.abort();
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(await state(ranOut)).toEqual({ settled: true, value: ABANDONED });

    const fired = new AbortController();
    fired.abort();
    const begunAtOnce = new AbortGrace(fired.signal, GRACE_MS);
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(await state(begunAtOnce.ranOut)).toEqual({ settled: true, value: ABANDONED });

    const later = new AbortController();
    const endedFirst = new AbortGrace(later.signal, GRACE_MS);
    expect(getEventListeners(later.signal, "abort")).toHaveLength(1);
    endedFirst.end();
    expect(getEventListeners(later.signal, "abort")).toHaveLength(0);
    later.abort();
    await vi.advanceTimersByTimeAsync(GRACE_MS * 2);
    expect(await state(endedFirst.ranOut)).toEqual({ settled: false });
  });
});

describe("settleOrAbandon", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("gives the work's answer without a signal, and before the signal's grace runs out", async () => {
    expect(await settleOrAbandon(Promise.resolve("answer"), undefined, GRACE_MS)).toBe("answer");
    const controller = new AbortController();
    let answer!: (value: string) => void;
    const work = new Promise<string>((resolve) => (answer = resolve));
    const settled = settleOrAbandon(work, controller.signal, GRACE_MS);
    controller.abort();
    await vi.advanceTimersByTimeAsync(GRACE_MS - 1);
    answer("late but in time");
    expect(await state(settled)).toEqual({ settled: true, value: "late but in time" });
  });

  it("gives ABANDONED once the grace after the abort ran out, and handles the work's later rejection", async () => {
    const controller = new AbortController();
    let fail!: (error: Error) => void;
    const work = new Promise<string>((_, reject) => (fail = reject));
    const settled = settleOrAbandon(work, controller.signal, GRACE_MS);
    controller.abort();
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(await state(settled)).toEqual({ settled: true, value: ABANDONED });
    vi.useRealTimers();
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    try {
      fail(new Error("too late"));
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });
});
