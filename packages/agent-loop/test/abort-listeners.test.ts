import { describe, expect, it } from "vitest";
import { abortListenerCount, probeRealTimers, response, toolCall } from "../src/testing/index.js";
import { createAgentScenario, deferred, runLoopScenario, testTool, textResult } from "./support/scenario.js";

describe("abort listeners of a run on the caller's signal", () => {
  it("one for the whole run, while it streams and while its tools run; none once it ended", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const count = () => seen.push(abortListenerCount(controller.signal));
    const { trace } = await runLoopScenario({
      script: [response([toolCall("look"), toolCall("look")]), response([toolCall("look")]), "done"],
      tools: [
        testTool("look", {
          execute: async () => {
            count();
            return textResult("ok");
          },
        }),
      ],
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "message_update" || event.type === "tool_execution_start" || event.type === "turn_end")
          count();
      },
    });
    expect(trace.at(-1)).toBe("agent_end");
    expect(seen.length).toBeGreaterThan(6);
    expect(new Set(seen)).toEqual(new Set([1]));
    expect(abortListenerCount(controller.signal)).toBe(0);
  });

  it("an Agent's awaited listener result adds none; aborted while it is pending, the grace timer goes once it settles", async () => {
    const { agent } = createAgentScenario(["done"]);
    const slow = deferred();
    const reached = deferred();
    const counts: number[] = [];
    agent.subscribe((event, signal) => {
      if (event.type !== "turn_end") return;
      reached.resolve();
      counts.push(abortListenerCount(signal));
      return slow.promise;
    });
    const timers = probeRealTimers();
    try {
      const run = agent.prompt("go");
      await reached.promise;
      const signal = agent.signal!;
      // Only the run's own listener: the pending result is waited for without one.
      expect(counts).toEqual([1]);
      expect(abortListenerCount(signal)).toBe(1);
      agent.abort();
      slow.resolve();
      await run;
      expect(agent.state.isStreaming).toBe(false);
      expect(timers.pending()).toBe(0);
    } finally {
      timers.restore();
    }
  });
});
