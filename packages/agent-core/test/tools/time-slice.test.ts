import { describe, expect, it } from "vitest";
import { TimeSlice } from "../../src/tools/builtin/time-slice.js";

describe("TimeSlice", () => {
  it("gives the event loop a turn once its budget is spent, not before", async () => {
    const turns: string[] = [];
    setImmediate(() => turns.push("other work"));
    await new TimeSlice(60_000).yieldIfDue();
    turns.push("within budget");
    await new TimeSlice(0).yieldIfDue();
    turns.push("after the budget");
    expect(turns).toEqual(["within budget", "other work", "after the budget"]);
  });

  it("throws the abort reason when it yields after the signal fired", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stopped"));
    await expect(new TimeSlice(0).yieldIfDue(controller.signal)).rejects.toThrow("stopped");
  });
});
