import { describe, expect, it } from "vitest";
import { createVirtualClock } from "../../src/testing/index.js";

describe("virtual clock", () => {
  it("refuses a start that is no finite number, naming it", () => {
    expect(() => createVirtualClock({ start: "x" as never })).toThrow(
      new TypeError("createVirtualClock: start must be a finite number, got x"),
    );
    expect(() => createVirtualClock(Number.NaN)).toThrow(
      new TypeError("createVirtualClock: start must be a finite number, got NaN"),
    );
    expect(() => createVirtualClock(null as never)).toThrow(
      new TypeError("createVirtualClock: expected a start time or an options object, got null"),
    );
  });

  it("starts where told and moves only when advanced", async () => {
    const clock = createVirtualClock(500);
    expect(clock.now()).toBe(500);
    await clock.advance(250);
    expect(clock.now()).toBe(750);
  });

  it("fires due timers in time order, ties in scheduling order, and reports time at each", async () => {
    const clock = createVirtualClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`c@${clock.now()}`), 30);
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => fired.push(`b1@${clock.now()}`), 20);
    clock.setTimeout(() => fired.push(`b2@${clock.now()}`), 20);
    clock.setTimeout(() => fired.push(`late@${clock.now()}`), 100);

    await clock.advance(30);
    expect(fired).toEqual(["a@10", "b1@20", "b2@20", "c@30"]);
    expect(clock.pendingCount()).toBe(1);
    expect(clock.now()).toBe(30);
  });

  it("clearTimeout cancels; unknown handles are ignored", async () => {
    const clock = createVirtualClock();
    let fired = false;
    const handle = clock.setTimeout(() => {
      fired = true;
    }, 5);
    clock.clearTimeout(handle);
    clock.clearTimeout("nope");
    clock.clearTimeout(undefined);
    await clock.advance(10);
    expect(fired).toBe(false);
    expect(clock.pendingCount()).toBe(0);
  });

  it("lets async chains woken by a timer schedule and reach their next timer within one advance", async () => {
    const clock = createVirtualClock();
    const sleep = (ms: number) => new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
    const steps: number[] = [];
    const task = (async () => {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        await sleep(100);
        await Promise.resolve();
        await Promise.resolve();
        steps.push(clock.now());
      }
    })();
    await clock.advance(250);
    expect(steps).toEqual([100, 200]);
    await clock.advance(50);
    await task;
    expect(steps).toEqual([100, 200, 300]);
  });

  it("runAll fires everything, including timers scheduled by timers", async () => {
    const clock = createVirtualClock();
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now());
      clock.setTimeout(() => fired.push(clock.now()), 1_000);
    }, 50);
    await clock.runAll();
    expect(fired).toEqual([50, 1_050]);
    expect(clock.pendingCount()).toBe(0);
  });

  it("runAll gives up with a clear error on a timer that re-arms itself forever", async () => {
    const clock = createVirtualClock();
    const rearm = () => {
      clock.setTimeout(rearm, 1);
    };
    rearm();
    await expect(clock.runAll()).rejects.toThrow(/10000 timers/);
  });

  it("treats negative and non-finite delays as zero", async () => {
    const clock = createVirtualClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push("negative"), -5);
    clock.setTimeout(() => fired.push("nan"), Number.NaN);
    await clock.advance(0);
    expect(fired).toEqual(["negative", "nan"]);
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
  });
});
