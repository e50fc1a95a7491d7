import { describe, expect, it } from "vitest";
import { abortListenerCount, response, toolCall } from "../src/testing/index.js";
import { runLoopScenario, testTool, textResult } from "./support/scenario.js";

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
        if (event.type === "message_update" || event.type === "tool_execution_start" || event.type === "turn_end") count();
      },
    });
    expect(trace.at(-1)).toBe("agent_end");
    expect(seen.length).toBeGreaterThan(6);
    expect(new Set(seen)).toEqual(new Set([1]));
    expect(abortListenerCount(controller.signal)).toBe(0);
  });
});
