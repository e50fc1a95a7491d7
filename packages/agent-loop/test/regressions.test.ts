import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { hang, response, toolCall } from "../src/testing/index.js";
import { createAgentScenario, deferred, testTool, textResult } from "./support/scenario.js";

/**
 * Bugs found by the property tests (conformance/fuzz), each pinned by a test
 * named after it.
 */
describe("regressions", () => {
  it("listener-failure-leaves-work-running: a listener that throws mid-stream aborts the request still streaming", async () => {
    const { agent } = createAgentScenario([hang({ afterEvents: 1 })]);
    let runSignal: AbortSignal | undefined;
    agent.subscribe((event, signal) => {
      runSignal = signal;
      if (event.type === "message_start" && event.message.role === "assistant") throw new Error("listener bug");
    });
    await agent.prompt("hi");
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toBe("listener bug");
    // The hanging request was aborted, so it ended and let go of the signal.
    expect(runSignal?.aborted).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(getEventListeners(runSignal!, "abort")).toHaveLength(0);
  });

  it("listener-failure-leaves-work-running: a listener that throws on one call's end aborts the other calls of the batch", async () => {
    const slowStarted = deferred();
    let slowSawAbort = false;
    const slow = testTool("slow", {
      execute: (_id, _params, signal) =>
        new Promise((resolve) => {
          slowStarted.resolve();
          signal?.addEventListener("abort", () => {
            slowSawAbort = true;
            resolve(textResult("slow stopped"));
          });
        }),
    });
    const { agent } = createAgentScenario(
      [response([toolCall("quick", {}, { id: "q" }), toolCall("slow", {}, { id: "s" })]), "never"],
      {
        tools: [testTool("quick"), slow],
      },
    );
    agent.subscribe((event) => {
      if (event.type === "tool_execution_end" && event.toolCallId === "q") throw new Error("end listener bug");
    });
    await agent.prompt("go");
    await slowStarted.promise;
    expect(agent.state.isStreaming).toBe(false);
    expect(slowSawAbort).toBe(true);
  });
});
