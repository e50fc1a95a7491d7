import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";

/**
 * Node fires a timer whose delay exceeds 2^31 - 1 ms, `Infinity` included,
 * after 1 ms. A watchdog configured for "effectively never" (a 30-day
 * request timeout, `Infinity` for an action request) must not fire at once
 * on the real clock.
 */
describe("systemClock with delays longer than a Node timer holds", () => {
  it("does not fire a 30-day or an Infinity delay at once; a negative or NaN delay fires at once", async () => {
    const fired: string[] = [];
    const long = [
      systemClock.setTimeout(() => fired.push("30 days"), 30 * 24 * 3_600_000),
      systemClock.setTimeout(() => fired.push("Infinity"), Number.POSITIVE_INFINITY),
      systemClock.setTimeout(() => fired.push("2^31"), 2 ** 31),
    ];
    systemClock.setTimeout(() => fired.push("negative"), -5);
    systemClock.setTimeout(() => fired.push("NaN"), Number.NaN);
    await new Promise((resolve) => setTimeout(resolve, 30));
    for (const handle of long) systemClock.clearTimeout(handle);
    expect(fired.sort()).toEqual(["NaN", "negative"]);
  });
});
