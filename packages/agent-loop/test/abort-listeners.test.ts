import { describe, expect, it } from "vitest";
import { abortListenerCount, probeRealTimers, response, toolCall } from "../src/testing/index.js";
import { createAgentScenario, deferred, runLoopScenario, testTool, textResult } from "./support/scenario.js";

describe("abort listeners of a run on the caller's signal", () => {
  it("a few while it streams and while its tools run, not more with every step; none once it ended", async () => {
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
    // The run's requests follow its signal; a response being read, and a tool batch, wait within one abort grace.
    expect(Math.max(...seen)).toBeLessThanOrEqual(2);
    expect(abortListenerCount(controller.signal)).toBe(0);
  });

  it("an Agent's awaited listener result: aborted while it is pending, its grace timer and listener go once it settles", async () => {
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
      // Only the run's own listener (its requests' abort): the pending result is waited for within the abort grace.
      expect(counts).toEqual([1]);
      // …and its grace adds one more while it is pending.
      expect(abortListenerCount(signal)).toBe(2);
      agent.abort();
      slow.resolve();
      await run;
      expect(agent.state.isStreaming).toBe(false);
      expect(timers.pending()).toBe(0);
      expect(abortListenerCount(signal)).toBe(0);
    } finally {
      timers.restore();
    }
  });
});
