/**
 * The tool call timer of a turn's watch: each call is found by its id,
 * whether the turn made a few calls (a short list) or many (a map too).
 */
import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/clock.js";
import { ToolCallTimer } from "../../src/turn-watch/tool-call-timing.js";

/** A clock that answers whatever `at` is set to. */
function manualClock(): Clock & { at: number } {
  const clock = {
    at: 0,
    now: () => clock.at,
    setTimeout: () => undefined as never,
    clearTimeout: () => {},
  };
  return clock;
}

describe("ToolCallTimer", () => {
  it.each([3, 100])(
    "times each of %i calls by its id, in announcement order, a repeated announcement changing nothing",
    (calls) => {
      const clock = manualClock();
      const timer = new ToolCallTimer(clock);
      for (let index = 0; index < calls; index++) {
        clock.at = index;
        timer.announced(`call_${index}`, `tool_${index % 3}`);
        timer.announced(`call_${index}`, "again");
      }
      // The oldest calls again, once many newer ones came after them.
      for (let index = 0; index < Math.min(calls, 10); index++) timer.announced(`call_${index}`, "again");
      // Admitted and ended oldest first, each a little later than the one before.
      for (let index = 0; index < calls; index++) {
        clock.at = 1_000 + index;
        timer.admitted(`call_${index}`);
      }
      for (let index = 0; index < calls; index++) {
        clock.at = 2_000 + 2 * index;
        expect(timer.ended(`call_${index}`)).toBe(true);
      }
      expect(timer.ended("never-announced")).toBe(false);
      expect(timer.endedAt("never-announced")).toBeNaN();
      expect(timer.timing("never-announced", 0)).toBeUndefined();

      const timings = timer.timings(5_000);
      expect(timings).toHaveLength(calls);
      timings.forEach((timing, index) => {
        expect(timing).toEqual({
          toolCallId: `call_${index}`,
          toolName: `tool_${index % 3}`,
          queuedMs: 1_000,
          runMs: 1_000 + index,
        });
        expect(timer.endedAt(`call_${index}`)).toBe(2_000 + 2 * index);
      });
    },
  );

  it("ends a call still running at `now`; a call never admitted was queued all its time", () => {
    const clock = manualClock();
    const timer = new ToolCallTimer(clock);
    timer.announced("a", "lookup");
    timer.announced("b", "lookup");
    clock.at = 10;
    timer.admitted("a");
    clock.at = 30;
    timer.ended("b");
    expect(timer.timings(50)).toEqual([
      { toolCallId: "a", toolName: "lookup", queuedMs: 10, runMs: 40 },
      { toolCallId: "b", toolName: "lookup", queuedMs: 30, runMs: 0 },
    ]);
  });
});
