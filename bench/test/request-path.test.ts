import { describe, expect, it } from "vitest";
import { traceRequestPath } from "../src/request-path.js";

describe("one model request, read from runTurn to pi-ai's streamSimple and back", () => {
  it("passes through at most 15 of our source files", async () => {
    const path = await traceRequestPath();
    expect(path.outcome.kind).toBe("completed");
    // Both ways were seen: the provider was reached and a text delta came back to the writer.
    expect(path.wayIn[0]).toBe("packages/agent-core/src/pi-turn-runner/pi-turn-runner.ts");
    expect(path.wayBack.length).toBeGreaterThan(0);
    // A failure lists the files, so the reader sees which one was added.
    expect(path.distinct.length, path.distinct.join("\n")).toBeLessThanOrEqual(15);
  });
});
